// Package valbench compares jsonl.Valid with the JSON validators of other Go libraries, for
// docs/validate.md. It is a module of its own so that the main module does not depend on
// them; run it with
//
//	cd jsonl/internal/valbench && go test -bench . -benchtime 10x
//
// (the first run downloads the libraries through the module proxy). TestAgreement counts
// where each one disagrees with encoding/json.Valid.
package valbench

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bytedance/sonic"
	goccy "github.com/goccy/go-json"
	jsoniter "github.com/json-iterator/go"
	segjson "github.com/segmentio/encoding/json"
	"github.com/tidwall/gjson"
	"github.com/valyala/fastjson"

	"github.com/clawdoctor/clawdoctor/jsonl"
	"github.com/clawdoctor/clawdoctor/jsonl/internal/linegen"
)

var cands = []struct {
	name string
	f    func([]byte) bool
}{
	{"encoding/json.Valid", json.Valid},
	{"jsonl.Valid", jsonl.Valid},
	{"fastjson.ValidateBytes", func(b []byte) bool { return fastjson.ValidateBytes(b) == nil }},
	{"gjson.ValidBytes", gjson.ValidBytes},
	{"segmentio.Valid", segjson.Valid},
	{"sonic.Valid", sonic.Valid},
	{"goccy.Valid", goccy.Valid},
	{"jsoniter.Valid", jsoniter.ConfigCompatibleWithStandardLibrary.Valid},
}

func split(b []byte) ([][]byte, int64) {
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	return lines, int64(len(b))
}

func generated() ([][]byte, int64) {
	var buf bytes.Buffer
	linegen.Write(&buf, 7, 32<<20)
	return split(buf.Bytes())
}

// corpus is every *.jsonl of ../shared/corpus, read in place.
func corpus(b *testing.B) ([][]byte, int64) {
	var all []byte
	filepath.Walk("../../../../shared/corpus", func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(p, ".jsonl") {
			data, _ := os.ReadFile(p)
			data = bytes.TrimSuffix(data, []byte("\n"))
			if len(data) > 0 {
				all = append(append(all, data...), '\n')
			}
		}
		return nil
	})
	if len(all) == 0 {
		b.Skip("no corpus beside the repository")
	}
	return split(all)
}

func threadCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1, &ru) // RUSAGE_THREAD
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func bench(b *testing.B, lines [][]byte, n int64) {
	for _, c := range cands {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(n)
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			start := threadCPU()
			for b.Loop() {
				for _, l := range lines {
					if !c.f(l) {
						b.Fatal("valid line rejected")
					}
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/1e6/(threadCPU()-start).Seconds(), "MB/cpu-s")
		})
	}
}

func BenchmarkGenerated(b *testing.B) { l, n := generated(); bench(b, l, n) }
func BenchmarkCorpus(b *testing.B)    { l, n := corpus(b); bench(b, l, n) }

func TestAgreement(t *testing.T) {
	var cs [][]byte
	for _, s := range []string{
		`{}`, `[]`, `""`, `0`, `-0`, `1.5e+10`, `true`, ` {} `, "\t[1,2]\r\n", `{"a":"\u00e9\n"}`, "\"\xff\xfe\"", "\"\xed\xa0\x80\"",
		strings.Repeat("[", 5000) + strings.Repeat("]", 5000), strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		``, ` `, `{`, `[1,]`, `{"a":1,}`, `01`, `1.`, `-`, `1e`, `tru`, `"abc`, `"\x"`, `"\u12G4"`, "\"tab\there\"", "\"nul\x00\"",
		`{}{}`, `{} x`, "\x00{}", "\xEF\xBB\xBF{}", `NaN`, `+1`, strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	} {
		cs = append(cs, []byte(s))
	}
	g := linegen.New(9)
	for i := 0; i < 50; i++ {
		l := g.Next()
		for n := 0; n <= len(l); n += 1 + n/20 {
			cs = append(cs, l[:n]) // torn writes
		}
	}
	for _, c := range cands {
		var bad []string
		for _, s := range cs {
			func() {
				defer func() {
					if recover() != nil {
						bad = append(bad, "panic")
					}
				}()
				if c.f(s) != json.Valid(s) {
					bad = append(bad, string(s[:min(len(s), 12)]))
				}
			}()
		}
		t.Logf("%-24s disagrees on %d of %d inputs %q", c.name, len(bad), len(cs), bad[:min(len(bad), 3)])
	}
}

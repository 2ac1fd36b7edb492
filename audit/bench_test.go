package audit_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/audit"
)

// synthetic returns a transcript of about size bytes: turns of a user prompt, tool calls with
// results and a reply, chained by parentId.
func synthetic(size int) []byte {
	var b bytes.Buffer
	b.WriteString(hdr() + "\n")
	parent, n := "", 0
	next := func() string { n++; return fmt.Sprintf("%08x", n) }
	for b.Len() < size {
		u := next()
		b.WriteString(user(u, parent, "please look at the build logs and tell me what failed in the last run") + "\n")
		parent = u
		for k := 0; k < 3; k++ {
			a, r, c := next(), next(), fmt.Sprintf("call_%d", n)
			b.WriteString(asst(a, parent, "toolUse", text("checking the logs now, one moment"), toolCall(c, "exec")) + "\n")
			b.WriteString(resultAt(r, a, c, "exec", "build step 4 of 9 failed: missing module github.com/x/y at v1.2.3; see log line 1200", 0) + "\n")
			parent = r
		}
		a := next()
		b.WriteString(asst(a, parent, "stop", text("The build failed because a module is missing; add it to go.mod.")) + "\n")
		parent = a
	}
	return b.Bytes()
}

func BenchmarkCheckTranscript(b *testing.B) {
	data := synthetic(32 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		fs, _, err := audit.CheckTranscript(context.Background(), bytes.NewReader(data), "bench.jsonl", audit.Options{})
		if err != nil || len(fs) != 0 {
			b.Fatalf("%v %v", err, fs)
		}
	}
}

// FuzzCheckTranscript: any input gives findings or an error, never a panic, and every finding
// names a known rule and a line inside the input.
func FuzzCheckTranscript(f *testing.F) {
	f.Add([]byte(clean))
	f.Add([]byte(jl(hdr(), user("u1", "", "hi")+asst("a1", "u1", "stop", text("yo")), "\x00\x00", `{"type":"message","id":"x"`)))
	f.Add([]byte(jl(user("u1", "x", "hi"), user("x", "u1", "loop"), result("r", "u1", "c"))))
	f.Add([]byte(batchedTurn(211, 211, 212)))
	f.Fuzz(func(t *testing.T, in []byte) {
		fs, _, err := audit.CheckTranscript(context.Background(), bytes.NewReader(in), "f.jsonl", audit.Options{MaxLine: 4096})
		if err != nil {
			return
		}
		lines := int64(bytes.Count(in, []byte("\n")) + 1)
		for _, f := range fs {
			if _, ok := audit.RuleByID(f.Rule); !ok || f.Line < 0 || f.Line > lines || f.Message == "" {
				t.Fatalf("bad finding %+v for %q", f, in)
			}
		}
	})
}

// tinyShape returns a transcript of about size bytes shaped as scripts/bench/shapes.mjs's
// "tiny" shape: one short user or assistant turn a line (~236 bytes), a label now and then,
// random 8-hex ids, so that the id index is as big and as scattered as on a real file.
func tinyShape(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"session","version":3,"id":"7e574618-0000-4000-8000-000000000000","timestamp":"2026-04-01T00:00:04.378Z","cwd":"/srv/app"}` + "\n")
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the build failed because a module is missing please check logs deploy retry network timeout file path config value")
	text := func(n int) string {
		var s strings.Builder
		for s.Len() < n {
			s.WriteString(words[rng.IntN(len(words))])
			s.WriteByte(' ')
		}
		return s.String()[:n]
	}
	parent, ms := "null", int64(1775001600000)
	for b.Len() < size {
		id := fmt.Sprintf("%08x", rng.Uint32())
		ms += rng.Int64N(5000)
		ts := time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
		switch r := rng.Float64(); {
		case r < 0.05:
			fmt.Fprintf(&b, `{"type":"label","id":"%s","parentId":%s,"timestamp":"%s","targetId":%s,"label":"x"}`+"\n", id, parent, ts, parent)
		case r < 0.5:
			fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"%s","message":{"role":"user","content":%q,"timestamp":%d}}`+"\n", id, parent, ts, text(8), ms)
		default:
			fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"%s","message":{"role":"assistant","content":[{"type":"text","text":%q}],"api":"openai-responses","provider":"openai","model":"gpt-5.4","usage":{"input":1000,"output":50},"stopReason":"stop","timestamp":%d}}`+"\n", id, parent, ts, text(6), ms)
		}
		parent = `"` + id + `"`
	}
	return b.Bytes()
}

// BenchmarkAuditTiny: the audit of a file of many tiny entries (issue 14's slowest shape),
// 128 MiB so that the id index outgrows the caches as on the bench's 1 GiB file; through
// audit.Run on a file, so that its lines are extracted on every core as the CLI's are.
func BenchmarkAuditTiny(b *testing.B) {
	data := tinyShape(128 << 20)
	path := filepath.Join(b.TempDir(), "tiny.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		res, err := audit.Run(context.Background(), []string{path}, audit.Options{}, nil)
		if err != nil || res.Summary.Entries < int64(len(data)/300) {
			b.Fatalf("%v, %d entries", err, res.Summary.Entries)
		}
	}
}

package audit_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/audit"
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

// BenchmarkAuditTiny: the audit of a file of many tiny entries (issue 14's slowest shape),
// 128 MiB so that the id index outgrows the caches as on the bench's 1 GiB file; through
// audit.Run on a file, so that its lines are extracted on every core as the CLI's are.
func BenchmarkAuditTiny(b *testing.B) {
	data := audit.TinyShape(128 << 20)
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

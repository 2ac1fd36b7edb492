//go:build nodejs

package jsonobj_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
)

var nodeGolden = flag.Bool("node-golden", false, "write testdata/stringify_*.golden from node's output")

// nodeStringify runs JSON.stringify(JSON.parse(in), null, 2) in Node.
func nodeStringify(t *testing.T, in []byte) []byte {
	t.Helper()
	cmd := exec.Command("node", "-e", `const t=require("fs").readFileSync(0,"utf8");process.stdout.write(JSON.stringify(JSON.parse(t),null,2))`)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	return out
}

// TestStringifyMatchesNode checks the golden files against Node itself
// (go test -tags nodejs ./internal/jsonobj). numbers_kept differs on purpose: we keep number tokens.
func TestStringifyMatchesNode(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not installed")
	}
	for _, tc := range stringifyCases {
		if tc.name == "numbers_kept" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			want := nodeStringify(t, []byte(tc.in))
			path := filepath.Join("testdata", "stringify_"+tc.name+".golden")
			if *nodeGolden {
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("golden %s differs from node:\n%s\n---\n%s", path, got, want)
			}
		})
	}
}

// FuzzStringifyNode compares Stringify with Node on fuzzed objects (slow: one node per input).
func FuzzStringifyNode(f *testing.F) {
	if _, err := exec.LookPath("node"); err != nil {
		f.Skip("node not installed")
	}
	for _, tc := range stringifyCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := jsonobj.Stringify(in, "  ")
		if err != nil || !plainNumbers(got) {
			return // numbers are kept as tokens, node would normalise 1.0, 1e5, -0, 2^53+1
		}
		if want := nodeStringify(t, in); !bytes.Equal(got, want) {
			t.Fatalf("input %q\ngot  %s\nwant %s", in, got, want)
		}
	})
}

// plainNumbers reports whether every number token is an integer JS prints the same way.
func plainNumbers(js []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return true
		}
		if n, ok := tok.(json.Number); ok {
			s := string(n)
			if strings.ContainsAny(s, ".eE") || s == "-0" || len(strings.TrimPrefix(s, "-")) > 15 {
				return false
			}
		}
	}
}

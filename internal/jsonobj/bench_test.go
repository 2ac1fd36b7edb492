package jsonobj_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
)

// bigStore builds a sessions.json in OpenClaw's format with n entries, each carrying a
// skillsSnapshot-sized blob (users report 10–20 MB stores, users-and-peers.md §1C).
func bigStore(tb testing.TB, n int) []byte {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"agent:main:telegram:direct:%d":{"sessionId":"%08x-0000-4000-8000-%012x","updatedAt":%d,"chatType":"direct",`+
			`"deliveryContext":{"channel":"telegram","to":"%d"},"inputTokens":1200,"outputTokens":340,"totalTokens":48211,`+
			`"skillsSnapshot":{"prompt":%q,"skills":[{"name":"web","enabled":true},{"name":"exec","enabled":false}]},"label":"héllo <&> \u2028"}`,
			i, i, i, 1741939200000+int64(i), i, strings.Repeat("You can use the skill \"x\".\n", 150))
	}
	b.WriteString("}")
	out, err := jsonobj.Stringify([]byte(b.String()), "  ")
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func BenchmarkParse(b *testing.B) {
	data := bigStore(b, 2000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := jsonobj.Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshalJS(b *testing.B) {
	data := bigStore(b, 2000)
	o, err := jsonobj.Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		out, err := o.MarshalJS("  ")
		if err != nil || len(out) != len(data) {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodingJSON is the baseline: the same round trip with encoding/json (map, sorted
// keys, Go escaping: not byte-exact, shown for speed only).
func BenchmarkEncodingJSON(b *testing.B) {
	data := bigStore(b, 2000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundTripFile parses and re-serializes the sessions.json named by
// CLAWDOCTOR_BENCH_STORE (skipped without it), for a side-by-side with Node's
// JSON.stringify(JSON.parse(text), null, 2) on the same file.
func BenchmarkRoundTripFile(b *testing.B) {
	path := os.Getenv("CLAWDOCTOR_BENCH_STORE")
	if path == "" {
		b.Skip("set CLAWDOCTOR_BENCH_STORE to a sessions.json")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		o, err := jsonobj.Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		out, err := o.MarshalJS("  ")
		if err != nil || !bytes.Equal(out, data) {
			b.Fatal("not byte-exact", err)
		}
	}
}

package jsonl_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/internal/retention"
	"github.com/clawdoctor/clawdoctor/jsonl"
	"github.com/clawdoctor/clawdoctor/repair"
)

// verdict is what a parser makes of some bytes: one JSON value, not JSON, or JSON nested
// deeper than jsonl.MaxDepth (read by OpenClaw's JSON.parse, examined by none of ours, so
// never dropped or rewritten).
type verdict string

const (
	valid   verdict = "valid"
	invalid verdict = "invalid"
	deep    verdict = "too deep"
)

func of(err error) verdict {
	switch {
	case err == nil:
		return valid
	case errors.Is(err, jsonl.ErrTooDeep):
		return deep
	}
	return invalid
}

// verdicts asks every parser of the project that decides whether bytes are JSON: the line
// validator (validate, audit, session), repair's scanner, encoding/json (config, lock and
// header reads), and, for objects, jsonobj (sessions.json everywhere) and cleanup's reader.
func verdicts(b []byte) map[string]verdict {
	out := map[string]verdict{
		"jsonl.Check":    of(jsonl.Check(b)),
		"repair.Verdict": of(repair.Verdict(b)),
	}
	if json.Valid(b) {
		out["encoding/json"] = valid
	} else if err := json.Compact(&bytes.Buffer{}, b); err != nil && strings.Contains(err.Error(), "exceeded max depth") {
		out["encoding/json"] = deep
	} else {
		out["encoding/json"] = invalid
	}
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		_, err := jsonobj.Parse(b)
		out["jsonobj.Parse"] = of(err)
		out["retention.StoreVerdict"] = of(retention.StoreVerdict(b))
	}
	return out
}

func agree(t *testing.T, b []byte) {
	t.Helper()
	v := verdicts(b)
	want := v["jsonl.Check"]
	for name, got := range v {
		if got != want {
			t.Fatalf("%q: %s says %s, jsonl.Check says %s (all: %v)", trunc(b), name, got, want, v)
		}
	}
	// the audit's one-pass reader accepts only valid lines; a line it refuses goes to
	// jsonl.Check for the verdict (FuzzDocMatchesFastjson: it refuses no valid line under 256
	// levels that fastjson reads)
	if new(jsonl.Doc).Parse(b) && want != valid {
		t.Fatalf("%q: jsonl.Doc reads it, jsonl.Check says %s", trunc(b), want)
	}
}

func trunc(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "..."
	}
	return string(b)
}

// grammarSeeds are the places where parsers usually differ.
var grammarSeeds = []string{
	`{}`, `[]`, `{"a":1}`, ` {"a" : [1, 2.5e-3, -0, true, false, null, "x"]} `, `{"a":1}` + "\r",
	"{\"a\":\"\xff\"}", "{\"\xff\":1}", "{\"a\":1}\xff", `{"a":"\ud800"}`, `{"a":"\udc00\ud800"}`,
	"{\"a\":\"\x00\"}", "{\"a\":\"\x1f\"}", "{\"a\":\"\x7f\"}", `{"a":1e400}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":.5}`,
	"\xef\xbb\xbf{}", "{\"a\":1\f}", "{\"a\":1\v}", `{"a":1,}`, `[1,]`, `{"a":"\u00"}`, `{"a":"\x"}`, `{"a":"\/"}`,
	`{"a":1}{"b":2}`, `{"a":1} x`, `nul`, `"`, `{"a`, `{"a":"b"`, `{"a":tru}`, "", " ", "\n",
}

// issue 10, scope 9: one grammar. Every parser gives the same verdict on the same bytes,
// including at the depth limit and with invalid UTF-8, escapes and control bytes, so no
// command deletes what another calls sound. On main, cleanup's reader (fastjson) accepted
// any depth, audit's (fastjson) stopped at 300 levels and accepted "01", and repair dropped
// as unparseable a line JSON.parse reads.
func TestOneGrammar(t *testing.T) {
	for _, s := range grammarSeeds {
		agree(t, []byte(s))
	}
	for _, n := range []int{299, 300, 301, jsonl.MaxDepth - 2, jsonl.MaxDepth - 1, jsonl.MaxDepth, jsonl.MaxDepth + 1, 3 * jsonl.MaxDepth} {
		for _, shape := range []func(int) string{
			func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) },
			func(n int) string { return `{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}` },
			func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) },
			func(n int) string { return `{"a":` + strings.Repeat("[", n) + "x" }, // invalid after the limit
		} {
			agree(t, []byte(shape(n)))
		}
	}
}

func FuzzOneGrammar(f *testing.F) {
	for _, s := range grammarSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		agree(t, b)
	})
}

// A line nested deeper than the limit is not corrupt: repair keeps it, byte for byte.
func TestRepairKeepsADeepLine(t *testing.T) {
	hdr := `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}`
	deepLine := `{"type":"custom","id":"d","parentId":null,"data":` + strings.Repeat("[", jsonl.MaxDepth+5) + strings.Repeat("]", jsonl.MaxDepth+5) + `}`
	in := []byte(hdr + "\n" + deepLine + "\n" + `{"type":"mess` + "\n")
	p, err := repair.PlanBytes(in, "s1.jsonl", repair.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := repair.Apply(t.Context(), p, bytes.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out.Bytes(), []byte(deepLine+"\n")) || p.Counts.DroppedLines != 1 {
		t.Fatalf("the deep line was not kept (dropped %d lines)", p.Counts.DroppedLines)
	}
}

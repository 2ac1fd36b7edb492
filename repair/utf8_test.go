package repair

import (
	"context"
	"strings"
	"testing"
)

// ReplaceInvalidUTF8 decodes as Node's Buffer.toString("utf8") does (the answers below are
// Node 20's): each maximal ill-formed subsequence becomes one U+FFFD.
func TestReplaceInvalidUTF8(t *testing.T) {
	for in, want := range map[string]string{
		"\xe2\x82A":           "\uFFFDA",
		"\xff\xfe":            "\uFFFD\uFFFD",
		"\xed\xa0\x80":        "\uFFFD\uFFFD\uFFFD",
		"\xf0\x90\x80":        "\uFFFD",
		"\xc0\xaf":            "\uFFFD\uFFFD",
		"\xf4\x90\x80\x80":    "\uFFFD\uFFFD\uFFFD\uFFFD",
		"\xe0\x80A":           "\uFFFD\uFFFDA",
		"a\xf0\x9f\x98\x80":   "a\U0001F600",
		"{\"t\":\"caf\xe9\"}": "{\"t\":\"caf\uFFFD\"}",
		"plain ascii, é, 日本":  "plain ascii, é, 日本",
	} {
		if got := string(ReplaceInvalidUTF8([]byte(in))); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

// The OnlyInvalidUTF8 plan rewrites only the lines with invalid bytes, and nothing else (a
// torn line, a BOM stay for the ordinary repair).
func TestPlanOnlyInvalidUTF8(t *testing.T) {
	in := "\ufeff" + hdr + "\n" + `{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"caf` + "\xe9" + `"}}` + "\n" + `{"type":"mess` + "\n"
	p, err := PlanBytes([]byte(in), "t", Options{OnlyInvalidUTF8: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Counts.ReplacedInvalidUTF8Lines != 1 || len(p.Edits) != 1 || p.Counts.DroppedLines != 0 {
		t.Fatalf("plan %+v", p.Counts)
	}
	var out strings.Builder
	if _, err := Apply(context.Background(), p, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(in, "caf\xe9", "caf\uFFFD", 1)
	if out.String() != want {
		t.Errorf("got %q\nwant %q", out.String(), want)
	}
}

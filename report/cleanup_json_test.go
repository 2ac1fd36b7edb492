package report

import (
	"bufio"
	"bytes"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/retention"
)

// elemStrings are strings whose JSON encoding differs from their bytes in some way
// encoding/json cares about.
var elemStrings = []string{"", "agent:main:main", `a " quote`, `a \ backslash`, "tab\tnew\nline\r", "\x00\x01\x1f\x7f",
	"<html> & 'amp'", "é ü 日本 🦞", "\u2028\u2029", "bad \xff\xfe utf-8", "sessions/x.jsonl.deleted.2026-06-15T12-00-00.000Z"}

// elemsBoth writes one action and one file with elemWriter and with marshalIndent.
func elemsBoth(t *testing.T, s string, n int64, prefix string) (fast, slow []byte) {
	t.Helper()
	a := retention.EntryAction{Key: s, SessionID: s + "1", Action: retention.ActPruneStale, Reason: "why " + s}
	files := []retention.FileAction{{Path: s, Action: retention.FileArchive, Reason: s, Bytes: n, To: s + ".deleted"},
		{Path: s, Action: retention.FileDelete, Reason: "r", Bytes: -n}}
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	ew := newElemWriter(w, prefix)
	ew.action(a)
	for _, f := range files {
		ew.file(f)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var want []byte
	for _, v := range []any{a, files[0], files[1]} {
		m, err := marshalIndent(v, prefix+"    ")
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, m...)
	}
	return b.Bytes(), want
}

func TestCleanupElemsLikeEncodingJSON(t *testing.T) {
	for _, prefix := range []string{"", "    "} {
		for i, s := range elemStrings {
			fast, slow := elemsBoth(t, s, int64(i)*1e12, prefix)
			if !bytes.Equal(fast, slow) {
				t.Errorf("prefix %q, %q:\n got %s\nwant %s", prefix, s, fast, slow)
			}
		}
	}
}

func FuzzCleanupElems(f *testing.F) {
	for i, s := range elemStrings {
		f.Add(s, int64(i))
	}
	f.Fuzz(func(t *testing.T, s string, n int64) {
		if fast, slow := elemsBoth(t, s, n, "    "); !bytes.Equal(fast, slow) {
			t.Fatalf("%q:\n got %s\nwant %s", s, fast, slow)
		}
	})
}

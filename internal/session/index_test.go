package session_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/session"
	"github.com/clawdoctor/clawdoctor/jsonl"
	"github.com/google/go-cmp/cmp"
)

func index(t *testing.T, text string, opts session.IndexOptions) *session.Index {
	t.Helper()
	x, err := session.BuildIndex(context.Background(), strings.NewReader(text), "t.jsonl", opts)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func ids(x *session.Index, idx []int) []string {
	var out []string
	for _, i := range idx {
		out = append(out, x.Node(i).ID)
	}
	return out
}

const treeText = `{"type":"session","version":3,"id":"S","timestamp":"T","cwd":"/"}
{"type":"message","id":"u1","parentId":null,"timestamp":"T","message":{"role":"user","content":"hi"}}
{"type":"message","id":"a1","parentId":"u1","timestamp":"T","message":{"role":"assistant","content":[]}}

{"type":"message","id":"u2","parentId":"u1","timestamp":"T","message":{"role":"user","content":"again"}}
not json
{"type":"custom","id":"c1","parentId":"gone","timestamp":"T","customType":"x"}
{"type":"label","id":"a1","parentId":"u2","timestamp":"T","targetId":"u1","label":"dup id"}
[1,2]
{"type":"session","id":"S2"}
{"type":"message","id":"n1","parentId":7,"timestamp":"T","message":{"role":"toolResult","content":[]}}
{"type":"label","id":"l1","parentId":"a1","timestamp":"T","targetId":"u2"}`

func TestIndexTree(t *testing.T) {
	x := index(t, treeText, session.IndexOptions{})
	if x.Len() != 7 {
		t.Fatalf("Len = %d, want 7", x.Len())
	}
	if h, line := x.Header(); h == nil || h.ID != "S" || line != 1 {
		t.Errorf("header %v at %d", h, line)
	}
	if diff := cmp.Diff([]string{"u1"}, ids(x, x.Roots())); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"c1", "n1"}, ids(x, x.Dangling())); diff != "" {
		t.Errorf("dangling (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]session.Duplicate{{ID: "a1", Entries: []int{1, 4}}}, x.Duplicates()); diff != "" {
		t.Errorf("duplicates (-want +got):\n%s", diff)
	}
	u1, _ := x.Lookup("u1")
	if diff := cmp.Diff([]string{"a1", "u2"}, ids(x, x.Children(u1))); diff != "" {
		t.Errorf("children of u1 (-want +got):\n%s", diff)
	}
	// a1 resolves to its last occurrence (the label), as pi's Map does.
	if a1, _ := x.Lookup("a1"); x.Node(a1).Type != "label" {
		t.Errorf("Lookup(a1) = %+v", x.Node(a1))
	}
	leaf := x.ActiveLeaf()
	if n := x.Node(leaf); n.ID != "l1" || n.Line != 12 || n.Type != "label" {
		t.Errorf("leaf %+v", n)
	}
	if diff := cmp.Diff([]string{"u1", "u2", "a1", "l1"}, ids(x, x.ActivePath())); diff != "" {
		t.Errorf("active path (-want +got):\n%s", diff)
	}
	var kinds []string
	for _, p := range x.Problems() {
		kinds = append(kinds, p.Kind.String())
	}
	if diff := cmp.Diff([]string{"invalid", "not-object", "stray-header"}, kinds); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if x.Blank() != 1 || x.Lines() != 12 || x.Bytes() != int64(len(treeText)) {
		t.Errorf("blank %d lines %d bytes %d", x.Blank(), x.Lines(), x.Bytes())
	}
	if n := x.Node(0); n.Role != "user" || n.Offset != int64(strings.Index(treeText, `{"type":"message","id":"u1"`)) {
		t.Errorf("node 0 = %+v", n)
	}
	// Load the path by seeking.
	es, err := x.ReadEntries(strings.NewReader(treeText), x.ActivePath())
	if err != nil {
		t.Fatal(err)
	}
	if es[1].Message.Text() != "again" || es[3].Type != "label" {
		t.Errorf("loaded %v %v", es[1].Message, es[3].Type)
	}
}

func TestIndexCycles(t *testing.T) {
	x := index(t, `{"type":"message","id":"a","parentId":"c","timestamp":"T","message":{"role":"user","content":"1"}}
{"type":"message","id":"b","parentId":"a","timestamp":"T","message":{"role":"user","content":"2"}}
{"type":"message","id":"c","parentId":"b","timestamp":"T","message":{"role":"user","content":"3"}}
{"type":"message","id":"self","parentId":"self","timestamp":"T","message":{"role":"user","content":"4"}}
{"type":"message","id":"tail","parentId":"c","timestamp":"T","message":{"role":"user","content":"5"}}`, session.IndexOptions{})
	if diff := cmp.Diff([]string{"a", "b", "c", "self"}, ids(x, x.Cycles())); diff != "" {
		t.Errorf("cycles (-want +got):\n%s", diff)
	}
	if h, _ := x.Header(); h != nil {
		t.Errorf("a file without header has header %v", h)
	}
	if len(x.Roots()) != 0 {
		t.Errorf("roots %v", x.Roots())
	}
	// The walk from tail enters the cycle and stops before repeating an entry.
	if diff := cmp.Diff([]string{"a", "b", "c", "tail"}, ids(x, x.ActivePath())); diff != "" {
		t.Errorf("path (-want +got):\n%s", diff)
	}
	self, _ := x.Lookup("self")
	if diff := cmp.Diff([]string{"self"}, ids(x, x.Path(self))); diff != "" {
		t.Errorf("self path (-want +got):\n%s", diff)
	}
}

// Agent-core rules (spec §2.9): leaf rows move the visible leaf, side entries and unknown types
// do not, paths skip leaf rows and follow logical parents.
func TestIndexAgentCore(t *testing.T) {
	text := `{"type":"session","version":3,"id":"S","timestamp":"T","cwd":"/"}
{"type":"message","id":"u1","parentId":null,"timestamp":"T","message":{"role":"user","content":"hi"}}
{"type":"message","id":"a1","parentId":"u1","timestamp":"T","message":{"role":"assistant","content":[]}}
{"type":"custom","id":"s1","parentId":"a1","timestamp":"T","customType":"x","appendMode":"side"}
{"type":"plugin_row","id":"p1","parentId":"s1","timestamp":"T"}
{"type":"message","id":"u2","parentId":"p1","timestamp":"T","message":{"role":"user","content":"next"}}
{"type":"leaf","id":"l1","parentId":"u2","timestamp":"T","targetId":"u1"}
{"type":"message","id":"u3","parentId":"l1","timestamp":"T","message":{"role":"user","content":"branch"}}
{"type":"custom","id":"s2","parentId":"u3","timestamp":"T","customType":"y","appendMode":"side"}`
	pi := index(t, text, session.IndexOptions{})
	if diff := cmp.Diff([]string{"u1", "a1", "s1", "p1", "u2", "l1", "u3", "s2"}, ids(pi, pi.ActivePath())); diff != "" {
		t.Errorf("pi path (-want +got):\n%s", diff)
	}
	ac := index(t, text, session.IndexOptions{Leaf: session.LeafAgentCore})
	if n := ac.Node(ac.ActiveLeaf()); n.ID != "u3" {
		t.Errorf("agent-core leaf = %s, want u3", n.ID)
	}
	if diff := cmp.Diff([]string{"u1", "u3"}, ids(ac, ac.ActivePath())); diff != "" {
		t.Errorf("agent-core path (-want +got):\n%s", diff)
	}
	u2, _ := ac.Lookup("u2")
	// u2 was appended to the raw cursor (p1) while the visible leaf was a1: logical parent a1.
	if diff := cmp.Diff([]string{"u1", "a1", "u2"}, ids(ac, ac.Path(u2))); diff != "" {
		t.Errorf("agent-core path of u2 (-want +got):\n%s", diff)
	}
	null := index(t, `{"type":"message","id":"u1","parentId":null,"timestamp":"T","message":{"role":"user","content":"hi"}}
{"type":"leaf","id":"l1","parentId":"u1","timestamp":"T","targetId":null}`, session.IndexOptions{Leaf: session.LeafAgentCore})
	if null.ActiveLeaf() != -1 || null.ActivePath() != nil {
		t.Errorf("leaf to null: leaf %d path %v", null.ActiveLeaf(), null.ActivePath())
	}
}

func TestIndexByteAnomalies(t *testing.T) {
	text := "\xEF\xBB\xBF" + `{"type":"session","version":3,"id":"S","timestamp":"T","cwd":"/"}` + "\r\n" +
		`{"type":"message","id":"u1","parentId":null,"timestamp":"T","message":{"role":"user","content":"hi"}}` + "\r\n" +
		`{"type":"message","id":"u2","parentId":"u1","timestamp":"T","message":{"role":"user","content":"x` + strings.Repeat("y", 300) + `"}}` + "\n" +
		`{"type":"message","id":"u3","parentId":"u1","timestamp":"T","message":{"role":"us`
	x := index(t, text, session.IndexOptions{MaxLine: 200})
	if h, _ := x.Header(); h == nil {
		t.Error("header behind a BOM not found")
	}
	if x.Len() != 1 || len(x.Problems()) != 2 {
		t.Fatalf("Len %d problems %+v", x.Len(), x.Problems())
	}
	if p := x.Problems()[0]; !(p.Flags&jsonl.FlagTooLong != 0) || p.Line != 3 {
		t.Errorf("too long line: %+v", p)
	}
	if p := x.Problems()[1]; !(p.Flags&jsonl.FlagNoNewline != 0) || p.Line != 4 {
		t.Errorf("torn line: %+v", p)
	}
	e, err := x.ReadEntry(strings.NewReader(text), 0)
	if err != nil || e.ID != "u1" || strings.HasSuffix(string(e.Raw), "\r") {
		t.Errorf("ReadEntry = %+v %v", e, err)
	}
}

func TestIndexCompressedAndChanged(t *testing.T) {
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(treeText))
	zw.Close()
	path := filepath.Join(dir, "s.jsonl.reset.2026-01-01T00-00-00.000Z")
	if err := os.WriteFile(path, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	x, err := session.IndexFile(context.Background(), path, session.IndexOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := jsonl.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []string
	err = x.StreamEntries(context.Background(), f, x.ActivePath(), func(i int, e *session.Entry) error {
		got = append(got, e.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"u1", "u2", "a1", "l1"}, got); diff != "" {
		t.Errorf("streamed (-want +got):\n%s", diff)
	}
	// A file edited after indexing is detected, not misread.
	changed := strings.Replace(treeText, `"id":"u2"`, `"id":"zz"`, 1)
	if _, err := x.ReadEntry(strings.NewReader(changed), 2); !errors.Is(err, session.ErrChanged) {
		t.Errorf("ReadEntry on a changed file: %v", err)
	}
	if _, err := x.ReadEntry(strings.NewReader(treeText[:40]), 2); !errors.Is(err, session.ErrChanged) {
		t.Errorf("ReadEntry on a truncated file: %v", err)
	}
}

func TestScanKinds(t *testing.T) {
	text := "\n" + `42` + "\n" + `{"type":"session","id":"S"}` + "\n" + `{"type":"message","id":"m","parentId":null,"timestamp":"T","message":{"role":"user","content":"x"}}` + "\n{bad\n" + `{"type":"session","id":"S2"}` + "\n   \n" + `{"type":"custom","id":"c"`
	var got []string
	var lines []int64
	err := session.Scan(context.Background(), strings.NewReader(text), "f.jsonl", session.ScanOptions{}, func(it session.Item) error {
		got = append(got, it.Kind.String())
		lines = append(lines, it.Line.Num)
		if it.Err != nil && !strings.HasPrefix(it.Err.Error(), "f.jsonl:") {
			t.Errorf("error does not name file:line: %v", it.Err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// 42 parses first, so the session line after it is not the header (pi's rule).
	want := []string{"blank", "not-object", "stray-header", "entry", "invalid", "stray-header", "blank", "invalid"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{1, 2, 3, 4, 5, 6, 7, 8}, lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	// ErrStop ends early without an error; a context error ends the scan.
	n := 0
	err = session.Scan(context.Background(), strings.NewReader(text), "f", session.ScanOptions{}, func(session.Item) error {
		n++
		return session.ErrStop
	})
	if err != nil || n != 1 {
		t.Errorf("ErrStop: err %v after %d items", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := session.Scan(ctx, strings.NewReader(text), "f", session.ScanOptions{}, func(session.Item) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled scan: %v", err)
	}
}

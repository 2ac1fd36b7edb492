package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/session"
)

// Keys match exactly, as in JavaScript: encoding/json's case-insensitive matching would read
// "Type" as the entry type.
func TestDecodeKeysAreCaseSensitive(t *testing.T) {
	e, err := session.DecodeEntry([]byte(`{"type":"message","Type":"custom","id":"a","ID":"b","message":{"role":"user","Role":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if e.Type != "message" || e.ID != "a" || e.Message.Role != "user" {
		t.Errorf("type %q id %q role %q", e.Type, e.ID, e.Message.Role)
	}
}

// FuzzDecodeEntry checks that decoding never panics, that an entry nobody touched writes back
// as the input bytes, and that SetField edits are seen by the decoder while every other
// member keeps its value.
func FuzzDecodeEntry(f *testing.F) {
	for _, s := range []string{
		`{"type":"message","id":"a1","parentId":null,"timestamp":"T","message":{"role":"user","content":"hi"}}`,
		`{"type":"message","id":"m2","parentId":"m1","message":{"role":"assistant","content":[],"stopReason":"error","usage":{"input":1}}}`,
		`{"type":"compaction","id":"c","parentId":"a","summary":"s","firstKeptEntryId":"x","tokensBefore":1e3}`,
		`{"type":"custom_message","content":[{"type":"image","data":"AA==","mimeType":"image/png"}],"display":true}`,
		`{"type":"leaf","targetId":null,"appendParentId":"q","appendMode":"side"}`,
		`{"type":"message","message":{"role":"assistant","content":[{"type":"toolUse","id":"t","input":{}},"x",1]}}`,
		`{"\u0074ype":"label","id":5,"parentId":[1]}`,
		`{"a":1,"a":2,"type":"x","Type":"y"}`,
		`{"type":"message"`, `null`, `42`, `[{}]`, `{}`, ` { "id" : "sp" } `, "{\"x\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		e, err := session.DecodeEntry(in)
		if err != nil {
			if json.Valid(in) && bytes.HasPrefix(bytes.TrimLeft(in, " \t\r\n"), []byte("{")) {
				t.Fatalf("valid object rejected: %v", err)
			}
			return
		}
		if !bytes.Equal(e.Raw, in) {
			t.Fatalf("untouched entry does not write back as its input:\n in %q\nraw %q", in, e.Raw)
		}
		if e.Message != nil {
			if out, err := e.Message.Content.MarshalJSON(); err != nil || !json.Valid(out) {
				t.Fatalf("content re-encodes to invalid JSON %q: %v", out, err)
			}
		}
		// SetField then decode sees the new value; other members keep theirs.
		out, err := session.SetField(in, "id", []byte(`"fuzz-id"`))
		if err != nil {
			t.Fatalf("SetField on a valid object: %v", err)
		}
		if !json.Valid(out) {
			t.Fatalf("SetField produced invalid JSON: %q", out)
		}
		e2, err := session.DecodeEntry(out)
		if err != nil {
			t.Fatalf("decode after SetField: %v", err)
		}
		if e2.ID != "fuzz-id" {
			t.Fatalf("after SetField id = %q (line %q)", e2.ID, out)
		}
		if e2.Type != e.Type || e2.Parent() != e.Parent() || e2.Timestamp != e.Timestamp {
			t.Fatalf("SetField(id) changed other fields: %q -> %q", in, out)
		}
		out2, err := session.SetField(out, "message.content", []byte(`[{"type":"text","text":"(continue)"}]`))
		if err == nil {
			e3, err := session.DecodeEntry(out2)
			if err != nil || e3.Message == nil || e3.Message.Text() != "(continue)" || e3.ID != "fuzz-id" {
				t.Fatalf("SetField(message.content) not seen: %q -> %q (%v)", out, out2, err)
			}
		}
		// Deleting the field again is seen too.
		out3, deleted, err := session.DeleteField(out, "id")
		if err != nil || !deleted || !json.Valid(out3) {
			t.Fatalf("DeleteField(id): %q -> %q deleted=%v err=%v", out, out3, deleted, err)
		}
		if e4, err := session.DecodeEntry(out3); err != nil || e4.ID != "" {
			t.Fatalf("after DeleteField id = %q err %v (%q)", e4.ID, err, out3)
		}
	})
}

// FuzzBuildIndex indexes arbitrary bytes under both leaf rules: no panic, every line accounted
// for, parents and paths consistent, and every entry reads back from its offset.
func FuzzBuildIndex(f *testing.F) {
	f.Add([]byte(treeText))
	f.Add([]byte("{\"type\":\"leaf\",\"id\":\"l\",\"parentId\":\"l\",\"targetId\":\"l\"}\n{\"id\":\"a\",\"parentId\":\"a\"}"))
	f.Add([]byte("\xEF\xBB\xBF{\"type\":\"session\"}\r\n{\"id\":\"x\",\"parentId\":\"y\",\"appendMode\":\"side\"}\n\n42\n{\"id\":\"y\",\"parentId\":\"x\"}"))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, rule := range []session.LeafRule{session.LeafLastEntry, session.LeafAgentCore} {
			x, err := session.BuildIndex(context.Background(), bytes.NewReader(in), "fuzz", session.IndexOptions{Leaf: rule, MaxLine: 1 << 12, BufferSize: 1 << 10})
			if err != nil {
				t.Fatal(err)
			}
			header := int64(0)
			if h, _ := x.Header(); h != nil {
				header = 1
			}
			if got := int64(x.Len()) + int64(len(x.Problems())) + x.Blank() + header; got != x.Lines() {
				t.Fatalf("entries %d + problems %d + blank %d + header %d != lines %d", x.Len(), len(x.Problems()), x.Blank(), header, x.Lines())
			}
			for i := 0; i < x.Len(); i++ {
				n := x.Node(i)
				if n.Parent >= 0 && x.Node(n.Parent).ID != n.ParentID {
					t.Fatalf("entry %d parent %d has id %q, want %q", i, n.Parent, x.Node(n.Parent).ID, n.ParentID)
				}
				p := x.Path(i)
				if len(p) == 0 || p[len(p)-1] != i || len(p) > x.Len() {
					t.Fatalf("path of %d = %v", i, p)
				}
				e, err := x.ReadEntry(bytes.NewReader(in), i)
				if err != nil || e.ID != n.ID {
					t.Fatalf("ReadEntry(%d) = %v, %v (want id %q)", i, e, err, n.ID)
				}
			}
			if leaf := x.ActiveLeaf(); leaf >= x.Len() || (rule == session.LeafLastEntry && leaf != x.Len()-1) {
				t.Fatalf("leaf %d of %d entries", leaf, x.Len())
			}
		}
	})
}

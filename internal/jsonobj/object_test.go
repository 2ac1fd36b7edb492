package jsonobj_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
)

func mustParse(t *testing.T, s string) *jsonobj.Object {
	t.Helper()
	o, err := jsonobj.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func mustJS(t *testing.T, o *jsonobj.Object) string {
	t.Helper()
	b, err := o.MarshalJS("  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestObjectEdit(t *testing.T) {
	o := mustParse(t, `{"z":1,"a":{"x": [1, 2]},"m":"s"}`)
	if diff := cmp.Diff([]string{"z", "a", "m"}, o.Keys()); diff != "" {
		t.Fatalf("keys (-want +got):\n%s", diff)
	}
	if v, ok := o.Get("a"); !ok || string(v) != `{"x": [1, 2]}` {
		t.Fatalf("Get(a) = %s, %v; want the raw bytes", v, ok)
	}
	if err := o.Set("a", json.RawMessage(` 7 `)); err != nil { // existing key keeps its place
		t.Fatal(err)
	}
	if err := o.SetValue("new", map[string]string{"h": "<&>"}); err != nil { // appended
		t.Fatal(err)
	}
	if !o.Delete("z") || o.Delete("z") {
		t.Fatal("Delete should report presence once")
	}
	if err := o.Set("bad", json.RawMessage(`{`)); err == nil {
		t.Fatal("Set accepted invalid JSON")
	}
	got, _ := o.MarshalJSON()
	if want := `{"a":7,"m":"s","new":{"h":"<&>"}}`; string(got) != want {
		t.Errorf("MarshalJSON = %s, want %s", got, want)
	}
	if want := "{\n  \"a\": 7,\n  \"m\": \"s\",\n  \"new\": {\n    \"h\": \"<&>\"\n  }\n}"; mustJS(t, o) != want {
		t.Errorf("MarshalJS =\n%s\nwant\n%s", mustJS(t, o), want)
	}
}

func TestObjectIntegerKeysAndDuplicates(t *testing.T) {
	o := mustParse(t, `{"b":1,"2":2,"a":3,"b":4,"1":5}`)
	if diff := cmp.Diff([]string{"b"}, o.Duplicates()); diff != "" {
		t.Errorf("duplicates (-want +got):\n%s", diff)
	}
	// Object keeps source order; the JS marshaller puts integer-like keys first.
	if diff := cmp.Diff([]string{"b", "2", "a", "1"}, o.Keys()); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if want := "{\n  \"1\": 5,\n  \"2\": 2,\n  \"b\": 4,\n  \"a\": 3\n}"; mustJS(t, o) != want {
		t.Errorf("MarshalJS =\n%s\nwant\n%s", mustJS(t, o), want)
	}
}

func TestObjectClone(t *testing.T) {
	o := mustParse(t, `{"a":1,"b":2}`)
	c := o.Clone()
	c.Delete("a")
	if err := c.Set("b", json.RawMessage(`3`)); err != nil {
		t.Fatal(err)
	}
	if got, _ := o.MarshalJSON(); string(got) != `{"a":1,"b":2}` {
		t.Errorf("original changed through clone: %s", got)
	}
}

func TestGetObject(t *testing.T) {
	o := mustParse(t, `{"e":{"sessionId":"x"},"s":"str"}`)
	e, ok, err := o.GetObject("e")
	if err != nil || !ok {
		t.Fatalf("GetObject(e): %v %v", ok, err)
	}
	if v, _ := e.Get("sessionId"); string(v) != `"x"` {
		t.Errorf("sessionId = %s", v)
	}
	if _, ok, err := o.GetObject("s"); !ok || !errors.Is(err, jsonobj.ErrNotObject) {
		t.Errorf("GetObject(s) = %v, %v; want ErrNotObject", ok, err)
	}
	if _, ok, err := o.GetObject("missing"); ok || err != nil {
		t.Errorf("GetObject(missing) = %v, %v", ok, err)
	}
}

func TestParseNotObject(t *testing.T) {
	for _, in := range []string{`[]`, `"s"`, `null`, `1`, `true`} {
		if _, err := jsonobj.Parse([]byte(in)); !errors.Is(err, jsonobj.ErrNotObject) {
			t.Errorf("Parse(%s) error = %v, want ErrNotObject", in, err)
		}
	}
}

func TestUnmarshalInStruct(t *testing.T) {
	var v struct{ Obj jsonobj.Object }
	if err := json.Unmarshal([]byte(`{"Obj":{"y":1,"x":2}}`), &v); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"y", "x"}, v.Obj.Keys()); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
}

// corpusDir is the shared corpus beside the repository (../shared/corpus from the repo root).
func corpusDir(t testing.TB) string {
	dir := filepath.Join("..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("corpus not found at %s (it lives beside the repo as shared/corpus): %v", dir, err)
	}
	return dir
}

// TestCorpusRoundTrip: every sessions.json in the corpus, and every other JSON object file
// beside it, re-serializes byte for byte (JS form for the pretty ones, compact marshal for
// compact ones).
func TestCorpusRoundTrip(t *testing.T) {
	dir := corpusDir(t)
	stores := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), "sessions.json") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		o, err := jsonobj.Parse(data)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		if d.Name() == "sessions.json" {
			stores++
		}
		var got []byte
		if bytes.HasPrefix(data, []byte("{\n")) {
			got, err = o.MarshalJS("  ")
		} else {
			got, err = o.MarshalJSON()
		}
		if err != nil {
			t.Errorf("%s: %v", path, err)
		} else if !bytes.Equal(got, data) {
			t.Errorf("%s: round trip differs (%d bytes in, %d out)", path, len(data), len(got))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if stores < 10 {
		t.Errorf("found only %d sessions.json files in %s", stores, dir)
	}
}

func FuzzRoundTrip(f *testing.F) {
	for _, tc := range stringifyCases {
		f.Add([]byte(tc.in))
	}
	f.Add([]byte(`{"a":[{"b":"\ud800"}],"1":{}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		js, err := jsonobj.Stringify(in, "  ")
		if err != nil {
			if jsonobj.Valid(in) {
				t.Fatalf("Valid but Stringify failed: %v", err)
			}
			return
		}
		if !jsonobj.Valid(js) || !json.Valid(js) || !utf8.Valid(js) {
			t.Fatalf("output is not valid JSON: %q -> %q", in, js)
		}
		again, err := jsonobj.Stringify(js, "  ")
		if err != nil || !bytes.Equal(again, js) {
			t.Fatalf("not idempotent: %q -> %q -> %q (%v)", in, js, again, err)
		}
		compact, _ := jsonobj.Stringify(in, "")
		if c2, _ := jsonobj.Stringify(js, ""); !bytes.Equal(compact, c2) {
			t.Fatalf("compact forms differ: %q vs %q", compact, c2)
		}
		o, err := jsonobj.Parse(in)
		if err != nil {
			return // not an object
		}
		viaObj, err := o.MarshalJS("  ")
		if err != nil || !bytes.Equal(viaObj, js) {
			t.Fatalf("Object.MarshalJS differs from Stringify: %q vs %q (%v)", viaObj, js, err)
		}
		raw, _ := o.MarshalJSON()
		o2, err := jsonobj.Parse(raw)
		if err != nil {
			t.Fatalf("compact marshal unparseable: %q: %v", raw, err)
		}
		if raw2, _ := o2.MarshalJSON(); !bytes.Equal(raw, raw2) {
			t.Fatalf("compact marshal not stable: %q -> %q", raw, raw2)
		}
	})
}

func TestEscapedDuplicateKey(t *testing.T) {
	o := mustParse(t, `{"a":1,"\u0061":2,"\ud800":3,"\uD800":4}`)
	if diff := cmp.Diff([]string{"a", "\ufffd"}, o.Keys()); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if v, _ := o.Get("a"); string(v) != "2" {
		t.Errorf("a = %s, want the last value 2", v)
	}
	if want := "{\n  \"a\": 2,\n  \"\\ud800\": 4\n}"; mustJS(t, o) != want {
		t.Errorf("MarshalJS =\n%s\nwant\n%s", mustJS(t, o), want)
	}
}

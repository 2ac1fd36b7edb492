package hygiene

import (
	"encoding/json"
	"testing"
)

// Ill-formed UTF-8 inside a message decodes as Node reads the file: one U+FFFD per maximal
// subpart (the truncated emoji f0 9f 98 is one), not one per byte. Found by the byte-level
// mutations against the real OpenClaw: a role of "\xf0\x9f\x98toolResult".
func TestDecodeIllFormedUTF8AsNode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{\"role\":\"\xf0\x9f\x98toolResult\"}", "\ufffdtoolResult"},
		{"{\"role\":\"a\xe2\x82b\"}", "a\ufffdb"},
		{"{\"role\":\"\xff\xfe\"}", "\ufffd\ufffd"},
		{"{\"role\":\"ok\"}", "ok"},
	} {
		m, err := Decode([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if got := Role(m); got != tc.want {
			t.Errorf("%q: role %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A message that is not an object is carried as a value Message: it has no role, and the JSON
// of the messages as sent holds the value itself.
func TestValueMessages(t *testing.T) {
	var ms Messages
	for _, raw := range []string{`"hello"`, `5`, `[]`, `true`} {
		m, err := DecodeValue([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if !IsValue(m) || Role(m) != "" {
			t.Errorf("%s: IsValue %v, role %q", raw, IsValue(m), Role(m))
		}
		m[RefKey] = "e1"
		ms = append(ms, m)
	}
	obj, _ := Decode([]byte(`{"role":"user","content":"x"}`))
	obj[RefKey] = "e2"
	ms = append(ms, obj)
	b, err := json.Marshal(ms)
	if err != nil {
		t.Fatal(err)
	}
	if want := `["hello",5,[],true,{"content":"x","role":"user"}]`; string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
}

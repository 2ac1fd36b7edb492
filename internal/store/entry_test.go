package store_test

import (
	"encoding/json"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

// FuzzPlainString: when PlainString decodes a token, it gives what encoding/json gives, and it
// takes every escape-free string token of the seeds.
func FuzzPlainString(f *testing.F) {
	for _, s := range []string{`"abc"`, `""`, `"a\"b"`, `"é"`, "\"\xff\"", `"a\u0041"`, `"tab	"`, `"x`, `x"`, `"`, `12`, `"9c1e2a6b-0000-4000-8000-000000000001"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		got, ok := store.PlainString(v)
		var want string
		err := json.Unmarshal(v, &want)
		if ok && (err != nil || got != want) {
			t.Fatalf("PlainString(%q) = %q; encoding/json: %q, %v", v, got, want, err)
		}
	})
}

func TestPlainString(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
		ok   bool
	}{
		{`"abc"`, "abc", true},
		{`""`, "", true},
		{`"é/x"`, "é/x", true},
		{`"a\"b"`, "", false},   // escapes go to encoding/json
		{"\"\xff\"", "", false}, // invalid UTF-8: encoding/json gives U+FFFD
		{"\"a\tb\"", "", false}, // a control byte is not valid JSON
		{`12`, "", false},
		{`"x`, "", false},
	} {
		got, ok := store.PlainString([]byte(c.in))
		if got != c.want || ok != c.ok {
			t.Errorf("PlainString(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

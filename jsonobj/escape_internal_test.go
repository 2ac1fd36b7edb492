package jsonobj

import (
	"bytes"
	"testing"
	"unicode/utf16"
)

// FuzzStringToken checks the one-pass re-escaper against the reference path (decode to
// UTF-16 code units as JSON.parse does, then escape as JSON.stringify does).
func FuzzStringToken(f *testing.F) {
	for _, s := range []string{`"a"`, `"\ud83d\ude00"`, `"\ud800\u0041"`, `"\u0000\/\"\\"`, "\"\xff\xc3\"", `"é\u2028"`, `"\udc00\ud800"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, tok []byte) {
		p := &parser{data: tok}
		if len(tok) == 0 || tok[0] != '"' || p.str() != nil || p.pos != len(tok) {
			return
		}
		var scratch []uint16
		got := appendStringToken(nil, tok, &scratch)
		want := appendJSQuoted(nil, decodeUnits(tok, nil))
		if !bytes.Equal(got, want) {
			t.Fatalf("%q: one-pass %q, reference %q", tok, got, want)
		}
	})
}

// FuzzQuote checks the one-pass string escaper against the code-unit escaper.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"a", "\x00\"\\\u2028", "\xff\xc3", "é😀", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var units []uint16
		for _, r := range s {
			units = utf16.AppendRune(units, r)
		}
		if got, want := Quote(s), appendJSQuoted(nil, units); !bytes.Equal(got, want) {
			t.Fatalf("%q: Quote %q, code-unit escaper %q", s, got, want)
		}
	})
}

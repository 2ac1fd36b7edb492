package jsonobj

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
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
	f.Add("\xe2\x82x\xf0\x9f\x98")
	for _, s := range []string{"a", "\x00\"\\\u2028", "\xff\xc3", "é😀", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var units []uint16
		for _, r := range string(DecodeUTF8([]byte(s))) {
			units = utf16.AppendRune(units, r)
		}
		if got, want := Quote(s), appendJSQuoted(nil, units); !bytes.Equal(got, want) {
			t.Fatalf("%q: Quote %q, code-unit escaper %q", s, got, want)
		}
	})
}

// TestInvalidUTF8AsNode pins Node's decoding of ill-formed UTF-8 (checked with
// Buffer.from([...]).toString() on Node 24): one U+FFFD per maximal subpart.
func TestInvalidUTF8AsNode(t *testing.T) {
	const r = "\uFFFD"
	for _, tc := range []struct{ in, want string }{
		{"abc", "abc"},
		{"\xe2\x82a", r + "a"},
		{"\xff", r},
		{"\xf0\x9f\x98", r},
		{"\xed\xa0\x80", r + r + r},
		{"\xc0\xaf", r + r},
		{"\xe0\x80\xaf", r + r + r},
		{"\xf4\x90\x80\x80", r + r + r + r},
		{"\xe9t\xe9", r + "t" + r},
	} {
		if got := string(DecodeUTF8([]byte(tc.in))); got != tc.want {
			t.Errorf("DecodeUTF8(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := string(Quote(tc.in)); got != `"`+tc.want+`"` {
			t.Errorf("Quote(%q) = %s", tc.in, got)
		}
		if got := string(appendStringToken(nil, []byte(`"`+tc.in+`"`), nil)); got != `"`+tc.want+`"` {
			t.Errorf("appendStringToken(%q) = %s", tc.in, got)
		}
	}
}

// Unquote reads ill-formed UTF-8 as Node does: one U+FFFD per maximal subpart. Found by the
// byte-level mutations against OpenClaw's compaction (an entry id after a flipped byte).
func TestUnquoteIllFormedUTF8AsNode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\"\xf0\x9f\x986b24\"", "\ufffd6b24"},
		{"\"a\xe2\x82b\"", "a\ufffdb"},
		{"\"\xff\xfe\"", "\ufffd\ufffd"},
		{"\"\xf0\x9f\x98\\n\"", "\ufffd\n"},
	} {
		got, ok := Unquote([]byte(tc.in))
		if !ok || string(got) != tc.want {
			t.Errorf("Unquote(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
		if dec := string(DecodeUTF8([]byte(tc.in[1 : len(tc.in)-1]))); !ok || (!strings.Contains(tc.in, "\\") && dec != tc.want) {
			t.Errorf("DecodeUTF8 disagrees: %q", dec)
		}
	}
}

// unquoteJSAgrees checks UnquoteJS against the UTF-16 model (decodeUnits, the code units
// JSON.parse makes, which the canon differential holds to V8): two valid string tokens decode
// to equal bytes exactly when their code units are equal.
func unquoteJSAgrees(t *testing.T, a, b []byte) {
	token := func(tok []byte) bool { // exactly one string token
		p := &parser{data: tok}
		return len(tok) > 0 && tok[0] == '"' && p.str() == nil && p.pos == len(tok)
	}
	if !token(a) || !token(b) {
		return
	}
	sa, oka := UnquoteJS(a)
	sb, okb := UnquoteJS(b)
	if !oka || !okb {
		t.Fatalf("UnquoteJS refused a valid token: %q %v, %q %v", a, oka, b, okb)
	}
	ua, ub := decodeUnits(a, nil), decodeUnits(b, nil)
	if same := slices.Equal(ua, ub); same != bytes.Equal(sa, sb) {
		t.Fatalf("%q and %q: code units equal %v, UnquoteJS equal %v (%q, %q)", a, b, same, !same, sa, sb)
	}
	if u, ok := Unquote(a); !ok || (utf8.Valid(sa) && !bytes.Equal(u, sa)) {
		t.Fatalf("Unquote(%q) = %q, UnquoteJS %q: they differ without a lone surrogate", a, u, sa)
	}
}

func TestUnquoteJSKeepsLoneSurrogates(t *testing.T) {
	toks := []string{
		`"\ud800"`, `"\ud801"`, `"\ufffd"`, "\"\ufffd\"", `"\udc00"`, `"\ud800\udc00"`,
		"\"\U00010000\"", `"\ud800\ud800\udc00"`, "\"\\ud800\U00010000\"", `"\ud800\u0041"`,
		`"\uD800"`, `"A"`, `"\u0041"`, "\"\xed\xa0\x80\"", "\"\\ud800\xed\xb0\x80\"", `"\udbff\udfff"`,
		"\"\U0010ffff\"", `"\udc00\ud800"`, `"a\udc00b"`, `"a\udc01b"`,
	}
	for _, a := range toks {
		for _, b := range toks {
			unquoteJSAgrees(t, []byte(a), []byte(b))
		}
	}
	// the distinctions the repair relies on (TestLoneSurrogateIDsAsJavaScriptComparesThem)
	for _, pair := range [][2]string{{`"\ud800"`, `"\ud801"`}, {`"\ud800"`, `"\ufffd"`}, {`"\ud800"`, "\"\xed\xa0\x80\""}} {
		a, _ := UnquoteJS([]byte(pair[0]))
		b, _ := UnquoteJS([]byte(pair[1]))
		if bytes.Equal(a, b) {
			t.Errorf("UnquoteJS(%s) = UnquoteJS(%s) = %q", pair[0], pair[1], a)
		}
	}
}

func FuzzUnquoteJS(f *testing.F) {
	f.Add([]byte(`"\ud800"`), []byte(`"\ufffd"`))
	f.Add([]byte(`"\ud800\udc00"`), []byte("\"\U00010000\""))
	f.Add([]byte("\"\\ud800\xed\xb0\x80\""), []byte(`"\ud800\udc00"`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		unquoteJSAgrees(t, a, b)
		unquoteJSAgrees(t, a, a)
	})
}

package jsonl

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// classifyCases hold the byte-level anomalies in and around valid and invalid JSON, with the
// UTF-8 cases utf8.Valid draws its line at: overlong forms, surrogates, past U+10FFFF, cut
// runes, at a string's start, middle and end, in short strings and in ones skipLong skips.
var classifyCases = []string{
	`{}`, `{"a":"é"}`, `{"a":"日本語","b":"🚀x"}`, `"` + "\xc3" + `"`, `"` + "\xc3\xa9" + `"`,
	`"` + "\xe6\x97" + `"`, `"` + "\xed\xa0\x80" + `"`, `"` + "\xf4\x90\x80\x80" + `"`, `"` + "\xc0\xaf" + `"`,
	`"` + "\xe0\x80\xaf" + `"`, `"` + "\xf0\x8f\xbf\xbf" + `"`, `"` + "\xff" + `"`, `"` + "\x80abc" + `"`,
	`"ab` + "\xf0\x9f\x9a" + `"`, "{\"a\":1}\r", "{\r\"a\":1}", "\"a\rb\"", "{\"a\":\"\x00\"}", "  ",
	"\t", "", "\"\xc3\xa9\" x", "é", "{\"é\":1}", "{\"a\":1}\xc3\xa9", "\"\\u00e9\xff\"",
	`{"k":"` + strings.Repeat("abcdefgh", 300) + "é" + strings.Repeat("x", 100) + `"}`,
	`{"k":"` + strings.Repeat("abcdefgh", 300) + "\xff" + strings.Repeat("é", 100) + `"}`,
	`{"k":"` + strings.Repeat("日本語 ", 400) + `"}`,
	`{"k":"` + strings.Repeat("abcdefgh", 300) + "\xe6\x97" + `"}`,
	`{"k":"` + strings.Repeat("abcdefgh", 300) + "\x01" + `"}`,
	strings.Repeat("[", 10001) + `"é"` + strings.Repeat("]", 10001),
	// a CR in each place walk skips whitespace (its only place in a valid line)
	"[\r1]", "[1\r]", "[1,\r2]", "[ \r]", "{\"a\"\r:1}", "{\"a\":\r1}", "{\"a\":1\r,\"b\":2}",
	"{\"a\":1,\r\"b\":2}", "{ \r}", "\r{}", "{}\t\r ", "{\"a\":[{\"b\":\r\"é\"}]}",
	// members at both levels, an image hint, a value followed by white space (Scanner.Line)
	`{"type":"message","message":{"role":"user","content":[{"type":"image","data":"x"}]},"id":"u1"}  `,
	`{"a":{"b":{"c":1}},"d":[{"e":2}]}`, `{"t":"\u0069mage"}`, `{"a":1} {"b":2}`,
}

// TestClassifyJSON holds the one-pass classifyJSON to Classify and Valid, the two passes it
// replaces in validate.
func TestClassifyJSON(t *testing.T) {
	for _, c := range classifyCases {
		checkClassifyJSON(t, []byte(c))
		for cut := range len(c) { // every prefix, to cut runes and strings anywhere
			if len(c) < 64 {
				checkClassifyJSON(t, []byte(c[:cut]))
			}
		}
	}
}

// checkClassifyJSON checks b with the scans of this machine and, where they are the AVX2
// ones, again with the Go loops of machines without AVX2 (classifyWalk then decodes runes in
// the string scan instead of checking the line's UTF-8 in one pass).
func checkClassifyJSON(t *testing.T, b []byte) {
	t.Helper()
	checkClassifyJSONOnce(t, b)
	if haveStopAVX2 {
		haveStopAVX2 = false
		defer func() { haveStopAVX2 = true }()
		checkClassifyJSONOnce(t, b)
	}
}

func checkClassifyJSONOnce(t *testing.T, b []byte) {
	t.Helper()
	// Classify's UTF-8 check (segmentio/asm) against the stdlib's, the reference
	if bad := Classify(b)&FlagInvalidUTF8 != 0; bad == utf8.Valid(b) {
		t.Fatalf("Classify(%q): invalid UTF-8 %v; unicode/utf8 says valid %v", b, bad, utf8.Valid(b))
	}
	f, valid := classifyJSON(b)
	if want, wantValid := Classify(b), Valid(b); f != want || valid != wantValid {
		t.Fatalf("classifyJSON(%q) = %v, %v (AVX2 %v); Classify and Valid say %v, %v", b, f, valid, haveStopAVX2, want, wantValid)
	}
	checkScannerLine(t, b)
}

// checkScannerLine holds Scanner.Line, the one pass repair's scan workers make, to Classify
// and to Value on a fresh Scanner: the same flags, the value's end when the line is one
// valid value, and the same members and Image. The Scanner has just scanned an image line,
// so an Image or a member left over from it shows.
func checkScannerLine(t *testing.T, b []byte) {
	t.Helper()
	used := Scanner{Collect: true}
	used.Value([]byte(`{"type":"image","k":{"a":1}}`), 0)
	used.Members = used.Members[:0]
	f, end := used.Line(b)
	fresh := Scanner{Collect: true}
	wantEnd := fresh.Value(b, 0)
	if wantEnd >= 0 && skipSpace(b, wantEnd) != len(b) {
		wantEnd = -1
	}
	if f != Classify(b) || end != wantEnd {
		t.Fatalf("Line(%q) = %v, %d; Classify and Value say %v, %d", b, f, end, Classify(b), wantEnd)
	}
	if end >= 0 && (used.Image != fresh.Image || !slices.Equal(used.Members, fresh.Members)) {
		t.Fatalf("Line(%q): image %v, members %v; Value: %v, %v", b, used.Image, used.Members, fresh.Image, fresh.Members)
	}
}

func FuzzClassifyJSON(f *testing.F) {
	for _, c := range classifyCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkClassifyJSON(t, b)
	})
}

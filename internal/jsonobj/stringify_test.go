package jsonobj_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// stringifyCases are inputs whose expected output was produced by Node's
// JSON.stringify(JSON.parse(input), null, 2) (see TestStringifyMatchesNode, build tag nodejs)
// and stored in testdata/stringify_<name>.golden.
var stringifyCases = []struct{ name, in string }{
	{"empty_object", `{}`},
	{"empty_containers", `{"a":{},"b":[],"c":[{}],"d":{"e":[]}}`},
	{"scalars", `{"s":"x","n":1741939200000,"f":0.5,"e":1e+21,"t":true,"F":false,"z":null,"neg":-3}`},
	{"nested", `{"a":{"b":{"c":[1,[2,[3]],{"d":"e"}]}}}`},
	{"top_level_array", `[1,"two",{"three":3},[]]`},
	{"top_level_string", `"just a string"`},
	{"integer_like_keys", `{"b":1,"10":2,"a":3,"2":4,"01":5,"-1":6,"4294967294":7,"4294967295":8,"0":9,"1.5":10}`},
	{"duplicate_keys", `{"a":1,"b":2,"a":3}`},
	{"short_escapes", `{"k":"quote \" backslash \\ slash \/ bs \b ff \f nl \n cr \r tab \t"}`},
	{"control_escapes", `{"k":"\u0000\u0001\u001f\u001F \u007f \u0080"}`},
	{"unicode_raw", `{"k":"héllo 日本 😀 \u00e9\u65e5 \ud83d\ude00 <>& \u003c\u003e\u0026"}`},
	{"line_separators", `{"k":"a\u2028b\u2029c"}`},
	{"lone_surrogates", `{"k":"\ud800 x \udfff \uDBFF\uDBFF"}`},
	{"escaped_keys", `{"a\nb":1,"\u0041":2,"é":3,"\u00e9x":4}`},
	{"whitespace_everywhere", " \r\n\t{ \"a\" :\t[ 1 , 2 ] ,\n\"b\" : { } } \n"},
	{"numbers_kept", `{"a":1.0,"b":1E5,"c":-0,"d":0.000001,"e":123456789012345678901234567890}`},
	{"deep_indent", `{"a":[[[[{"b":[[]]}]]]]}`},
	{"invalid_utf8_raw", "{\"k\":\"a\xffb\xc3\"}"},
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s (-want +got):\n%s", path, cmp.Diff(string(want), string(got)))
	}
}

func TestStringify(t *testing.T) {
	for _, tc := range stringifyCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := jsonobj.Stringify([]byte(tc.in), "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "stringify_"+tc.name, got)
			// Stringify is idempotent: its output is already in JS form.
			again, err := jsonobj.Stringify(got, "  ")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, got) {
				t.Errorf("not idempotent:\n%s\n---\n%s", got, again)
			}
		})
	}
}

func TestStringifyCompact(t *testing.T) {
	got, err := jsonobj.Stringify([]byte(`{ "b" : [ 1 , {} ], "1": "x\u0041" }`), "")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"1":"xA","b":[1,{}]}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestSyntaxErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", ``, "1:1: unexpected end of input"},
		{"trailing comma", "{\n  \"a\": 1,\n}", "3:1: unexpected character '}' in object, expected a string key"},
		{"bad literal", `{"a":tru}`, "1:6: invalid literal, expected true"},
		{"raw newline in string", "{\"a\":\"x\ny\"}", "1:8: control byte 0x0a in string"},
		{"bad escape", `{"a":"\x"}`, `1:7: invalid escape character 'x'`},
		{"short unicode escape", `{"a":"\u12"}`, `1:7: invalid \u escape`},
		{"leading zero", `{"a":01}`, "1:7: unexpected character '1' in object"},
		{"bare dot", `{"a":1.}`, "1:8: invalid number: digit expected after '.'"},
		{"garbage after", `{} x`, "1:4: unexpected character 'x' after the JSON value"},
		{"bom", "\xef\xbb\xbf{}", "1:1: byte order mark"},
		{"unclosed", `{"a":[1,2`, "1:10: unexpected end of input in array"},
		{"single quotes", `{'a':1}`, "1:2: unexpected character '\\'' in object"},
		{"too deep", strings.Repeat("[", 10001) + strings.Repeat("]", 10001), "nesting deeper than 10000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := jsonobj.Stringify([]byte(tc.in), "  ")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
			var se *jsonobj.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not a *SyntaxError", err)
			}
			if jsonobj.Valid([]byte(tc.in)) {
				t.Errorf("Valid accepted %q", tc.in)
			}
		})
	}
}

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", `"plain"`},
		{"a\"b\\c", `"a\"b\\c"`},
		{"\x00\x1f\b\f\n\r\t", `"\u0000\u001f\b\f\n\r\t"`},
		{"<>&\u2028\u2029é😀", "\"<>&\u2028\u2029é😀\""},
		{"bad\xffutf8", "\"bad\ufffdutf8\""},
		{"a<b>&c", `"a<b>&c"`},
		{"\u2028\u2029", "\"\u2028\u2029\""},
		{"q\"\\", `"q\"\\"`},
		{"\b\f\n\r\t\x01\x1f", `"\b\f\n\r\t\u0001\u001f"`},
		{"\xff", "\"\uFFFD\""},
		{"é€😀", `"é€😀"`},
	} {
		if got := string(jsonobj.Quote(tc.in)); got != tc.want {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// FuzzUnquote checks Unquote against encoding/json on every input that encoding/json accepts
// as a string token, with ill-formed UTF-8 first read as Node reads it (DecodeUTF8: one
// U+FFFD per maximal subpart, where encoding/json puts one per byte).
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`a\"b`, `\u00e9\n\t\\`, `\ud83d\ude00`, `\ud800x`, `\udc00\ud800`, "\xff\xfe", `\u0041\/`, `é€`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		tok := append(append([]byte{'"'}, in...), '"')
		var want string
		err := json.Unmarshal(jsonobj.DecodeUTF8(tok), &want)
		got, ok := jsonobj.Unquote(tok)
		if err != nil {
			return // not a string token; callers validate first
		}
		if !ok || string(got) != want {
			t.Fatalf("Unquote(%q) = %q %v, encoding/json %q", tok, got, ok, want)
		}
	})
}

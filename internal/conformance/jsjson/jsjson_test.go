package jsjson

import (
	"testing"
)

// The expected outputs are what node -e 'JSON.stringify(JSON.parse(x))' prints (V8 of Node 24);
// the live conformance run re-checks the model against V8 on every input.
func TestCanon(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"b":1,"a":2,"1":3,"0":4}`, `{"0":4,"1":3,"b":1,"a":2}`},
		{`{"01":1,"4294967295":2,"4294967294":3}`, `{"4294967294":3,"01":1,"4294967295":2}`},
		{`{"a":1,"b":0,"a":2}`, `{"a":2,"b":0}`},
		{` [ 1 , 2 ]	`, `[1,2]`},
		{`1e21`, `1e+21`},
		{`1e20`, `100000000000000000000`},
		{`0.000001`, `0.000001`},
		{`1e-7`, `1e-7`},
		{`-1.5e-7`, `-1.5e-7`},
		{`-0`, `0`},
		{`1.0`, `1`},
		{`1E400`, `null`},
		{`123.456e2`, `12345.6`},
		{`0.1`, `0.1`},
		{`5e-324`, `5e-324`},
		{`1.7976931348623157e308`, `1.7976931348623157e+308`},
		{`"\u00e9\/"`, `"é/"`},
		{`"\ud800x"`, `"\ud800x"`},
		{`"\udc00\ud800"`, `"\udc00\ud800"`},
		{`"\ud83d\ude00"`, `"😀"`},
		{`"\u001f\u0000"`, `"\u001f\u0000"`},
		{`"\u007f\u2028"`, "\"\x7f\u2028\""},
		{`"\b\f\n\r\t\"\\"`, `"\b\f\n\r\t\"\\"`},
		{`{"__proto__":1}`, `{"__proto__":1}`},
		{"{\"a\":\r1}", `{"a":1}`},
	} {
		got, err := Canon(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Canon(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{``, `{`, `{"a":1,}`, `[1,]`, `01`, `1.`, `.5`, `+1`, `"\x"`, "\"a\x01\"", `"\u12"`, `{"a" 1}`, `nul`, `1 2`, "\ufeff{}", `NaN`, `'a'`} {
		if got, err := Canon(bad); err == nil {
			t.Errorf("Canon(%q) = %q, want a syntax error", bad, got)
		}
	}
}

func TestFile(t *testing.T) {
	in := "{\"b\": 1}\r\n\n \u00a0\n{\"a\":[1.50,\"\xe2\x82x\"]}\nnot json"
	want := "{\"b\":1}\n{\"a\":[1.5,\"\uFFFDx\"]}\n\x00not json\n"
	if got := File([]byte(in)); got != want {
		t.Errorf("File = %q, want %q", got, want)
	}
}

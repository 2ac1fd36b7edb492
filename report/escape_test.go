package report

import "testing"

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text é 😀", "plain text é 😀"},
		{"a\x1b]52;c;x\x07b", `a\x1b]52;c;x\x07b`},
		{"line\nforged", `line\x0aforged`},
		{"\xff\xfe", `\xff\xfe`},
		{"\u202eevil", `\u202eevil`},
		// a lone surrogate of a decoded JSON string (jsonobj.DecodeJS) is written as JSON
		// writes it, not as three bytes
		{"id \xed\xa0\x80 \xed\xbf\xbf", `id \ud800 \udfff`},
		{"cut \xed\xa0", `cut \xed\xa0`},
		{"\xed\x9f\xbf", "\ud7ff"},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

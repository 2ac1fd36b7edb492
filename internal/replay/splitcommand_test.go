package replay

import (
	"strings"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // words joined by "|"; "" means an error
	}{
		{"llm -m gpt", "llm|-m|gpt"},
		{`sh -c 'cat | wc -c'`, "sh|-c|cat | wc -c"},
		{`a "b c" d\ e`, "a|b c|d e"},
		{`"x \"q\" \$HOME"`, `x "q" $HOME`},
		{"  spaced\tout\n", "spaced|out"},
		{`'unterminated`, ""},
		{`"unterminated`, ""},
		{"   ", ""},
	} {
		words, err := SplitCommand(tc.in)
		got := strings.Join(words, "|")
		if err != nil {
			got = ""
		}
		if got != tc.want {
			t.Errorf("SplitCommand(%q) = %q (%v), want %q", tc.in, got, err, tc.want)
		}
	}
}

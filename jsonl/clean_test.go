package jsonl

import (
	"strings"
	"testing"
)

// cleanRun finds the first CR, NUL or byte above 0x7f wherever it lies in a word, after any
// clean byte (the borrow of the word tests must not hide it nor flag a clean word).
func TestCleanRun(t *testing.T) {
	clean := []byte(strings.Repeat("\x01\x02\x0c\x0e\x0f\x10\x7f{\"ab\":1}\n", 4))
	if got := cleanRun(clean); got != len(clean) {
		t.Fatalf("clean bytes: run %d, want %d", got, len(clean))
	}
	for _, bad := range []byte{'\r', 0, 0x80, 0xc3, 0xff} {
		for at := range len(clean) {
			b := append([]byte(nil), clean...)
			b[at] = bad
			if got := cleanRun(b); got != at {
				t.Fatalf("byte %#x at %d: run %d", bad, at, got)
			}
			if got := cleanRun(b[:at]); got != at {
				t.Fatalf("clean prefix of %d bytes: run %d", at, got)
			}
		}
	}
}

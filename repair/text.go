package repair

import (
	"unicode/utf8"
)

// The texts OpenClaw's repair writes (transcript.md §3.3); a repaired file must carry exactly
// these so it is byte-identical to one OpenClaw repaired or wrote live.
const (
	BlankUserFallbackText   = "(continue)"
	StreamErrorFallbackText = "[assistant turn failed before producing content]"
	MissingToolResultText   = "aborted"
)

// jsSpace reports whether r is removed by JavaScript's String.prototype.trim: WhiteSpace and
// LineTerminator, which include U+FEFF, NBSP and the Zs spaces that Go's TrimSpace keeps or
// differs on (transcript.md §3.10).
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// jsBlank reports whether s is empty after a JavaScript trim(). Invalid UTF-8 decodes to
// U+FFFD in Node, which is not space, so such a string is never blank.
func jsBlank(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !jsSpace(r) || (r == utf8.RuneError && n == 1) {
			return false
		}
		i += n
	}
	return true
}

// jsTrim trims s as JavaScript's trim() would.
func jsTrim(s string) string {
	start, end := 0, len(s)
	for start < end {
		r, n := utf8.DecodeRuneInString(s[start:])
		if !jsSpace(r) || (r == utf8.RuneError && n == 1) {
			break
		}
		start += n
	}
	for end > start {
		r, n := utf8.DecodeLastRuneInString(s[start:end])
		if !jsSpace(r) || (r == utf8.RuneError && n == 1) {
			break
		}
		end -= n
	}
	return s[start:end]
}

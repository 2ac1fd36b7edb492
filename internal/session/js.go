package session

import (
	"strings"
	"unicode"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
)

// JavaScript-compatible text helpers: OpenClaw is written in TypeScript, so the strings it
// writes and the "blank" tests it applies follow JavaScript rules, not Go's (spec §3.10).

// jsNumber formats f as JavaScript's Number.prototype.toString does (NaN and ±Infinity as
// JSON.stringify writes them: null).
func jsNumber(f float64) string { return jsonobj.FormatNumber(f) }

// isJSSpace reports whether JavaScript's String.prototype.trim removes r: the WhiteSpace and
// LineTerminator sets (tab, VT, FF, space, NBSP, U+FEFF, every Zs, LF, CR, U+2028, U+2029).
// Unlike Go's unicode.IsSpace it includes U+FEFF and excludes U+0085.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0xFEFF, 0x2028, 0x2029:
		return true
	}
	return r > 0xFF && unicode.Is(unicode.Zs, r)
}

// JSTrim trims s as JavaScript's String.prototype.trim does.
func JSTrim(s string) string { return strings.TrimFunc(s, isJSSpace) }

// JSTrimStart and JSTrimEnd are String.prototype.trimStart and trimEnd.
func JSTrimStart(s string) string { return strings.TrimLeftFunc(s, isJSSpace) }

// JSTrimEnd is String.prototype.trimEnd.
func JSTrimEnd(s string) string { return strings.TrimRightFunc(s, isJSSpace) }

// IsJSSpace reports whether r is in JavaScript's \s class (the characters trim removes).
func IsJSSpace(r rune) bool { return isJSSpace(r) }

// JSNumber formats f as JavaScript's String(f) does.
func JSNumber(f float64) string { return jsNumber(f) }

// IsBlank reports whether s is empty after JSTrim, the test OpenClaw uses for blank text.
func IsBlank(s string) bool {
	for _, r := range s {
		if !isJSSpace(r) {
			return false
		}
	}
	return true
}

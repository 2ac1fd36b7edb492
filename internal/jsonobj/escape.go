package jsonobj

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// appendJSQuoted writes UTF-16 code units as a JSON string the way JSON.stringify does
// (store.md §7.1): `"` and `\` escaped, \b \f \n \r \t short forms, other control characters
// as \u00xx with lower-case hex, lone surrogates as \udxxx, everything else raw UTF-8
// (including non-ASCII, <, >, & and U+2028/U+2029).
func appendJSQuoted(dst []byte, units []uint16) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(units); i++ {
		u := units[i]
		switch {
		case u < utf8.RuneSelf:
			dst = appendEscapedASCII(dst, byte(u))
		case u >= 0xd800 && u < 0xdc00 && i+1 < len(units) && units[i+1] >= 0xdc00 && units[i+1] < 0xe000:
			dst = utf8.AppendRune(dst, utf16.DecodeRune(rune(u), rune(units[i+1])))
			i++
		case u >= 0xd800 && u < 0xe000: // lone surrogate
			dst = append(dst, '\\', 'u', hexDigits[u>>12], hexDigits[u>>8&0xf], hexDigits[u>>4&0xf], hexDigits[u&0xf])
		default:
			dst = utf8.AppendRune(dst, rune(u))
		}
	}
	return append(dst, '"')
}

// appendEscapedASCII writes the ASCII character c as JSON.stringify writes it inside a string.
func appendEscapedASCII(dst []byte, c byte) []byte {
	switch {
	case c == '"' || c == '\\':
		return append(dst, '\\', c)
	case c == '\b':
		return append(dst, '\\', 'b')
	case c == '\f':
		return append(dst, '\\', 'f')
	case c == '\n':
		return append(dst, '\\', 'n')
	case c == '\r':
		return append(dst, '\\', 'r')
	case c == '\t':
		return append(dst, '\\', 't')
	case c < 0x20:
		return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
	}
	return append(dst, c)
}

// appendStringToken re-escapes a validated JSON string token JS-style, the same result as
// appendJSQuoted(decodeUnits(tok)) but in one pass over the bytes: runs of plain bytes are
// copied, escapes are rewritten, raw invalid UTF-8 becomes U+FFFD (one per maximal subpart, as
// Node decodes it).
func appendStringToken(dst, tok []byte, _ *[]uint16) []byte {
	s := tok[1 : len(tok)-1]
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		start := i
		for i < len(s) && s[i] != '\\' && s[i] < utf8.RuneSelf {
			i++
		}
		dst = append(dst, s[start:i]...)
		if i >= len(s) {
			break
		}
		if c := s[i]; c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
				size = invalidLen(s[i:])
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
			continue
		}
		// an escape
		switch e := s[i+1]; e {
		case '/':
			dst = append(dst, '/')
			i += 2
		case 'u':
			u, _ := hex4(s, i+2)
			i += 6
			if u >= 0xd800 && u < 0xdc00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if lo, _ := hex4(s, i+2); lo >= 0xdc00 && lo < 0xe000 {
					dst = appendJSQuotedUnits(dst, []uint16{uint16(u), uint16(lo)})
					i += 6
					continue
				}
			}
			dst = appendJSQuotedUnits(dst, []uint16{uint16(u)})
		default: // " \ b f n r t keep their short form
			dst = append(dst, '\\', e)
			i += 2
		}
	}
	return append(dst, '"')
}

// QuoteToken returns tok, a valid JSON string token, as JSON.stringify(JSON.parse(tok)) writes
// it (escapes as JavaScript writes them, invalid UTF-8 as U+FFFD).
func QuoteToken(tok []byte) []byte { return appendStringToken(nil, tok, nil) }

// appendJSQuotedUnits escapes code units JS-style without the surrounding quotes.
func appendJSQuotedUnits(dst []byte, units []uint16) []byte {
	q := appendJSQuoted(nil, units)
	return append(dst, q[1:len(q)-1]...)
}

// Quote returns s as a JSON string token escaped as JSON.stringify would: `"`, `\` and control
// characters below U+0020 are escaped and nothing else, so <, >, &, U+2028 and U+2029 stay
// literal. Invalid UTF-8 in s becomes U+FFFD, as Node's UTF-8 decoder would have made it (one
// per maximal subpart).
func Quote(s string) []byte {
	dst := make([]byte, 0, len(s)+2)
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			dst = appendEscapedASCII(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
			size = invalidLen([]byte(s[i:min(i+4, len(s))]))
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// Unquote returns the value of tok, a string token with its quotes as a JSON scanner delimited
// it, decoded as encoding/json does (escapes resolved, a lone or badly paired surrogate
// replaced by U+FFFD), except that ill-formed UTF-8 becomes one U+FFFD per maximal subpart,
// as Node reads the file, not one per byte. The result aliases tok when the token has no escapes and
// is valid UTF-8. ok is false if tok is not quoted, or has a malformed escape or (when it has
// escapes) a raw control character.
func Unquote(tok []byte) (s []byte, ok bool) { return unquote(tok, false, false) }

// UnquoteJS is Unquote for comparing strings as JavaScript compares them: a lone or badly
// paired surrogate escape is kept as its three-byte (WTF-8) form instead of U+FFFD, so two
// results are equal exactly when JSON.parse makes equal strings of the tokens. "\ud800",
// "\ud801" and "\ufffd" are three different ids to OpenClaw (2026.7.35 inserts a result for a
// call "\ud800" answered by "\ud801"); Unquote makes all three U+FFFD. The three-byte forms are
// not UTF-8, and raw bytes that look like them are not read as them (Node reads "\xed\xa0\x80"
// as three U+FFFD), so no other token decodes to them. Not for output: Quote would write
// U+FFFD where JSON.stringify writes the escape.
func UnquoteJS(tok []byte) (s []byte, ok bool) { return unquote(tok, true, false) }

// unquote decodes tok; keepLone keeps a lone surrogate escape in its three-byte form, rawLone
// (for text that is already a JavaScript string in that form, not bytes from a file) keeps
// such a form found raw.
func unquote(tok []byte, keepLone, rawLone bool) (s []byte, ok bool) {
	if len(tok) < 2 || tok[0] != '"' || tok[len(tok)-1] != '"' {
		return nil, false
	}
	in := tok[1 : len(tok)-1]
	if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return in, true
	}
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); {
		c := in[i]
		switch {
		case c == '\\':
			if i+1 >= len(in) {
				return nil, false
			}
			if e, ok := shortEscape(in[i+1]); ok {
				out = append(out, e)
				i += 2
				continue
			}
			r, ok := hex4(in, i+2)
			if in[i+1] != 'u' || !ok {
				return nil, false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(in, i+2); ok && in[i] == '\\' && in[i+1] == 'u' {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						out = utf8.AppendRune(out, dec)
						i += 6
						continue
					}
				}
				if keepLone {
					out = append(out, 0xe0|byte(r>>12), 0x80|byte(r>>6)&0x3f, 0x80|byte(r)&0x3f)
					continue
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
		case c < 0x20:
			return nil, false
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(in[i:])
			if r == utf8.RuneError && size == 1 && rawLone && loneAt(string(in[i:min(i+3, len(in))]), 0) {
				out = append(out, in[i:i+3]...)
				i += 3
				continue
			}
			if r == utf8.RuneError && size == 1 {
				// one U+FFFD per maximal subpart, as Node reads the file (DecodeUTF8)
				out = utf8.AppendRune(out, utf8.RuneError)
				i += invalidLen(in[i:])
				continue
			}
			out = append(out, in[i:i+size]...)
			i += size
		}
	}
	return out, true
}

// shortEscape returns the character that the JSON escape \e stands for, for every e but u.
func shortEscape(e byte) (byte, bool) {
	switch e {
	case '"', '\\', '/':
		return e, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// hex4 reads the four hex digits at b[i:] as a code unit.
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) || !isHex(b[i]) || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) {
		return 0, false
	}
	return rune(hexVal(b[i])<<12 | hexVal(b[i+1])<<8 | hexVal(b[i+2])<<4 | hexVal(b[i+3])), true
}

// unitsString converts UTF-16 code units to a Go string; lone surrogates become U+FFFD.
func unitsString(units []uint16) string {
	return string(utf16.Decode(units))
}

// arrayIndex reports whether a key, given as its JS-quoted form, is a canonical array index
// ("0", or no leading zero and ≤ 2^32−2). JS orders such keys first, ascending, in every
// object. Digits are never escaped in the quoted form, so the check is on its bytes.
func arrayIndex(quoted []byte) (uint64, bool) {
	k := quoted[1 : len(quoted)-1]
	if len(k) == 0 || len(k) > 10 || (k[0] == '0' && len(k) > 1) {
		return 0, false
	}
	var n uint64
	for _, c := range k {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, n <= 1<<32-2
}

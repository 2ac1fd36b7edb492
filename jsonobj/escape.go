package jsonobj

import (
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
		case u == '"':
			dst = append(dst, '\\', '"')
		case u == '\\':
			dst = append(dst, '\\', '\\')
		case u == '\b':
			dst = append(dst, '\\', 'b')
		case u == '\f':
			dst = append(dst, '\\', 'f')
		case u == '\n':
			dst = append(dst, '\\', 'n')
		case u == '\r':
			dst = append(dst, '\\', 'r')
		case u == '\t':
			dst = append(dst, '\\', 't')
		case u < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[u>>4], hexDigits[u&0xf])
		case u < utf8.RuneSelf:
			dst = append(dst, byte(u))
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

// appendStringToken re-escapes a validated JSON string token JS-style, the same result as
// appendJSQuoted(decodeUnits(tok)) but in one pass over the bytes: runs of plain bytes are
// copied, escapes are rewritten, raw invalid UTF-8 becomes U+FFFD.
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
			u := uint16(hexVal(s[i+2])<<12 | hexVal(s[i+3])<<8 | hexVal(s[i+4])<<4 | hexVal(s[i+5]))
			i += 6
			if u >= 0xd800 && u < 0xdc00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
				lo := uint16(hexVal(s[i+2])<<12 | hexVal(s[i+3])<<8 | hexVal(s[i+4])<<4 | hexVal(s[i+5]))
				if lo >= 0xdc00 && lo < 0xe000 {
					dst = appendJSQuotedUnits(dst, []uint16{u, lo})
					i += 6
					continue
				}
			}
			dst = appendJSQuotedUnits(dst, []uint16{u})
		default: // " \ b f n r t keep their short form
			dst = append(dst, '\\', e)
			i += 2
		}
	}
	return append(dst, '"')
}

// appendJSQuotedUnits escapes code units JS-style without the surrounding quotes.
func appendJSQuotedUnits(dst []byte, units []uint16) []byte {
	q := appendJSQuoted(nil, units)
	return append(dst, q[1:len(q)-1]...)
}

// Quote returns s as a JSON string token escaped as JSON.stringify would. Invalid UTF-8 in s
// becomes U+FFFD.
func Quote(s string) []byte {
	units := make([]uint16, 0, len(s))
	for _, r := range s { // range yields U+FFFD for invalid bytes
		units = utf16.AppendRune(units, r)
	}
	return appendJSQuoted(make([]byte, 0, len(s)+2), units)
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

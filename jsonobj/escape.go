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

// appendStringToken re-escapes a validated JSON string token JS-style.
func appendStringToken(dst, tok []byte, scratch *[]uint16) []byte {
	*scratch = decodeUnits(tok, (*scratch)[:0])
	return appendJSQuoted(dst, *scratch)
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

// arrayIndex reports whether the decoded key is a canonical array index ("0", or no leading
// zero and ≤ 2^32−2). JS orders such keys first, ascending, in every object.
func arrayIndex(units []uint16) (uint64, bool) {
	if len(units) == 0 || len(units) > 10 || (units[0] == '0' && len(units) > 1) {
		return 0, false
	}
	var n uint64
	for _, u := range units {
		if u < '0' || u > '9' {
			return 0, false
		}
		n = n*10 + uint64(u-'0')
	}
	return n, n <= 1<<32-2
}

package jsonobj

import "unicode/utf8"

// invalidLen returns how many bytes at the start of b, which begins an ill-formed UTF-8
// sequence, Node's decoder turns into one U+FFFD: the maximal subpart of the sequence (the
// WHATWG Encoding Standard's UTF-8 decoder, which Buffer.toString and fs.readFile "utf-8"
// follow). Go's utf8.DecodeRune instead reports one error per byte, so "\xe2\x82x" is one
// U+FFFD in Node and two in Go.
func invalidLen(b []byte) int {
	lo, hi, need := byte(0x80), byte(0xBF), 0
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		lo, need = 0xA0, 2
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		hi, need = 0x9F, 2
	case c == 0xF0:
		lo, need = 0x90, 3
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		hi, need = 0x8F, 3
	default:
		return 1
	}
	n := 1
	for n <= need && n < len(b) && b[n] >= lo && b[n] <= hi {
		lo, hi = 0x80, 0xBF
		n++
	}
	return n
}

// DecodeUTF8 returns b as Node decodes a file read with "utf-8": valid UTF-8 unchanged, each
// maximal subpart of an ill-formed sequence replaced by U+FFFD. The result is valid UTF-8 and
// aliases b when b already is.
func DecodeUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			out = append(out, b[i])
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
			i += invalidLen(b[i:])
			continue
		}
		out = append(out, b[i:i+size]...)
		i += size
	}
	return out
}

package jsonl

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// stopUTF8 has the high bit set in the byte of x where scanStringUTF8 must stop: a '"', a
// '\\', a control character (< 0x20) or a byte >= 0x80. The lowest set bit marks the first
// such byte exactly. Below it every byte is ASCII in 0x20..0x7f other than '"' and '\\', so
// neither subtraction borrows there or sets a high bit. At it one of them does: a '"' or a
// control byte is below 0x21 after ^0x02, a '\\' is 0 after ^0x5c, and a byte >= 0x80 keeps its
// high bit after ^0x5c and loses it to -1 only as 0xdc, which ^0x02 makes 0xde, above 0xa0.
// Where special must mask each subtraction with its operand (a byte >= 0x80 is not one it
// stops at), these bytes may stop this one: six operations a word, not eight, and no test
// of its own for the bytes >= 0x80 (TestStopUTF8FirstByte tries every byte at every place).
func stopUTF8(x uint64) uint64 {
	q := x ^ (lsb * 0x02) // '"' -> 0x20, control bytes stay below 0x20
	s := x ^ (lsb * '\\') // '\\' -> 0
	return ((q - lsb*0x21) | (s - lsb)) & msb
}

// scanStringUTF8 is scanString for validate's one pass (modeUTF8) on machines without AVX2
// (with it, classifyWalk checks a line's UTF-8 in one AVX2 pass after the walk): it checks the
// UTF-8 of the string on the way and reports escBadUTF8 when a byte is not valid UTF-8. Each run of bytes
// >= 0x80 is decoded where it stands by skipRunes, which costs a fraction of a second
// utf8.Valid pass over the line (text has a non-ASCII rune every hundred bytes or so). After a
// bad byte the line's verdict is known and the rest of the string is left to scanString.
// It is a copy of scanString's loop with another word test, not one loop for both: the one
// loop of before, special(x) | x&hi per word, made validate 2–3 % slower (2026-12-06).
func scanStringUTF8(b []byte, i int) (int, uint8, string) {
	n := len(b)
	var esc uint8
	for {
		var run int
		// most strings of an entry are short (keys, ids, roles): one word first
		if i+8 <= n {
			if m := stopUTF8(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto found
			}
			i += 8
		}
		for i+16 <= n {
			mx := stopUTF8(binary.LittleEndian.Uint64(b[i:]))
			my := stopUTF8(binary.LittleEndian.Uint64(b[i+8:]))
			if mx|my != 0 {
				i += firstBit(mx, my)
				if b[i] < 0x80 {
					goto found
				}
				// runes: decoded here without leaving the loop (each exit and restart of it
				// cost more than the decoding)
				j, ok := skipRunes(b, i)
				if !ok {
					return scanStringRest(b, j, esc)
				}
				i = j
				continue
			}
			i += 16
			if run++; run == 64 {
				i = skipLong(b, i, msb)
				goto found
			}
		}
		for i < n && b[i] >= 0x20 && b[i] < 0x80 && b[i] != '"' && b[i] != '\\' {
			i++
		}
	found:
		if i >= n {
			return n, esc, "unexpected end of line in string"
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, esc, ""
		case c == '\\':
			var e uint8
			var msg string
			if i, e, msg = scanEscape(b, i); msg != "" {
				return i, esc | e, msg
			}
			esc |= e
		case c >= 0x80:
			j, ok := skipRunes(b, i)
			if !ok {
				return scanStringRest(b, j, esc)
			}
			i = j
		default:
			return i, esc, fmt.Sprintf("control character %s in string", quoteByte(c))
		}
	}
}

// scanStringRest finishes a string from b[i], a byte that is not valid UTF-8: one bad byte
// decides the line, so the rest is scanned as scanString does, with escBadUTF8 set.
func scanStringRest(b []byte, i int, esc uint8) (int, uint8, string) {
	end, e, msg := scanString(b, i)
	return end, esc | e | escBadUTF8, msg
}

package jsonl

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// TestStopUTF8FirstByte holds stopUTF8's lowest set bit to the first byte a byte-by-byte test
// stops at, for every byte value at every place of a word, after plain bytes and before any
// bytes at all (the later ones may set false bits, never an earlier one).
func TestStopUTF8FirstByte(t *testing.T) {
	stops := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80 }
	rng := rand.New(rand.NewPCG(1, 2))
	var w [8]byte
	for round := range 2000 {
		for k := range 8 {
			for c := range 256 {
				for j := range w {
					switch {
					case j < k: // plain: 0x20..0x7f but '"' and '\\'
						for w[j] = byte(0x20 + rng.IntN(0x60)); stops(w[j]); w[j] = byte(0x20 + rng.IntN(0x60)) {
						}
					case j == k:
						w[j] = byte(c)
					default:
						w[j] = byte(rng.IntN(256))
					}
				}
				want := 8
				for j, b := range w {
					if stops(b) {
						want = j
						break
					}
				}
				got := bits.TrailingZeros64(stopUTF8(binary.LittleEndian.Uint64(w[:]))) >> 3
				if got != want {
					t.Fatalf("round %d: stopUTF8(% x) stops at %d, want %d", round, w, got, want)
				}
			}
		}
	}
}

// TestFirstBit holds the branch-free firstBit to its definition: the first of the 16 bytes
// with a set bit, whatever later bytes hold; 16 when none.
func TestFirstBit(t *testing.T) {
	mark := func(x, y *uint64, pos int) { // the high bit of byte pos of the 16
		switch {
		case pos < 8:
			*x |= 0x80 << (8 * pos)
		case pos < 16:
			*y |= 0x80 << (8 * (pos - 8))
		}
	}
	for first := range 17 {
		for later := first; later <= 16; later++ {
			var x, y uint64
			mark(&x, &y, first)
			mark(&x, &y, later)
			if got := firstBit(x, y); got != first {
				t.Fatalf("firstBit(%#x, %#x) = %d, want %d", x, y, got, first)
			}
		}
	}
}

package jsonl

// The tables of unicode/utf8's Valid (Go's src/unicode/utf8/utf8.go, BSD licence), which does
// not export them: skipRunes decodes with the same rules, so a line it passes is one
// utf8.Valid passes (FuzzClassifyJSON holds the two together).

const (
	locb = 0b10000000 // the lowest and highest continuation byte
	hicb = 0b10111111

	// utf8First's entries: the high nibble indexes utf8Accept, the low three bits give the size
	// of the rune. uas is ASCII, uxx an invalid first byte.
	uxx = 0xF1
	uas = 0xF0
	us1 = 0x02
	us2 = 0x13
	us3 = 0x03
	us4 = 0x23
	us5 = 0x34
	us6 = 0x04
	us7 = 0x44
)

var utf8First = [256]uint8{
	//   1   2   3   4   5   6   7   8   9   A   B   C   D   E   F
	uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, // 0x00-0x0F
	uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, // 0x10-0x1F
	uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, // 0x20-0x2F
	uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, // 0x30-0x3F
	uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, // 0x40-0x4F
	uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, // 0x50-0x5F
	uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, // 0x60-0x6F
	uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, uas, // 0x70-0x7F
	//   1   2   3   4   5   6   7   8   9   A   B   C   D   E   F
	uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, // 0x80-0x8F
	uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, // 0x90-0x9F
	uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, // 0xA0-0xAF
	uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, // 0xB0-0xBF
	uxx, uxx, us1, us1, us1, us1, us1, us1, us1, us1, us1, us1, us1, us1, us1, us1, // 0xC0-0xCF
	us1, us1, us1, us1, us1, us1, us1, us1, us1, us1, us1, us1, us1, us1, us1, us1, // 0xD0-0xDF
	us2, us3, us3, us3, us3, us3, us3, us3, us3, us3, us3, us3, us3, us4, us3, us3, // 0xE0-0xEF
	us5, us6, us6, us6, us7, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, uxx, // 0xF0-0xFF
}

// utf8Range gives the range of valid values for the second byte of a rune.
type utf8Range struct{ lo, hi uint8 }

var utf8Accept = [16]utf8Range{
	0: {locb, hicb},
	1: {0xA0, hicb},
	2: {locb, 0x9F},
	3: {0x90, hicb},
	4: {locb, 0x8F},
}

package session

import (
	"encoding/base64"
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
)

// OpenClaw 2026.6.11 calls an image block's base64 payload corrupt (session-file-repair.ts
// isCorruptedImageContentBlock, media-core sanitizeInlineImageBase64) when it holds a non-ASCII
// character, is not canonical base64 (canonicalizeBase64), or its first bytes are no image
// format the media sniffer knows; its repair then replaces the block with a text block. Repair
// applies that rule and audit reports it, from the same functions.

// CorruptImageText is the text block OpenClaw's repair puts in place of a corrupt image block.
const CorruptImageText = "[image omitted: corrupted base64 payload]"

// imageMime is OpenClaw's /^image\//iu on the trimmed value (only ASCII letters fold to
// "image", so ASCII case-insensitivity is the same test).
var imageMime = lazyre.New(`^(?i:image)/`)

// ImageMime reports whether s names an image type as OpenClaw's isImageMimeType decides.
func ImageMime(s string) bool { return imageMime.MatchString(JSTrim(s)) }

// CorruptImageData reports whether data, an image block's decoded "data" string, is corrupt
// to OpenClaw 2026.6.11; unpadded is the base64 rule of 2026.7.35 (UnpaddedBase64).
func CorruptImageData(data string, unpadded bool) bool { return corruptImage(data, unpadded) }

// CorruptImageBytes is CorruptImageData of a []byte (audit's fastjson value), without a copy.
func CorruptImageBytes(data []byte, unpadded bool) bool { return corruptImage(data, unpadded) }

// corruptImage is one pass over the payload, with no copy of it: audit runs it on every image
// of every transcript, and images are most of a transcript's bytes. It gives the verdict of
// OpenClaw's steps in order (containsNonAscii, canonicalizeBase64, then the sniffer on the
// first 128 canonical characters) because every failure of any step gives the same answer.
//
// unpadded is 2026.7.35's canonicalizeBase64: a payload whose length is 2 or 3 past a multiple
// of 4, with no "=" at all, is padded instead of refused, and the bits the padding leaves
// unused in the last character must be zero (2026.6.11 accepts any).
func corruptImage[T ~string | ~[]byte](data T, unpadded bool) bool {
	var head [132]byte // the first canonical characters, for the sniffer (and padding)
	nh, n, padding := 0, 0, 0
	var last byte // the last base64 data character
	i := 0
	for ; i < len(data) && nh < 128; i++ {
		c := data[i]
		switch b64Class[c] {
		case b64Char:
			if padding > 0 { // nothing but "=" after the first "="
				return true
			}
			last = c
		case b64Pad:
			if padding++; padding > 2 {
				return true
			}
		case b64Skip: // characters up to U+0020
			continue
		default: // not base64, or not ASCII
			return true
		}
		head[nh] = c
		nh++
	}
	n = nh
	// The rest, in runs of plain base64 characters (the bulk of a payload).
	for i < len(data) {
		j := i
		// eight bytes a step, their lookups independent: a byte a step, with a branch on each,
		// was most of the audit of a transcript of images (and swung by a fifth with where
		// the linker put the loop)
		for j+8 <= len(data) && b64Other[data[j]]|b64Other[data[j+1]]|b64Other[data[j+2]]|b64Other[data[j+3]]|
			b64Other[data[j+4]]|b64Other[data[j+5]]|b64Other[data[j+6]]|b64Other[data[j+7]] == 0 {
			j += 8
		}
		for j < len(data) && b64Class[data[j]] == b64Char {
			j++
		}
		if j > i && padding > 0 {
			return true
		}
		if j > i {
			last = data[j-1]
		}
		n += j - i
		if j == len(data) {
			break
		}
		switch b64Class[data[j]] {
		case b64Pad:
			if padding++; padding > 2 {
				return true
			}
			n++
		case b64Skip:
		default:
			return true
		}
		i = j + 1
	}
	if n == 0 {
		return true
	}
	if rem := n % 4; rem != 0 {
		if !unpadded || padding > 0 || rem == 1 {
			return true
		}
		if nh == n { // the whole payload is in head: the sniffer sees the padded form
			for k := rem; k < 4; k++ {
				head[nh] = '='
				nh++
			}
		}
		padding = 4 - rem
	}
	if unpadded && padding > 0 {
		mask := byte(3) // one "=": the last character's low 2 bits are unused
		if padding == 2 {
			mask = 15
		}
		if b64Value(last)&mask != 0 {
			return true
		}
	}
	var dec [99]byte
	m, err := base64.StdEncoding.Decode(dec[:], head[:min(nh, 128)])
	return err != nil || !sniffImage(dec[:m])
}

// b64Value is a base64 character's 6-bit value.
func b64Value(c byte) byte {
	switch {
	case c >= 'A' && c <= 'Z':
		return c - 'A'
	case c >= 'a' && c <= 'z':
		return c - 'a' + 26
	case c >= '0' && c <= '9':
		return c - '0' + 52
	case c == '+':
		return 62
	}
	return 63
}

const (
	b64Bad uint8 = iota // also every byte of a non-ASCII character
	b64Char
	b64Pad
	b64Skip
)

// b64Class sorts bytes as canonicalizeBase64 does.
var b64Class = func() (t [256]uint8) {
	for c := 0; c <= 32; c++ {
		t[c] = b64Skip
	}
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") {
		t[c] = b64Char
	}
	t['='] = b64Pad
	return t
}()

// b64Other is 0 for the bytes whose class is b64Char, 1 for every other byte.
var b64Other = func() (t [256]uint8) {
	for c := range t {
		if b64Class[c] != b64Char {
			t[c] = 1
		}
	}
	return t
}()

// ascii is Buffer.toString("ascii") of b: each byte with its high bit cleared.
func ascii(b []byte) string {
	out := make([]byte, len(b))
	for i, c := range b {
		out[i] = c & 0x7f
	}
	return string(out)
}

var heicBrands = map[string]bool{"heic": true, "heix": true, "hevc": true, "hevx": true, "heis": true, "heim": true, "hevm": true, "hevs": true}

// sniffImage is sniffInlineImageMime: png, jpeg, webp, gif, bmp by signature, heic and heif
// by ISO-BMFF brand.
func sniffImage(b []byte) bool {
	switch {
	case len(b) >= 8 && string(b[:8]) == "\x89PNG\r\n\x1a\n":
		return true
	case len(b) >= 3 && b[0] == 0xff && b[1] == 0xd8 && b[2] == 0xff:
		return true
	case len(b) >= 12 && ascii(b[:4]) == "RIFF" && ascii(b[8:12]) == "WEBP":
		return true
	case len(b) >= 6 && (ascii(b[:6]) == "GIF87a" || ascii(b[:6]) == "GIF89a"):
		return true
	case len(b) >= 2 && b[0] == 'B' && b[1] == 'M':
		return true
	case len(b) < 12 || ascii(b[4:8]) != "ftyp":
		return false
	}
	brands := []string{ascii(b[8:12])}
	for off := 16; off+4 <= len(b); off += 4 {
		brands = append(brands, ascii(b[off:off+4]))
	}
	for _, br := range brands {
		if heicBrands[br] || br == "mif1" || br == "msf1" {
			return true
		}
	}
	return false
}

package session

import (
	"encoding/base64"
	"regexp"
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
var imageMime = regexp.MustCompile(`^(?i:image)/`)

// ImageMime reports whether s names an image type as OpenClaw's isImageMimeType decides.
func ImageMime(s string) bool { return imageMime.MatchString(JSTrim(s)) }

// CorruptImageData reports whether data, an image block's decoded "data" string, is corrupt
// to OpenClaw 2026.6.11.
func CorruptImageData(data string) bool {
	for i := 0; i < len(data); i++ {
		if data[i] >= 0x80 { // containsNonAscii (a lone surrogate escape decodes to U+FFFD: non-ASCII too)
			return true
		}
	}
	canon, ok := canonicalBase64(data)
	if !ok {
		return true
	}
	head, err := base64.StdEncoding.DecodeString(canon[:min(len(canon), 128)])
	return err != nil || !sniffImage(head)
}

// canonicalBase64 is media-core's canonicalizeBase64: characters up to U+0020 are skipped, at
// most two "=" and nothing but "=" after the first, only A-Z a-z 0-9 + /, a length that is a
// multiple of 4.
func canonicalBase64(s string) (string, bool) {
	out := make([]byte, 0, len(s))
	padding := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c <= 32:
			continue
		case c == '=':
			padding++
			if padding > 2 {
				return "", false
			}
		case padding > 0:
			return "", false
		case !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/'):
			return "", false
		}
		out = append(out, c)
	}
	if len(out) == 0 || len(out)%4 != 0 {
		return "", false
	}
	return string(out), true
}

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

package repair

import (
	"bytes"

	"github.com/clawdoctor/clawdoctor/internal/session"
)

// OpenClaw 2026.6.11 replaces an image content block whose base64 payload is corrupt with a
// text block (session-file-repair.ts isCorruptedImageContentBlock): a block of type "image"
// with a string "data" and an image mime type in mimeType, mediaType or media_type (the first
// of the three that is one) whose data session.CorruptImageData calls corrupt.

// CorruptImageFallbackText replaces a corrupt image block.
const CorruptImageFallbackText = session.CorruptImageText

const corruptImageBlock = `{"type":"text","text":"` + CorruptImageFallbackText + `"}`

// corruptImage reports whether the content element el is a corrupt image block (unpadded:
// 2026.7.35's base64 rule, openclaw.UnpaddedBase64).
func corruptImage(ms objMembers, unpadded bool) bool {
	c := ms.c
	t, ok := ms.get("type")
	if !ok || !tokIs(c[t[0]:t[1]], "image") {
		return false
	}
	d, ok := ms.get("data")
	if !ok || c[d[0]] != '"' {
		return false
	}
	mime := false
	for _, k := range [...]string{"mimeType", "mediaType", "media_type"} {
		if r, ok := ms.get(k); ok {
			if s, ok := strValue(c[r[0]:r[1]]); ok && session.ImageMime(s) {
				mime = true
				break
			}
		}
	}
	if !mime {
		return false
	}
	// Without an escape the payload is checked where it stands: a byte that is not ASCII
	// makes it corrupt whether it is read raw or as Node decodes it (U+FFFD), so the verdict
	// is strValue's without the copy of a payload that is most of the line.
	if tok := c[d[0]:d[1]]; bytes.IndexByte(tok[1:len(tok)-1], '\\') < 0 {
		return session.CorruptImageBytes(tok[1:len(tok)-1], unpadded)
	}
	data, ok := strValue(c[d[0]:d[1]])
	return ok && session.CorruptImageData(data, unpadded)
}

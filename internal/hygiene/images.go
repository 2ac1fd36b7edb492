package hygiene

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/session"
)

// Image limits of sanitizeSessionMessagesImages (src/agents/image-sanitization.ts).
const (
	DefaultImageMaxBytes     = 5 << 20
	DefaultImageMaxDimension = 1200
	maxImagePixels           = 25e6
)

// EmptyContentPlaceholder replaces a tool result or user content left empty.
const EmptyContentPlaceholder = "[empty content omitted]"

// ImageOptions are the image limits (agents.defaults.imageMaxDimensionPx sets MaxDimension).
type ImageOptions struct {
	MaxBytes     int
	MaxDimension int
}

func (o ImageOptions) withDefaults() ImageOptions {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultImageMaxBytes
	}
	if o.MaxDimension <= 0 {
		o.MaxDimension = DefaultImageMaxDimension
	}
	return o
}

var base64Charset = lazyre.New(`^[A-Za-z0-9+/=_-]+$`)

// ValidBase64Signature is isBase64Signature: trimmed, internal whitespace removed, the base64
// (or base64url) alphabet, decoding to at least one byte and re-encoding to itself up to
// trailing '='.
func ValidBase64Signature(s string) bool {
	s = jsTrim(s)
	if s == "" {
		return false
	}
	s = strings.Map(func(r rune) rune {
		if isJSSpaceRune(r) {
			return -1
		}
		return r
	}, s)
	if !base64Charset.MatchString(s) {
		return false
	}
	url := strings.ContainsAny(s, "-_")
	b := nodeBase64Decode(s, url)
	if len(b) == 0 {
		return false
	}
	enc := base64.StdEncoding.EncodeToString(b)
	if url {
		enc = base64.RawURLEncoding.EncodeToString(b)
	}
	return strings.TrimRight(enc, "=") == strings.TrimRight(s, "=")
}

// nodeBase64Decode is Buffer.from(s, "base64"|"base64url"): lenient, it reads both
// alphabets, skips characters outside them and stops at the first '='.
func nodeBase64Decode(s string, _ bool) []byte {
	var vals []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		var v byte
		switch {
		case c >= 'A' && c <= 'Z':
			v = c - 'A'
		case c >= 'a' && c <= 'z':
			v = c - 'a' + 26
		case c >= '0' && c <= '9':
			v = c - '0' + 52
		case c == '+' || c == '-':
			v = 62
		case c == '/' || c == '_':
			v = 63
		case c == '=':
			i = len(s)
			continue
		default:
			continue
		}
		vals = append(vals, v)
	}
	out := make([]byte, 0, len(vals)*3/4)
	for i := 0; i+1 < len(vals); i += 4 {
		n := len(vals) - i
		a, b := vals[i], vals[i+1]
		out = append(out, a<<2|b>>4)
		if n > 2 {
			c := vals[i+2]
			out = append(out, b<<4|c>>2)
			if n > 3 {
				out = append(out, c<<6|vals[i+3])
			}
		}
	}
	return out
}

func isJSSpaceRune(r rune) bool { return jsTrim(string(r)) == "" }

// stripThoughtSignatures is stripThoughtSignatures: without allowBase64Only a
// thought_signature starting "msg_" goes; with it every one that is not valid base64 goes
// (thoughtSignature too with includeCamelCase).
func stripThoughtSignatures(content []any, ts *ThoughtSignatures) []any {
	base64Only := ts != nil && ts.AllowBase64Only
	camel := ts != nil && ts.IncludeCamelCase
	strip := func(v any, ok bool) bool {
		if !base64Only {
			s, isStr := v.(string)
			return isStr && strings.HasPrefix(s, "msg_")
		}
		s, isStr := v.(string)
		return !isStr || !ValidBase64Signature(s)
	}
	out := make([]any, len(content))
	for i, v := range content {
		out[i] = v
		b, ok := v.(map[string]any)
		if !ok {
			continue
		}
		snake := strip(b["thought_signature"], true)
		cc := camel && strip(b["thoughtSignature"], true)
		if !snake && !cc {
			continue
		}
		nb := clone(b)
		if snake {
			delete(nb, "thought_signature")
		}
		if cc {
			delete(nb, "thoughtSignature")
		}
		out[i] = nb
	}
	return out
}

// dropEmptyTextBlocks drops text blocks whose text is blank.
func dropEmptyTextBlocks(content []any) []any {
	out := make([]any, 0, len(content))
	for _, v := range content {
		if b, ok := v.(map[string]any); ok && b["type"] == "text" {
			if s, ok := b["text"].(string); ok && jsTrim(s) == "" {
				continue
			}
		}
		out = append(out, v)
	}
	return out
}

func ensureNonEmptyContent(content []any) []any {
	if len(content) > 0 {
		return content
	}
	return []any{map[string]any{"type": "text", "text": EmptyContentPlaceholder}}
}

// imageTooBig records an image OpenClaw would re-encode (a deliberate difference: clawdoctor
// never changes image bytes offline).
type imageTooBig struct {
	ref           string
	width, height int
	bytes         int
}

// SanitizeImages is sanitizeSessionMessagesImages with label "session:history": tool-call ids
// first when the policy asks (and the caller allows), thought signatures, blank text, and the
// image checks of sanitizeContentBlocksImages. Tool results always end up with array content.
func SanitizeImages(msgs []Message, p Policy, sanitizeIDs bool, io ImageOptions, r Release, nowMs int64) ([]Message, Step) {
	io = io.withDefaults()
	st := Step{Name: "images-and-text:" + p.SanitizeMode}
	full := p.SanitizeMode == "" || p.SanitizeMode == "full"
	newer := r.atLeast(Release20260611)
	if sanitizeIDs {
		var ist Step
		msgs, ist = SanitizeToolCallIDs(msgs, p, nil, r, nowMs)
		st.Changed += ist.Changed
		st.Details = append(st.Details, ist.Details...)
	}
	images := func(m Message, c []any) []any { return sanitizeImageBlocks(c, Ref(m), io, r, &st) }
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		if m == nil {
			out = append(out, m)
			continue
		}
		switch Role(m) {
		case "toolResult":
			c, _ := m["content"].([]any)
			nc := images(m, c)
			if newer {
				nc = ensureNonEmptyContent(dropEmptyTextBlocks(nc))
			}
			if _, isArr := m["content"].([]any); !isArr {
				st.note("%s: tool result content %s replaced", Ref(m), jsType(m["content"]))
			}
			out = append(out, withContentIfChanged(m, nc))
			continue
		case "user":
			if c, ok := m["content"].([]any); ok {
				nc := images(m, c)
				if newer {
					nc = ensureNonEmptyContent(dropEmptyTextBlocks(nc))
				}
				out = append(out, withContentIfChanged(m, nc))
				continue
			}
		case "assistant":
			c, isArr := m["content"].([]any)
			if StopReason(m) == "error" {
				if !isArr {
					out = append(out, m)
					continue
				}
				nc := images(m, c)
				if newer {
					nc = dropEmptyTextBlocks(nc)
					if len(nc) == 0 {
						st.note("%s: failed assistant left without content dropped", Ref(m))
						continue
					}
				}
				out = append(out, withContentIfChanged(m, nc))
				continue
			}
			if !isArr {
				break
			}
			stripped := c
			if !p.PreserveSignatures && r.atLeast(Release20260424) {
				stripped = stripThoughtSignatures(c, p.SanitizeThoughtSignatures)
			}
			if !full {
				in := stripped
				if newer {
					in = dropEmptyTextBlocks(stripped)
				}
				nc := images(m, in)
				if newer && len(nc) == 0 {
					st.note("%s: assistant left without content dropped", Ref(m))
					continue
				}
				out = append(out, withContentIfChanged(m, nc))
				continue
			}
			if !r.atLeast(Release20260424) && !p.PreserveSignatures {
				stripped = stripThoughtSignatures(c, p.SanitizeThoughtSignatures)
			}
			in := dropEmptyTextBlocks(stripped)
			if !newer && r.atLeast(Release20260424) && p.PreserveSignatures && hasThinkingBlock(stripped) {
				in = stripped // 2026.4.24 keeps a signed-thinking turn's blocks as they are
			}
			nc := images(m, in)
			if len(nc) == 0 {
				st.note("%s: assistant left without content dropped", Ref(m))
				continue
			}
			out = append(out, withContentIfChanged(m, nc))
			continue
		}
		out = append(out, m)
	}
	return out, st
}

func hasThinkingBlock(c []any) bool {
	for _, v := range c {
		if isThinking(v) {
			return true
		}
	}
	return false
}

func jsType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case map[string]any:
		return "object"
	}
	if isNumber(v) {
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// imageLabel is the label sanitizeSessionHistory passes.
const imageLabel = "session:history"

// canonicalBase64 is canonicalizeBase64: the payload without whitespace, "" unless it is
// valid base64 (alphabet, padding at the end only, length a multiple of 4).
func canonicalBase64(s string) string {
	out, _, _ := stripBase64(s)
	if len(out)%4 != 0 {
		return ""
	}
	return out
}

// canonicalBase64Padded is 2026.7.35's canonicalizeBase64: as canonicalBase64, but a payload
// 2 or 3 characters past a multiple of 4 with no "=" is padded, and one whose padding leaves
// set bits in its last character is refused.
func canonicalBase64Padded(s string) string {
	out, padding, last := stripBase64(s)
	if out == "" {
		return ""
	}
	if rem := len(out) % 4; rem != 0 {
		if padding > 0 || rem == 1 {
			return ""
		}
		out += strings.Repeat("=", 4-rem)
		padding = 4 - rem
	}
	mask := 0
	switch padding {
	case 1:
		mask = 3
	case 2:
		mask = 15
	}
	if mask != 0 && strings.IndexByte(b64Alphabet, last)&mask != 0 {
		return ""
	}
	return out
}

// stripBase64 is the scan both canonicalizeBase64s (2026.4.24 on) share: s without the bytes
// ≤ 32, or "" when a character is outside the base64 alphabet, or after an "=", or an "=" is
// the third; padding counts the "=", last is the last data character.
func stripBase64(s string) (out string, padding int, last byte) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= 32 {
			continue
		}
		if c == '=' {
			if padding++; padding > 2 {
				return "", 0, 0
			}
			b.WriteByte('=')
			continue
		}
		if padding > 0 || !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/') {
			return "", 0, 0
		}
		last = c
		b.WriteByte(c)
	}
	return b.String(), padding, last
}

const b64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// canonicalBase64Classic is 2026.3.13's canonicalizeBase64: every JavaScript white space
// (/\s+/g) removed, then valid only as /^[A-Za-z0-9+/]+={0,2}$/ with a length that is a
// multiple of 4. Unlike the later one it does not skip other control characters (a NUL inside
// makes the payload invalid).
func canonicalBase64Classic(s string) string {
	out := strings.Map(func(r rune) rune {
		if session.IsJSSpace(r) {
			return -1
		}
		return r
	}, s)
	if out == "" || len(out)%4 != 0 || !base64CharsRE.MatchString(out) {
		return ""
	}
	return out
}

var base64CharsRE = lazyre.New(`^[A-Za-z0-9+/]+={0,2}$`)

func inferMimeFromBase64(s string) string {
	s = jsTrim(s)
	switch {
	case strings.HasPrefix(s, "/9j/"):
		return "image/jpeg"
	case strings.HasPrefix(s, "iVBOR"):
		return "image/png"
	case strings.HasPrefix(s, "R0lGOD"):
		return "image/gif"
	}
	return ""
}

// sanitizeImageBlocks is sanitizeContentBlocksImages for one content list: image blocks
// without data or mimeType, with empty or invalid base64 become text notes; valid ones get
// their canonical base64 and inferred mime type. Images over the size or dimension limits are
// left as they are (OpenClaw re-encodes them as JPEG; clawdoctor never rewrites image bytes)
// and reported.
func sanitizeImageBlocks(bl []any, ref string, io ImageOptions, r Release, st *Step) []any {
	out := make([]any, 0, len(bl))
	for _, v := range bl {
		b, ok := v.(map[string]any)
		isImage := ok && b["type"] == "image"
		data, hasData := b["data"].(string)
		_, hasMime := b["mimeType"].(string)
		if !isImage || !hasData || !hasMime {
			if isImage && r.atLeast(Release20260611) {
				out = append(out, textBlock(fmt.Sprintf("[%s] omitted image payload: missing data or mimeType", imageLabel)))
				st.note("%s: image without data or mimeType replaced by a note", ref)
				continue
			}
			out = append(out, v)
			continue
		}
		data = jsTrim(data)
		if data == "" {
			out = append(out, textBlock(fmt.Sprintf("[%s] omitted empty image payload", imageLabel)))
			st.note("%s: empty image payload replaced by a note", ref)
			continue
		}
		var canon string
		switch {
		case !r.atLeast(Release20260424):
			canon = canonicalBase64Classic(data)
		case r.atLeast(Release20260735):
			canon = canonicalBase64Padded(data)
		default:
			canon = canonicalBase64(data)
		}
		if canon == "" {
			out = append(out, textBlock(fmt.Sprintf("[%s] omitted image payload: invalid base64", imageLabel)))
			st.note("%s: image with invalid base64 replaced by a note", ref)
			continue
		}
		mime := inferMimeFromBase64(canon)
		if mime == "" {
			mime, _ = b["mimeType"].(string)
		}
		raw, _ := base64.StdEncoding.DecodeString(canon)
		w, h, known := imageHeaderSize(raw)
		if !known || len(raw) > io.MaxBytes || w > io.MaxDimension || h > io.MaxDimension || float64(w)*float64(h) > maxImagePixels {
			st.Details = append(st.Details, fmt.Sprintf("%s: image (%s) over the limits (%d bytes, %dx%d; max %d bytes, %d px): OpenClaw re-encodes it as JPEG, kept as it is",
				ref, mime, len(raw), w, h, io.MaxBytes, io.MaxDimension))
		} else if !r.atLeast(Release20260424) {
			if err := ImageDecodeError(b); err != nil {
				st.Details = append(st.Details, fmt.Sprintf("%s: image (%s) does not decode (%v): OpenClaw 2026.3.13 reads every image with libvips and replaces one it cannot read by an %q note naming libvips' error; kept as it is",
					ref, mime, err, "["+imageLabel+"] omitted image payload: Error: …"))
			}
		}
		if canon == b["data"] && mime == b["mimeType"] {
			out = append(out, v)
			continue
		}
		nb := clone(b)
		nb["data"], nb["mimeType"] = canon, mime
		out = append(out, nb)
	}
	return out
}

func textBlock(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

// sameBlocks reports whether two contents hold the very same blocks.
func sameBlocks(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameValue(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sameValue is identity for blocks (maps) and equality for the rest.
func sameValue(a, b any) bool {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok || bok {
		return aok && bok && same(am, bm)
	}
	_, aarr := a.([]any)
	_, barr := b.([]any)
	if aarr || barr {
		return false
	}
	return a == b
}

// withContentIfChanged is withContent unless c holds the same blocks as m's array content.
func withContentIfChanged(m Message, c []any) Message {
	if old, ok := m["content"].([]any); ok && sameBlocks(old, c) {
		return m
	}
	return withContent(m, c)
}

// imageHeaderSize is rastermill's readImageMetadataFromHeader: the dimensions from a PNG,
// GIF, WebP, BMP, TIFF, HEIF/AVIF or JPEG header; known is false for anything else.
func imageHeaderSize(b []byte) (w, h int, known bool) {
	for _, read := range []func([]byte) (int, int, bool){pngSize, gifSize, webpSize, bmpSize, tiffSize, isoBmffSize, jpegSize} {
		if w, h, ok := read(b); ok {
			return w, h, true
		}
	}
	return 0, 0, false
}

func dims(w, h int64) (int, int, bool) {
	if w <= 0 || h <= 0 {
		return 0, 0, false
	}
	return int(w), int(h), true
}

func pngSize(b []byte) (int, int, bool) {
	if len(b) < 24 || string(b[:8]) != "\x89PNG\r\n\x1a\n" || string(b[12:16]) != "IHDR" {
		return 0, 0, false
	}
	return dims(int64(binary.BigEndian.Uint32(b[16:])), int64(binary.BigEndian.Uint32(b[20:])))
}

func gifSize(b []byte) (int, int, bool) {
	if len(b) < 10 || (string(b[:6]) != "GIF87a" && string(b[:6]) != "GIF89a") {
		return 0, 0, false
	}
	return dims(int64(binary.LittleEndian.Uint16(b[6:])), int64(binary.LittleEndian.Uint16(b[8:])))
}

func le24(b []byte) int64 { return int64(b[0]) | int64(b[1])<<8 | int64(b[2])<<16 }

func webpSize(b []byte) (int, int, bool) {
	if len(b) < 30 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WEBP" {
		return 0, 0, false
	}
	switch string(b[12:16]) {
	case "VP8X":
		return dims(1+le24(b[24:]), 1+le24(b[27:]))
	case "VP8 ":
		return dims(int64(binary.LittleEndian.Uint16(b[26:])&0x3fff), int64(binary.LittleEndian.Uint16(b[28:])&0x3fff))
	case "VP8L":
		if b[20] != 0x2f {
			return 0, 0, false
		}
		bits := int32(uint32(b[21]) | uint32(b[22])<<8 | uint32(b[23])<<16 | uint32(b[24])<<24)
		return dims(int64(bits&0x3fff)+1, int64((bits>>14)&0x3fff)+1)
	}
	return 0, 0, false
}

func bmpSize(b []byte) (int, int, bool) {
	if len(b) < 26 || string(b[:2]) != "BM" {
		return 0, 0, false
	}
	dib := binary.LittleEndian.Uint32(b[14:])
	if dib == 12 {
		return dims(int64(binary.LittleEndian.Uint16(b[18:])), int64(binary.LittleEndian.Uint16(b[20:])))
	}
	if dib < 40 {
		return 0, 0, false
	}
	h := int64(int32(binary.LittleEndian.Uint32(b[22:])))
	if h < 0 {
		h = -h
	}
	return dims(int64(int32(binary.LittleEndian.Uint32(b[18:]))), h)
}

func tiffSize(b []byte) (int, int, bool) {
	if len(b) < 8 {
		return 0, 0, false
	}
	var bo binary.ByteOrder
	switch string(b[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 0, 0, false
	}
	if bo.Uint16(b[2:]) != 42 {
		return 0, 0, false
	}
	ifd := int64(bo.Uint32(b[4:]))
	var best [2]int64
	seen := map[int64]bool{}
	for ifd != 0 {
		if seen[ifd] || ifd+2 > int64(len(b)) {
			return 0, 0, false
		}
		seen[ifd] = true
		n := int64(bo.Uint16(b[ifd:]))
		start := ifd + 2
		end := start + n*12
		if end+4 > int64(len(b)) {
			return 0, 0, false
		}
		var w, h int64 = -1, -1
		for i := int64(0); i < n; i++ {
			e := start + i*12
			tag := bo.Uint16(b[e:])
			if tag == 330 {
				return 0, 0, false
			}
			if tag != 256 && tag != 257 {
				continue
			}
			typ := bo.Uint16(b[e+2:])
			count := bo.Uint32(b[e+4:])
			if count != 1 || (typ != 3 && typ != 4) {
				continue
			}
			var v int64
			if typ == 3 {
				v = int64(bo.Uint16(b[e+8:]))
			} else {
				v = int64(bo.Uint32(b[e+8:]))
			}
			if tag == 256 {
				w = v
			} else {
				h = v
			}
		}
		if w <= 0 || h <= 0 {
			return 0, 0, false
		}
		if best[0]*best[1] < w*h {
			best = [2]int64{w, h}
		}
		ifd = int64(bo.Uint32(b[end:]))
	}
	return dims(best[0], best[1])
}

var isoBmffBrands = map[string]bool{"avif": true, "avis": true, "heic": true, "heix": true, "hevc": true,
	"hevx": true, "heif": true, "mif1": true, "msf1": true}
var isoBmffContainers = map[string]bool{"edts": true, "ipco": true, "iprp": true, "mdia": true, "meta": true,
	"minf": true, "moov": true, "stbl": true, "trak": true}

func isoBoxSize(b []byte, off, end int64) (int64, bool) {
	if off+8 > end {
		return 0, false
	}
	s := int64(binary.BigEndian.Uint32(b[off:]))
	switch s {
	case 0:
		return end - off, true
	case 1:
		if off+16 > end {
			return 0, false
		}
		big := binary.BigEndian.Uint64(b[off+8:])
		if big > 1<<53-1 {
			return 0, false
		}
		return int64(big), true
	}
	return s, true
}

func isoBmffSize(b []byte) (int, int, bool) {
	if len(b) < 16 || string(b[4:8]) != "ftyp" {
		return 0, 0, false
	}
	ft, ok := isoBoxSize(b, 0, int64(len(b)))
	if !ok || ft < 16 || ft > int64(len(b)) {
		return 0, 0, false
	}
	brand := false
	for off := int64(8); off+4 <= ft; off += 4 {
		if isoBmffBrands[string(b[off:off+4])] {
			brand = true
			break
		}
	}
	if !brand {
		return 0, 0, false
	}
	w, h, ok := ispe(b, 0, int64(len(b)), 0)
	if !ok {
		return 0, 0, false
	}
	return dims(w, h)
}

func ispe(b []byte, start, end int64, depth int) (int64, int64, bool) {
	if depth > 8 {
		return 0, 0, false
	}
	var bw, bh int64
	found := false
	pick := func(w, h int64) {
		if w > 0 && h > 0 && (!found || w*h > bw*bh) {
			bw, bh, found = w, h, true
		}
	}
	for off := start; off+8 <= end; {
		size, ok := isoBoxSize(b, off, end)
		if !ok || size < 8 || off+size > end {
			return 0, 0, false
		}
		typ := string(b[off+4 : off+8])
		hdr := int64(8)
		if binary.BigEndian.Uint32(b[off:]) == 1 {
			hdr = 16
		}
		data, boxEnd := off+hdr, off+size
		if typ == "ispe" && data+12 <= boxEnd {
			pick(int64(binary.BigEndian.Uint32(b[data+4:])), int64(binary.BigEndian.Uint32(b[data+8:])))
		}
		if isoBmffContainers[typ] {
			cs := data
			if typ == "meta" {
				cs += 4
			}
			if w, h, ok := ispe(b, cs, boxEnd, depth+1); ok {
				pick(w, h)
			}
		}
		off = boxEnd
	}
	return bw, bh, found
}

func jpegSize(b []byte) (int, int, bool) {
	if len(b) < 4 || b[0] != 0xff || b[1] != 0xd8 {
		return 0, 0, false
	}
	off := 2
	for off+8 < len(b) {
		for off < len(b) && b[off] == 0xff {
			off++
		}
		if off >= len(b) {
			return 0, 0, false
		}
		marker := b[off]
		off++
		if marker == 0xd8 || marker == 0xd9 || marker == 0x01 || (marker >= 0xd0 && marker <= 0xd7) {
			continue
		}
		if off+1 >= len(b) {
			return 0, 0, false
		}
		seg := int(binary.BigEndian.Uint16(b[off:]))
		if seg < 2 || off+seg > len(b) {
			return 0, 0, false
		}
		if marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc {
			if seg < 7 || off+6 >= len(b) {
				return 0, 0, false
			}
			return dims(int64(binary.BigEndian.Uint16(b[off+5:])), int64(binary.BigEndian.Uint16(b[off+3:])))
		}
		off += seg
	}
	return 0, 0, false
}

// ImageOverLimits reports whether an image block is one OpenClaw re-encodes (its decoded size
// or a side is over the default limits, or its header is not one rastermill reads): replay
// keeps such images as they are, a deliberate difference (conformance.md).
func ImageOverLimits(block map[string]any) bool {
	data, _ := block["data"].(string)
	canon := canonicalBase64(jsTrim(data))
	if canon == "" {
		canon = canonicalBase64Padded(jsTrim(data)) // 2026.7.35 sends unpadded payloads padded
	}
	if canon == "" {
		return false
	}
	raw, _ := base64.StdEncoding.DecodeString(canon)
	w, h, known := imageHeaderSize(raw)
	return !known || len(raw) > DefaultImageMaxBytes || w > DefaultImageMaxDimension || h > DefaultImageMaxDimension ||
		float64(w)*float64(h) > maxImagePixels
}

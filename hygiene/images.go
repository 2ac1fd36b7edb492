package hygiene

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/gif" // DecodeConfig for image size checks
	_ "image/jpeg"
	_ "image/png"
	"regexp"
	"strings"
)

// Image limits of sanitizeSessionMessagesImages (§6.2, §10).
const (
	DefaultImageMaxBytes     = 5 << 20
	DefaultImageMaxDimension = 1200
)

// ImageOptions are the image limits. Offline we never re-encode: an image over a limit is
// reported ("OpenClaw would shrink it") and left as it is.
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

var (
	base64Charset = regexp.MustCompile(`^[A-Za-z0-9+/=_-]+$`)
	whitespace    = regexp.MustCompile(`\s+`)
)

// ValidBase64Signature is the base64 validity test of §6.2: trimmed, internal whitespace
// removed, charset, decodes to ≥1 byte, and re-encodes to itself ignoring trailing '='.
func ValidBase64Signature(s string) bool {
	s = whitespace.ReplaceAllString(strings.TrimSpace(s), "")
	if s == "" || !base64Charset.MatchString(s) {
		return false
	}
	url := strings.ContainsAny(s, "-_")
	body := strings.TrimRight(s, "=")
	var (
		b   []byte
		err error
	)
	if url {
		b, err = base64.RawURLEncoding.DecodeString(body)
	} else {
		b, err = base64.RawStdEncoding.DecodeString(body)
	}
	if err != nil || len(b) == 0 {
		return false
	}
	var re string
	if url {
		re = base64.RawURLEncoding.EncodeToString(b)
	} else {
		re = base64.RawStdEncoding.EncodeToString(b)
	}
	return re == body
}

// stripSignatures applies the thought-signature rules of §6.2 to one block.
func stripSignatures(b map[string]any, ts *ThoughtSignatures) (map[string]any, []string) {
	var dropped []string
	check := func(key string) {
		s, ok := Str(b, key)
		if !ok {
			return
		}
		bad := false
		if ts != nil && ts.AllowBase64Only {
			bad = !ValidBase64Signature(s)
		} else {
			bad = strings.HasPrefix(s, "msg_")
		}
		if bad {
			if len(dropped) == 0 {
				b = clone(b)
			}
			delete(b, key)
			dropped = append(dropped, key)
		}
	}
	check("thought_signature")
	if ts != nil && ts.IncludeCamelCase {
		check("thoughtSignature")
	}
	return b, dropped
}

// SanitizeImages is sanitizeSessionMessagesImages (§6.2) without the id pass: thought
// signatures, blank text in full mode (dropping an assistant left empty), and image checks.
func SanitizeImages(msgs []Message, p Policy, io ImageOptions) ([]Message, Step) {
	io = io.withDefaults()
	st := Step{Name: "images-and-text:" + p.SanitizeMode}
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		role := Role(m)
		bl, isArr := Blocks(m)
		if !isArr || (role != "user" && role != "toolResult" && role != "assistant") {
			out = append(out, m)
			continue
		}
		if role != "assistant" || failed(m) {
			nc, ch := sanitizeImageBlocks(bl, Ref(m), io, &st)
			if ch {
				m = withContent(m, nc)
			}
			out = append(out, m)
			continue
		}
		var nc []any
		changed := false
		hasThinking := false
		for _, v := range bl {
			if b, ok := Block(v); ok {
				if t, _ := Str(b, "type"); t == "thinking" || t == "redacted_thinking" {
					hasThinking = true
				}
			}
		}
		for _, v := range bl {
			b, ok := Block(v)
			if !ok {
				nc = append(nc, v)
				continue
			}
			if !p.PreserveSignatures {
				nb, dropped := stripSignatures(b, p.SanitizeThoughtSignatures)
				for _, k := range dropped {
					st.note("%s: removed invalid %s", Ref(m), k)
					changed = true
				}
				b = nb
			}
			if p.SanitizeMode == "full" && !(p.PreserveSignatures && hasThinking) {
				if t, _ := Str(b, "type"); t == "text" {
					if s, ok := Str(b, "text"); ok && strings.TrimSpace(s) == "" {
						st.note("%s: removed blank text block", Ref(m))
						changed = true
						continue
					}
				}
			}
			nc = append(nc, b)
		}
		nc2, ch := sanitizeImageBlocks(nc, Ref(m), io, &st)
		changed = changed || ch
		if p.SanitizeMode == "full" && len(nc2) == 0 {
			st.note("%s: dropped assistant message left empty", Ref(m))
			continue
		}
		if changed {
			if nc2 == nil {
				nc2 = []any{}
			}
			m = withContent(m, nc2)
		}
		out = append(out, m)
	}
	return out, st
}

// sanitizeImageBlocks checks the image blocks of one content list.
func sanitizeImageBlocks(bl []any, ref string, io ImageOptions, st *Step) ([]any, bool) {
	var out []any
	changed := false
	for i, v := range bl {
		b, ok := Block(v)
		if t, _ := Str(b, "type"); !ok || t != "image" {
			if out != nil {
				out = append(out, v)
			}
			continue
		}
		data, _ := Str(b, "data")
		if data == "" {
			if out == nil {
				out = append([]any(nil), bl[:i]...)
			}
			out = append(out, map[string]any{"type": "text", "text": "[session:history] omitted empty image payload"})
			st.note("%s: empty image payload replaced by text", ref)
			changed = true
			continue
		}
		if out != nil {
			out = append(out, v)
		}
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(data))
		size := len(raw)
		if err != nil {
			size = base64.StdEncoding.DecodedLen(len(data))
		}
		w, h := 0, 0
		if err == nil {
			if cfg, _, err := image.DecodeConfig(bytes.NewReader(raw)); err == nil {
				w, h = cfg.Width, cfg.Height
			}
		}
		switch {
		case size > io.MaxBytes:
			st.Details = append(st.Details, fmt.Sprintf("%s: image of %.2fMB is over %dMB: OpenClaw re-encodes it as JPEG or omits it (not done offline)", ref, float64(size)/(1<<20), io.MaxBytes>>20))
		case w > io.MaxDimension || h > io.MaxDimension:
			st.Details = append(st.Details, fmt.Sprintf("%s: image %dx%d is over %dpx: OpenClaw resizes it (not done offline)", ref, w, h, io.MaxDimension))
		}
	}
	if out == nil {
		return bl, false
	}
	return out, changed
}

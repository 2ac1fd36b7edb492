package hygiene

import (
	"encoding/base64"
	"encoding/binary"
	"strings"
	"testing"
)

// pngHeader is the start of a PNG of w×h pixels: enough for the header readers.
func pngHeader(w, h uint32) string {
	b := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR")
	b = binary.BigEndian.AppendUint32(b, w)
	b = binary.BigEndian.AppendUint32(b, h)
	b = append(b, 8, 6, 0, 0, 0, 0, 0, 0, 0)
	return base64.StdEncoding.EncodeToString(b)
}

// TestOverLimitImagesKept pins replay's one deliberate difference from OpenClaw
// (docs/conformance.md): an image over OpenClaw's limits (5 MiB, 1200 px a side, 25 Mpx) or of
// a format it cannot read goes out as it was, with a step detail saying OpenClaw would
// re-encode it as JPEG, where OpenClaw re-encodes it with the host's image library (bytes that
// cannot be reproduced). An image within the limits goes out unchanged and unreported.
func TestOverLimitImagesKept(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
		over bool
	}{
		{"within the limits", pngHeader(800, 600), false},
		{"a side over 1200 px", pngHeader(4000, 300), true},
		{"an unreadable format", base64.StdEncoding.EncodeToString([]byte("not an image at all")), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := map[string]any{"type": "image", "data": tc.data, "mimeType": "image/png"}
			msgs := []Message{
				{"role": "user", "content": []any{map[string]any{"type": "text", "text": "look"}, img}, "timestamp": int64(1)},
			}
			p := Resolve(Model{Provider: "anthropic", API: "anthropic-messages", ID: "claude-sonnet-4-5"}, DefaultRelease)
			out, steps, err := Sanitize(msgs, p, "anthropic", Options{NowMs: 1})
			if err != nil {
				t.Fatal(err)
			}
			if ImageOverLimits(img) != tc.over {
				t.Fatalf("ImageOverLimits = %v, want %v", !tc.over, tc.over)
			}
			var sent map[string]any
			for _, m := range out {
				if Role(m) != "user" {
					continue
				}
				for _, b := range m["content"].([]any) {
					if bm, ok := b.(map[string]any); ok && bm["type"] == "image" {
						sent = bm
					}
				}
			}
			if sent == nil || sent["data"] != tc.data || sent["mimeType"] != "image/png" {
				t.Fatalf("image sent as %v, want it as it was", sent)
			}
			reported := false
			for _, st := range steps {
				for _, d := range st.Details {
					reported = reported || strings.Contains(d, "OpenClaw re-encodes it as JPEG, kept as it is")
				}
			}
			if reported != tc.over {
				t.Errorf("reported = %v, want %v (steps %+v)", reported, tc.over, steps)
			}
		})
	}
}

package hygiene

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"testing"
)

// Rules that differ by release, each found by running the repair part's matrix and
// mutations through the real releases' replay (internal/conformance/replaycheck) and pinned here.

// 2026.3.13 cleans a payload with /\s+/g only: a NUL (or another control character) inside
// makes it invalid there, while 2026.4.24 on skips every character up to U+0020.
func TestCanonicalBase64ByRelease(t *testing.T) {
	for _, tc := range []struct {
		in             string
		classic, newer string
	}{
		{"QUJD", "QUJD", "QUJD"},
		{"QU\nJD", "QUJD", "QUJD"},
		{"QU\x00JD", "", "QUJD"},
		{"QU\u00a0JD", "QUJD", ""}, // NBSP is JavaScript white space, but not <= U+0020
		{"QUJ=", "QUJ=", "QUJ="},
		{"QU=D", "", ""},
		{"QUJD====", "", ""},
	} {
		if got := canonicalBase64Classic(tc.in); got != tc.classic {
			t.Errorf("2026.3.13 %q: %q, want %q", tc.in, got, tc.classic)
		}
		if got := canonicalBase64(tc.in); got != tc.newer {
			t.Errorf("2026.4.24+ %q: %q, want %q", tc.in, got, tc.newer)
		}
	}
}

// Before 2026.6.11 isRawToolCallBlock knows toolCall, toolUse and functionCall only: a
// tool_use block with an empty id passes repairToolCallInputs untouched; 2026.6.11 drops it.
func TestSnakeCaseToolCallsByRelease(t *testing.T) {
	msg := Message{"role": "assistant", "content": []any{
		map[string]any{"type": "text", "text": "reading"},
		map[string]any{"type": "tool_use", "id": "", "name": "read", "arguments": map[string]any{"path": "a"}},
	}}
	for r, want := range map[Release]int{Release20260313: 2, Release20260424: 2, Release20260611: 1} {
		out, _ := SanitizeToolCallInputs([]Message{msg}, nil, false, r)
		if n := len(out[0]["content"].([]any)); n != want {
			t.Errorf("%s: %d blocks kept, want %d", r, n, want)
		}
	}
}

// 2026.4.24's stripDanglingAnthropicToolUses reads a result's id untrimmed (extractToolResultId)
// but trims the call's: a call id with padding is never answered there and is stripped;
// 2026.6.11 trims both and keeps it.
func TestDanglingToolUsePaddedIDByRelease(t *testing.T) {
	msgs := []Message{
		{"role": "user", "content": "go"},
		{"role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": "reading"},
			map[string]any{"type": "toolCall", "id": " call_1 ", "name": "read", "arguments": map[string]any{}},
		}},
		{"role": "toolResult", "toolCallId": " call_1 ", "toolName": "read", "content": []any{}},
	}
	for r, want := range map[Release]int{Release20260424: 1, Release20260611: 2} {
		var st Step
		out := stripDanglingToolUses(msgs, r, &st)
		if n := len(out[1]["content"].([]any)); n != want {
			t.Errorf("%s: %d blocks kept, want %d", r, n, want)
		}
	}
}

// ImageDecodeError tells an image that decodes from one whose signature is valid over a
// corrupt body (libvips refuses those in 2026.3.13), and says nothing of formats Go cannot read.
func TestImageDecodeError(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	corrupt := append(append([]byte{}, good[:33]...), bytes.Repeat([]byte{0x5a}, 40)...)
	heic := append([]byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"), bytes.Repeat([]byte{1}, 40)...)
	for name, tc := range map[string]struct {
		data []byte
		bad  bool
	}{"good png": {good, false}, "png signature over noise": {corrupt, true}, "heic": {heic, false}} {
		err := ImageDecodeError(map[string]any{"type": "image", "data": base64.StdEncoding.EncodeToString(tc.data), "mimeType": "image/png"})
		if (err != nil) != tc.bad {
			t.Errorf("%s: error %v, want bad=%v", name, err, tc.bad)
		}
	}
}

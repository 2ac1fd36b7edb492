package hygiene_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/hygiene"
)

func TestNormalizeProvider(t *testing.T) {
	for in, want := range map[string]string{
		" Z.AI ": "zai", "modelstudio": "qwen", "kimi-coding": "kimi", "moonshot-ai": "moonshot",
		"aws-bedrock": "amazon-bedrock", "doubao": "volcengine", "opencode-zen": "opencode", "OpenAI": "openai",
	} {
		if got := hygiene.NormalizeProvider(in); got != want {
			t.Errorf("NormalizeProvider(%q) = %q, want %q", in, got, want)
		}
	}
}

// row is the part of a policy the §5.3/§5.4 matrices tabulate.
type row struct {
	Mode, IDs                                                      string
	Pairing, Sigs, Drop, Google, Gemini, Anth, Synth, PreserveSigs bool
}

func rowOf(p hygiene.Policy) row {
	ids := "-"
	if p.SanitizeToolCallIDs {
		ids = p.ToolCallIDMode
	}
	return row{p.SanitizeMode, ids, p.RepairToolUseResultPairing, p.SanitizeThoughtSignatures != nil, p.DropThinkingBlocks,
		p.ApplyGoogleTurnOrdering, p.ValidateGeminiTurns, p.ValidateAnthropicTurns, p.AllowSyntheticToolResults, p.PreserveSignatures}
}

func TestResolveSingleFile(t *testing.T) {
	for _, tc := range []struct {
		provider, api, model string
		want                 row
	}{
		{"openai", "openai-responses", "gpt-5", row{"images-only", "-", true, false, false, false, false, false, false, false}},
		{"", "openai-completions", "x", row{"images-only", "-", true, false, false, false, false, false, false, false}},
		{"google", "google-generative-ai", "gemini-2.5-pro", row{"full", "strict", true, true, false, true, true, false, true, false}},
		{"vertex", "some-GEMINI-api", "m", row{"full", "strict", true, true, false, true, true, false, true, false}},
		{"anthropic", "anthropic-messages", "claude", row{"full", "strict", true, false, false, false, false, true, true, false}},
		{"bedrock", "bedrock-converse-stream", "claude", row{"full", "strict", true, false, false, false, false, true, true, false}},
		{"mistral", "openai-completions", "mistral-large", row{"full", "strict9", true, false, false, false, false, true, false, false}},
		{"groq", "openai-completions", "codestral-x", row{"full", "strict9", true, false, false, false, false, true, false, false}},
		{"openrouter", "openai-completions", "google/gemini-2.5-pro", row{"full", "-", true, true, false, false, false, false, false, false}},
		{"minimax", "anthropic-messages", "MiniMax-M2", row{"full", "strict", true, false, false, false, false, true, true, false}},
		{"github-copilot", "openai-responses", "claude-sonnet-4", row{"images-only", "-", true, false, true, false, false, false, false, false}},
		{"ollama", "ollama", "llama3", row{"images-only", "-", true, false, false, false, false, false, false, false}},
	} {
		got := rowOf(hygiene.Resolve(tc.provider, tc.api, tc.model, hygiene.EraSingleFile))
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s/%s/%s (-want +got):\n%s", tc.provider, tc.api, tc.model, diff)
		}
	}
}

func TestResolveAntigravity(t *testing.T) {
	for _, tc := range []struct {
		provider, api, model string
		want                 row
	}{
		{"openai", "openai-responses", "gpt-5", row{"images-only", "-", false, false, false, false, false, false, false, false}},
		{"google", "google-generative-ai", "gemini", row{"full", "strict", true, false, false, true, true, false, true, false}},
		{"google-antigravity", "google-antigravity", "claude-opus", row{"full", "strict", true, false, false, true, true, false, true, true}},
		{"anthropic", "anthropic-messages", "claude", row{"full", "-", true, false, false, false, false, true, true, false}},
		{"mistral", "openai-completions", "mistral-large", row{"full", "strict9", false, false, false, false, false, false, false, false}},
		{"google", "google-generative-ai", "mistral-on-vertex", row{"full", "strict9", true, false, false, true, true, false, true, false}},
		{"openrouter", "openai-completions", "gemini-2.5", row{"full", "-", false, true, false, false, false, false, false, false}},
		{"ollama", "ollama", "llama3", row{"images-only", "-", false, false, false, false, false, false, false, false}},
	} {
		p := hygiene.Resolve(tc.provider, tc.api, tc.model, hygiene.EraAntigravity)
		if diff := cmp.Diff(tc.want, rowOf(p)); diff != "" {
			t.Errorf("%s/%s/%s (-want +got):\n%s", tc.provider, tc.api, tc.model, diff)
		}
		if p.NormalizeAntigravityThinking != (tc.provider == "google-antigravity") {
			t.Errorf("%s: antigravity thinking normalization = %v", tc.provider, p.NormalizeAntigravityThinking)
		}
	}
	if _, err := hygiene.ParseEra("bronze"); err == nil {
		t.Error("unknown era accepted")
	}
}

func pngData(t *testing.T, w, h int) string {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// TestImageLimits: images over the side or byte limit are reported, not re-encoded offline;
// images within limits are silent.
func TestImageLimits(t *testing.T) {
	in := parse(t, `{"role":"toolResult","toolCallId":"c","content":[{"type":"image","data":"`+pngData(t, 1300, 10)+`","mimeType":"image/png"},{"type":"image","data":"`+pngData(t, 100, 100)+`","mimeType":"image/png"}]}
{"role":"user","content":[{"type":"image","data":"`+strings.Repeat("A", 8<<20)+`","mimeType":"image/png"}]}`)
	p := hygiene.Resolve("anthropic", "anthropic-messages", "claude", hygiene.EraSingleFile)
	out, st := hygiene.SanitizeImages(in, p, hygiene.ImageOptions{})
	if st.Changed != 0 || len(st.Details) != 2 {
		t.Fatalf("changed %d details %q", st.Changed, st.Details)
	}
	if !strings.Contains(st.Details[0], "image 1300x10 is over 1200px") || !strings.Contains(st.Details[1], "image of 6.00MB is over 5MB") {
		t.Errorf("details = %q", st.Details)
	}
	if diff := cmp.Diff(norm(t, in), norm(t, out)); diff != "" {
		t.Errorf("images changed offline:\n%s", diff)
	}
}

package hygiene_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/clawdoctor/clawdoctor/hygiene"
)

// FuzzSanitize feeds arbitrary JSON lines as a history through every provider's pipeline and
// both pairing algorithms: no panic, the input is never mutated, the pairing invariant holds
// wherever the policy repairs pairing, and Mistral ids are 9 alphanumerics.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{
		`{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"read","arguments":{}}],"stopReason":"toolUse"}` + "\n" + `{"role":"user","content":"u"}`,
		`{"role":"toolResult","toolCallId":"x","content":[]}` + "\n" + `{"role":"assistant","content":"str"}`,
		`{"role":"user","content":[{"type":"image","data":""}],"provenance":{"kind":"inter_session","sourceTool":"t"}}`,
		`{"role":"assistant","content":[{"type":"thinking","thinking":"","thinkingSignature":"{\"id\":\"rs_1\",\"type\":\"reasoning\"}"},{"type":"toolCall","id":"a|fc_b","name":"x","arguments":{}}]}`,
		`{"role":"assistant","content":[null,1,"s",{"type":"toolUse","id":7}],"usage":{"input":"x","cost":{"total":null}}}`,
		`{"role":null,"content":{}}` + "\n" + `[]` + "\n" + `{"role":"user","content":null}`,
	} {
		f.Add([]byte(s))
	}
	policies := []hygiene.Policy{
		hygiene.Resolve("anthropic", "anthropic-messages", "claude", hygiene.EraSingleFile),
		hygiene.Resolve("google", "google-generative-ai", "gemini", hygiene.EraSingleFile),
		hygiene.Resolve("mistral", "openai-completions", "mistral", hygiene.EraSingleFile),
		hygiene.Resolve("openai", "openai-responses", "gpt-5", hygiene.EraSingleFile),
		hygiene.Resolve("openrouter", "openai-completions", "gemini", hygiene.EraSingleFile),
		hygiene.Resolve("google-antigravity", "google-antigravity", "claude-opus", hygiene.EraAntigravity),
		hygiene.Resolve("github-copilot", "openai-completions", "claude-sonnet", hygiene.EraSingleFile),
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 4096 {
			return
		}
		var msgs []hygiene.Message
		for _, l := range bytes.Split(in, []byte("\n")) {
			if m, err := hygiene.Decode(l); err == nil {
				msgs = append(msgs, m)
			}
		}
		before, _ := json.Marshal(msgs)
		for _, p := range policies {
			for _, alg := range []hygiene.Pairing{hygiene.PairingClassic, hygiene.PairingFrames} {
				out, _ := hygiene.Sanitize(msgs, p, hygiene.Options{NowMs: 1, Pairing: alg, Usage: hygiene.UsageOptions{SummaryIndex: -1}})
				if _, err := json.Marshal(out); err != nil {
					t.Fatalf("output does not encode: %v", err)
				}
				if p.RepairToolUseResultPairing && !p.ValidateGeminiTurns { // Gemini merges may join a failed turn
					if err := hygiene.CheckPairing(out); err != nil {
						t.Fatalf("%v/%s: %v", p.Family, alg, err)
					}
				}
				if p.ToolCallIDMode == "strict9" {
					if err := hygiene.CheckMistral(out); err != nil {
						t.Fatalf("mistral/%s: %v", alg, err)
					}
				}
			}
		}
		if after, _ := json.Marshal(msgs); !bytes.Equal(before, after) {
			t.Fatalf("input mutated:\n%s\n%s", before, after)
		}
	})
}

package hygiene_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/clawdoctor/clawdoctor/hygiene"
)

// adversarial builds a random history: users, custom-converted users, assistants with 0–3
// tool calls (ids drawn from a small pool with clashing spellings, some repeated, any
// stopReason) and tool results in random places, some without ids or with unknown ones.
func adversarial(r *rand.Rand, n int) []hygiene.Message {
	pool := []string{"call_1", "call-1", "call1", "toolu_01A", "functions.exec:0", "call_1|fc_2", "x", "a_b", "call_abcdefghij", "call_abcdefghik"}
	stops := []string{"stop", "toolUse", "toolUse", "error", "aborted", "length"}
	var out []hygiene.Message
	for i := 0; i < n; i++ {
		var m hygiene.Message
		switch k := r.IntN(10); {
		case k < 3:
			var content any = "u"
			if r.IntN(2) == 0 {
				content = []any{map[string]any{"type": "text", "text": "u"}}
			}
			m = hygiene.Message{"role": "user", "content": content}
		case k < 6:
			var blocks []any
			if r.IntN(3) > 0 {
				blocks = append(blocks, map[string]any{"type": "text", "text": []string{"t", " ", ""}[r.IntN(3)]})
			}
			if r.IntN(4) == 0 {
				blocks = append(blocks, map[string]any{"type": "thinking", "thinking": "th", "thinkingSignature": "QUJD"})
			}
			for c := r.IntN(4); c > 0; c-- {
				call := map[string]any{"type": []string{"toolCall", "toolCall", "toolUse", "functionCall"}[r.IntN(4)],
					"id": pool[r.IntN(len(pool))], "name": []string{"read", "exec", " exec ", "bad name"}[r.IntN(4)]}
				if r.IntN(6) > 0 {
					call["arguments"] = map[string]any{"p": json.Number("1")}
				}
				blocks = append(blocks, call)
			}
			m = hygiene.Message{"role": "assistant", "content": blocks, "stopReason": stops[r.IntN(len(stops))],
				"usage": map[string]any{"input": json.Number("3"), "output": json.Number("1")}}
		default:
			m = hygiene.Message{"role": "toolResult", "toolName": "read",
				"content": []any{map[string]any{"type": "text", "text": "r"}}, "isError": false}
			if r.IntN(8) > 0 {
				m["toolCallId"] = pool[r.IntN(len(pool))]
			}
		}
		m[hygiene.RefKey] = fmt.Sprintf("g%d", i)
		out = append(out, m)
	}
	return out
}

type invariant struct {
	name                 string
	provider, api, model string
	check                func([]hygiene.Message) error
}

var invariants = []invariant{
	{"anthropic", "anthropic", "anthropic-messages", "claude-sonnet-4-5", hygiene.CheckAnthropic},
	{"google", "google", "google-generative-ai", "gemini-2.5-pro", hygiene.CheckGemini},
	{"mistral", "mistral", "openai-completions", "mistral-large-latest", hygiene.CheckMistral},
}

// TestInvariantsAdversarial: after hygiene, each provider's invariants hold for random
// orderings of calls, results and users, with both pairing algorithms.
func TestInvariantsAdversarial(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, alg := range []hygiene.Pairing{hygiene.PairingClassic, hygiene.PairingFrames} {
		for _, inv := range invariants {
			p := hygiene.Resolve(inv.provider, inv.api, inv.model, hygiene.EraSingleFile)
			fails, rawFails := 0, 0
			for s := 0; s < 1500; s++ {
				msgs := adversarial(r, 1+r.IntN(30))
				if inv.check(msgs) != nil {
					rawFails++
				}
				out, _ := hygiene.Sanitize(msgs, p, hygiene.Options{NowMs: now, Pairing: alg, Usage: hygiene.UsageOptions{SummaryIndex: -1}})
				if err := inv.check(out); err != nil {
					if fails++; fails <= 3 {
						b, _ := json.Marshal(hygiene.Strip(msgs))
						t.Errorf("%s/%s session %d: %v\ninput: %s", inv.name, alg, s, err, b)
					}
				}
			}
			if fails > 0 {
				t.Errorf("%s/%s: %d of 1500 sessions break the invariant", inv.name, alg, fails)
			}
			if rawFails < 750 {
				t.Errorf("%s/%s: only %d of 1500 generated sessions break the invariant before hygiene: the generator is too tame", inv.name, alg, rawFails)
			}
		}
	}
}

// TestCheckersCatchViolations: the checkers fail on histories that break each rule, so a
// passing property test means something.
func TestCheckersCatchViolations(t *testing.T) {
	for _, tc := range []struct {
		name  string
		check func([]hygiene.Message) error
		in    string
	}{
		{"anthropic unpaired call", hygiene.CheckAnthropic, `{"role":"assistant","content":[{"type":"toolCall","id":"a","name":"x","arguments":{}}],"stopReason":"toolUse"}
{"role":"user","content":"u"}`},
		{"anthropic orphan", hygiene.CheckAnthropic, `{"role":"user","content":"u"}
{"role":"toolResult","toolCallId":"a","content":[]}`},
		{"anthropic consecutive users", hygiene.CheckAnthropic, `{"role":"user","content":"u"}
{"role":"user","content":"v"}`},
		{"gemini assistant first", hygiene.CheckGemini, `{"role":"assistant","content":[]}`},
		{"gemini consecutive assistants", hygiene.CheckGemini, `{"role":"user","content":"u"}
{"role":"assistant","content":[]}
{"role":"assistant","content":[]}`},
		{"mistral long id", hygiene.CheckMistral, `{"role":"assistant","content":[{"type":"toolCall","id":"abcdefghij","name":"x","arguments":{}}]}
{"role":"toolResult","toolCallId":"abcdefghij","content":[]}`},
		{"mistral result of another call", hygiene.CheckMistral, `{"role":"assistant","content":[{"type":"toolCall","id":"abcdefghi","name":"x","arguments":{}}]}
{"role":"toolResult","toolCallId":"abcdefghj","content":[]}`},
	} {
		if err := tc.check(parse(t, tc.in)); err == nil {
			t.Errorf("%s: checker accepted a violating history", tc.name)
		}
	}
}

package hygiene_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/hygiene"
)

const now = int64(1000)

// parse reads one JSON message per line and tags each with its line index as ref.
func parse(t *testing.T, lines string) []hygiene.Message {
	t.Helper()
	var out []hygiene.Message
	for i, l := range strings.Split(strings.TrimSpace(lines), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		m, err := hygiene.Decode([]byte(l))
		if err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, l)
		}
		m[hygiene.RefKey] = fmt.Sprintf("m%d", i)
		out = append(out, m)
	}
	return out
}

// norm turns messages into plain JSON values for comparison (json.Number and float agree).
func norm(t *testing.T, msgs []hygiene.Message) []any {
	t.Helper()
	b, err := json.Marshal(hygiene.Strip(msgs))
	if err != nil {
		t.Fatal(err)
	}
	var v []any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if v == nil {
		v = []any{}
	}
	return v
}

func check(t *testing.T, got []hygiene.Message, want string) {
	t.Helper()
	if diff := cmp.Diff(norm(t, parse(t, want)), norm(t, got)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

type fn func([]hygiene.Message) ([]hygiene.Message, hygiene.Step)

// TestSpecExamples runs every before/after example of transcript.md §4 and §6 through the
// sanitizer it documents.
func TestSpecExamples(t *testing.T) {
	classic := func(m []hygiene.Message) ([]hygiene.Message, hygiene.Step) {
		return hygiene.RepairPairing(m, hygiene.PairingClassic, hygiene.MissingToolResultText, now)
	}
	frames := func(m []hygiene.Message) ([]hygiene.Message, hygiene.Step) {
		return hygiene.RepairPairing(m, hygiene.PairingFrames, hygiene.MissingToolResultText, now)
	}
	inputs := func(m []hygiene.Message) ([]hygiene.Message, hygiene.Step) {
		return hygiene.SanitizeToolCallInputs(m, nil)
	}
	strict := func(m []hygiene.Message) ([]hygiene.Message, hygiene.Step) {
		return hygiene.SanitizeToolCallIDs(m, "strict", now)
	}
	syn := func(id, name string) string {
		return `{"role":"toolResult","toolCallId":"` + id + `","toolName":"` + name + `","content":[{"type":"text","text":"` + hygiene.MissingToolResultText + `"}],"isError":true,"timestamp":1000,"details":{"openclawSyntheticMissingToolResult":true,"reason":"missing_tool_result"}}`
	}
	full := hygiene.Resolve("anthropic", "anthropic-messages", "claude-x", hygiene.EraSingleFile)
	googleP := hygiene.Resolve("google", "google-generative-ai", "gemini-2.5-pro", hygiene.EraSingleFile)
	for _, tc := range []struct {
		name        string
		f           fn
		in, want    string
		wantChanged int
	}{
		{"4.2 input-less call removes the message", inputs,
			`{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"read"}]}`,
			``, 2},
		{"4.2 input-less call dropped, others kept", inputs,
			`{"role":"assistant","content":[{"type":"text","text":"before"},{"type":"toolUse","id":"c2","name":"read","input":{"path":"a"}},{"type":"toolCall","id":"c3","name":"read"}]}`,
			`{"role":"assistant","content":[{"type":"text","text":"before"},{"type":"toolUse","id":"c2","name":"read","input":{"path":"a"}}]}`, 1},
		{"4.2 bad characters in the name", inputs,
			`{"role":"assistant","content":[{"type":"text","text":"t"},{"type":"toolCall","id":"x","name":"toolu_01abc <|tool_call_argument_begin|> {\"command\"","arguments":{}}]}`,
			`{"role":"assistant","content":[{"type":"text","text":"t"}]}`, 1},
		{"4.2 name trimmed, empty object counts as input", inputs,
			`{"role":"assistant","content":[{"type":"toolCall","id":"a","name":" read ","arguments":{}}]}`,
			`{"role":"assistant","content":[{"type":"toolCall","id":"a","name":"read","arguments":{}}]}`, 1},
		{"4.2 already empty assistant kept", inputs,
			`{"role":"assistant","content":[]}`, `{"role":"assistant","content":[]}`, 0},
		{"4.2 sessions_spawn attachments redacted", inputs,
			`{"role":"assistant","content":[{"type":"toolCall","id":"s","name":"sessions_spawn","arguments":{"attachments":[{"name":"a","content":"secret"}]}}]}`,
			`{"role":"assistant","content":[{"type":"toolCall","id":"s","name":"sessions_spawn","arguments":{"attachments":[{"name":"a","content":"__OPENCLAW_REDACTED__"}]}}]}`, 1},

		{"4.3 displaced and missing", classic, `
{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"read","arguments":{}},{"type":"toolCall","id":"call_2","name":"exec","arguments":{}}],"stopReason":"toolUse"}
{"role":"user","content":"user text"}
{"role":"toolResult","toolCallId":"call_2","toolName":"exec","content":[{"type":"text","text":"ok"}],"isError":false}`, `
{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"read","arguments":{}},{"type":"toolCall","id":"call_2","name":"exec","arguments":{}}],"stopReason":"toolUse"}
` + syn("call_1", "read") + `
{"role":"toolResult","toolCallId":"call_2","toolName":"exec","content":[{"type":"text","text":"ok"}],"isError":false}
{"role":"user","content":"user text"}`, 2},
		{"4.3 duplicate across transcript", classic, `
{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"read","arguments":{}}],"stopReason":"toolUse"}
{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":"first"}],"isError":false}
{"role":"assistant","content":[{"type":"text","text":"ok"}],"stopReason":"stop"}
{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":"second"}],"isError":false}`, `
{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"read","arguments":{}}],"stopReason":"toolUse"}
{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":"first"}],"isError":false}
{"role":"assistant","content":[{"type":"text","text":"ok"}],"stopReason":"stop"}`, 1},
		{"4.3 orphan", classic, `
{"role":"user","content":"hello"}
{"role":"toolResult","toolCallId":"call_orphan","toolName":"x","content":[],"isError":false}
{"role":"assistant","content":[{"type":"text","text":"ok"}]}`, `
{"role":"user","content":"hello"}
{"role":"assistant","content":[{"type":"text","text":"ok"}]}`, 1},
		{"4.3 aborted gets no synthetic result", classic, `
{"role":"assistant","content":[{"type":"toolCall","id":"call_x","name":"exec","arguments":{}}],"stopReason":"aborted"}
{"role":"toolResult","toolCallId":"call_x","toolName":"exec","content":[{"type":"text","text":"partial"}],"isError":false}
{"role":"user","content":"retrying"}`, `
{"role":"assistant","content":[{"type":"toolCall","id":"call_x","name":"exec","arguments":{}}],"stopReason":"aborted"}
{"role":"user","content":"retrying"}`, 1},
		{"4.3 toolUse without result", classic, `
{"role":"assistant","content":[{"type":"toolCall","id":"call_n","name":"exec","arguments":{}}],"stopReason":"toolUse"}
{"role":"user","content":"msg"}`, `
{"role":"assistant","content":[{"type":"toolCall","id":"call_n","name":"exec","arguments":{}}],"stopReason":"toolUse"}
` + syn("call_n", "exec") + `
{"role":"user","content":"msg"}`, 1},
		{"4.3 result name normalized", classic, `
{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"exec","arguments":{}}],"stopReason":"toolUse"}
{"role":"toolResult","toolCallId":"c","toolName":"  ","content":[],"isError":false}`, `
{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"exec","arguments":{}}],"stopReason":"toolUse"}
{"role":"toolResult","toolCallId":"c","toolName":"exec","content":[],"isError":false}`, 1},

		{"4.4 frames: plain assistant does not end a frame", frames, `
{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"exec","arguments":{}}],"stopReason":"toolUse"}
{"role":"assistant","content":[{"type":"text","text":"still working"}],"stopReason":"stop"}
{"role":"toolResult","toolCallId":"c","toolName":"exec","content":[],"isError":false}`, `
{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"exec","arguments":{}}],"stopReason":"toolUse"}
{"role":"toolResult","toolCallId":"c","toolName":"exec","content":[],"isError":false}
{"role":"assistant","content":[{"type":"text","text":"still working"}],"stopReason":"stop"}`, 0},
		{"4.4 frames: repeated provider ids pair by occurrence", frames, `
{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"a","arguments":{}}],"stopReason":"toolUse"}
{"role":"toolResult","toolCallId":"c","toolName":"a","content":[{"type":"text","text":"1"}],"isError":false}
{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"a","arguments":{}}],"stopReason":"toolUse"}
{"role":"toolResult","toolCallId":"c","toolName":"a","content":[{"type":"text","text":"2"}],"isError":false}`, `
{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"a","arguments":{}}],"stopReason":"toolUse"}
{"role":"toolResult","toolCallId":"c","toolName":"a","content":[{"type":"text","text":"1"}],"isError":false}
{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"a","arguments":{}}],"stopReason":"toolUse"}
{"role":"toolResult","toolCallId":"c","toolName":"a","content":[{"type":"text","text":"2"}],"isError":false}`, 0},
		{"4.4 frames: legacy result without id adopted with isError", frames, `
{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"exec","arguments":{}}],"stopReason":"toolUse"}
{"role":"toolResult","toolName":"exec","content":[],"isError":false}`, `
{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"exec","arguments":{}}],"stopReason":"toolUse"}
{"role":"toolResult","toolCallId":"c","toolName":"exec","content":[],"isError":true}`, 1},
		{"4.4 frames: real duplicate replaces a synthetic one", frames, `
{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"exec","arguments":{}}],"stopReason":"toolUse"}
` + syn("c", "exec") + `
{"role":"toolResult","toolCallId":"c","toolName":"exec","content":[{"type":"text","text":"real"}],"isError":false}`, `
{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"exec","arguments":{}}],"stopReason":"toolUse"}
{"role":"toolResult","toolCallId":"c","toolName":"exec","content":[{"type":"text","text":"real"}],"isError":false}`, 1},
		{"4.4 frames: displaced result adopted by an earlier frame", frames, `
{"role":"assistant","content":[{"type":"toolCall","id":"a","name":"x","arguments":{}}],"stopReason":"toolUse"}
{"role":"assistant","content":[{"type":"toolCall","id":"b","name":"y","arguments":{}}],"stopReason":"toolUse"}
{"role":"toolResult","toolCallId":"b","toolName":"y","content":[],"isError":false}
{"role":"toolResult","toolCallId":"a","toolName":"x","content":[],"isError":false}`, `
{"role":"assistant","content":[{"type":"toolCall","id":"a","name":"x","arguments":{}}],"stopReason":"toolUse"}
{"role":"toolResult","toolCallId":"a","toolName":"x","content":[],"isError":false}
{"role":"assistant","content":[{"type":"toolCall","id":"b","name":"y","arguments":{}}],"stopReason":"toolUse"}
{"role":"toolResult","toolCallId":"b","toolName":"y","content":[],"isError":false}`, 1},
		{"4.4 frames: failed assistant dropped with its results", frames, `
{"role":"user","content":"go"}
{"role":"assistant","content":[{"type":"toolCall","id":"x","name":"exec","arguments":{}}],"stopReason":"aborted"}
{"role":"toolResult","toolCallId":"x","toolName":"exec","content":[],"isError":false}
{"role":"user","content":"retrying"}`, `
{"role":"user","content":"go"}
{"role":"user","content":"retrying"}`, 1},

		{"4.5 details stripped", hygiene.StripToolResultDetails,
			`{"role":"toolResult","toolCallId":"c","toolName":"x","content":[],"details":{"exitCode":0},"isError":false}`,
			`{"role":"toolResult","toolCallId":"c","toolName":"x","content":[],"isError":false}`, 1},

		{"6.1 inter-session marker (classic)", hygiene.AnnotateInterSession,
			`{"role":"user","content":"Build finished","provenance":{"kind":"inter_session","sourceSessionKey":"agent:w:main","sourceTool":"sessions_send"}}`,
			`{"role":"user","content":"[Inter-session message] sourceSession=agent:w:main sourceTool=sessions_send\nBuild finished","provenance":{"kind":"inter_session","sourceSessionKey":"agent:w:main","sourceTool":"sessions_send"}}`, 1},
		{"6.1 marker is idempotent and inserted when no text block", hygiene.AnnotateInterSession, `
{"role":"user","content":"[Inter-session message] x\nhi","provenance":{"kind":"inter_session"}}
{"role":"user","content":[{"type":"image","data":"AA==","mimeType":"image/png"}],"provenance":{"kind":"inter_session","sourceChannel":"telegram"}}
{"role":"user","content":"not routed","provenance":{"kind":"external_user"}}`, `
{"role":"user","content":"[Inter-session message] x\nhi","provenance":{"kind":"inter_session"}}
{"role":"user","content":[{"type":"text","text":"[Inter-session message] sourceChannel=telegram"},{"type":"image","data":"AA==","mimeType":"image/png"}],"provenance":{"kind":"inter_session","sourceChannel":"telegram"}}
{"role":"user","content":"not routed","provenance":{"kind":"external_user"}}`, 1},

		{"6.2 full mode drops blank text and an assistant left empty", func(m []hygiene.Message) ([]hygiene.Message, hygiene.Step) {
			return hygiene.SanitizeImages(m, full, hygiene.ImageOptions{})
		}, `
{"role":"assistant","content":[{"type":"text","text":"  "}],"stopReason":"stop"}
{"role":"assistant","content":[{"type":"text","text":"\n"},{"type":"text","text":"kept"}],"stopReason":"stop"}
{"role":"assistant","content":[{"type":"text","text":" "}],"stopReason":"error"}
{"role":"user","content":[{"type":"image","data":"","mimeType":"image/png"}]}`, `
{"role":"assistant","content":[{"type":"text","text":"kept"}],"stopReason":"stop"}
{"role":"assistant","content":[{"type":"text","text":" "}],"stopReason":"error"}
{"role":"user","content":[{"type":"text","text":"[session:history] omitted empty image payload"}]}`, 4},
		{"6.2 msg_ thought_signature removed by default", func(m []hygiene.Message) ([]hygiene.Message, hygiene.Step) {
			return hygiene.SanitizeImages(m, full, hygiene.ImageOptions{})
		}, `{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"x","arguments":{},"thought_signature":"msg_123","thoughtSignature":"msg_9"}]}`,
			`{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"x","arguments":{},"thoughtSignature":"msg_9"}]}`, 1},
		{"6.2 base64-only signatures for Google", func(m []hygiene.Message) ([]hygiene.Message, hygiene.Step) {
			return hygiene.SanitizeImages(m, googleP, hygiene.ImageOptions{})
		}, `{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"x","arguments":{},"thoughtSignature":"not base64!"},{"type":"toolCall","id":"d","name":"x","arguments":{},"thoughtSignature":"QUJD"}]}`,
			`{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"x","arguments":{}},{"type":"toolCall","id":"d","name":"x","arguments":{},"thoughtSignature":"QUJD"}]}`, 1},

		{"6.2 preserveSignatures keeps blank text beside thinking (Antigravity Claude)", func(m []hygiene.Message) ([]hygiene.Message, hygiene.Step) {
			p := hygiene.Resolve("google-antigravity", "google-antigravity", "claude-opus-4", hygiene.EraAntigravity)
			return hygiene.SanitizeImages(m, p, hygiene.ImageOptions{})
		}, `{"role":"assistant","content":[{"type":"thinking","thinking":"t","thought_signature":"msg_1"},{"type":"text","text":" "}]}
{"role":"assistant","content":[{"type":"text","text":" "},{"type":"text","text":"x"}]}`,
			`{"role":"assistant","content":[{"type":"thinking","thinking":"t","thought_signature":"msg_1"},{"type":"text","text":" "}]}
{"role":"assistant","content":[{"type":"text","text":"x"}]}`, 1},
		{"6.3 strict whole transcript", strict, `
{"role":"assistant","content":[{"type":"toolCall","id":"call_1|fc_9","name":"read","arguments":{}}]}
{"role":"toolResult","toolCallId":"call_1|fc_9","toolName":"read","content":[],"isError":false}`, `
{"role":"assistant","content":[{"type":"toolCall","id":"call1fc9","name":"read","arguments":{}}]}
{"role":"toolResult","toolCallId":"call1fc9","toolName":"read","content":[],"isError":false}`, 2},
		{"6.3 strict collision and repeated ids", strict, `
{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"a","arguments":{}},{"type":"toolCall","id":"call-1","name":"b","arguments":{}}]}
{"role":"toolResult","toolCallId":"call-1","toolName":"b","content":[],"isError":false}
{"role":"toolResult","toolCallId":"call_1","toolName":"a","content":[],"isError":false}
{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"a","arguments":{}}]}
{"role":"toolResult","toolCallId":"call_1","toolName":"a","content":[],"isError":false}`, `
{"role":"assistant","content":[{"type":"toolCall","id":"call1","name":"a","arguments":{}},{"type":"toolCall","id":"call1` + sha("call-1")[:8] + `","name":"b","arguments":{}}]}
{"role":"toolResult","toolCallId":"call1` + sha("call-1")[:8] + `","toolName":"b","content":[],"isError":false}
{"role":"toolResult","toolCallId":"call1","toolName":"a","content":[],"isError":false}
{"role":"assistant","content":[{"type":"toolCall","id":"call12","name":"a","arguments":{}}]}
{"role":"toolResult","toolCallId":"call12","toolName":"a","content":[],"isError":false}`, 6},

		{"6.4 antigravity thinking normalization", hygiene.NormalizeAntigravityThinking,
			`{"role":"assistant","content":[{"type":"thinking","thinking":"…","signature":"QUJD"},{"type":"thinking","thinking":"x"},{"type":"text","text":"hi"}]}`,
			`{"role":"assistant","content":[{"type":"thinking","thinking":"…","signature":"QUJD","thinkingSignature":"QUJD"},{"type":"text","text":"hi"}]}`, 2},
		{"6.5 thinking dropped except the latest assistant", hygiene.DropThinkingBlocks, `
{"role":"assistant","content":[{"type":"thinking","thinking":"a"}]}
{"role":"assistant","content":[{"type":"thinking","thinking":"b"},{"type":"text","text":"t"}]}
{"role":"user","content":"u"}
{"role":"assistant","content":[{"type":"thinking","thinking":"c"}]}`, `
{"role":"assistant","content":[{"type":"text","text":"[assistant reasoning omitted]"}]}
{"role":"assistant","content":[{"type":"text","text":"t"}]}
{"role":"user","content":"u"}
{"role":"assistant","content":[{"type":"thinking","thinking":"c"}]}`, 2},

		{"6.7 fc_ item id cut before reasoning", hygiene.DowngradeOpenAIReasoning, `
{"role":"assistant","content":[{"type":"toolCall","id":"call_A|fc_B","name":"exec","arguments":{}}]}
{"role":"toolResult","toolCallId":"call_A|fc_B","toolName":"exec","content":[],"isError":false}`, `
{"role":"assistant","content":[{"type":"toolCall","id":"call_A","name":"exec","arguments":{}}]}
{"role":"toolResult","toolCallId":"call_A","toolName":"exec","content":[],"isError":false}`, 2},
		{"6.7 standalone reasoning at the end dropped", hygiene.DowngradeOpenAIReasoning,
			`{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"thinking","thinking":"","thinkingSignature":"{\"id\":\"rs_1\",\"type\":\"reasoning\"}"}]}`,
			`{"role":"assistant","content":[{"type":"text","text":"hi"}]}`, 1},

		{"6.8 usage normalized and stale usage zeroed", func(m []hygiene.Message) ([]hygiene.Message, hygiene.Step) {
			return hygiene.NormalizeUsage(m, hygiene.UsageOptions{SummaryIndex: 0, SummaryTimestamp: 50})
		}, `
{"role":"user","content":"summary"}
{"role":"assistant","content":[],"usage":{"input":7,"output":1,"totalTokens":8},"timestamp":40}
{"role":"assistant","content":[],"usage":{"input":10,"output":5},"timestamp":60}`, `
{"role":"user","content":"summary"}
{"role":"assistant","content":[],"usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"timestamp":40}
{"role":"assistant","content":[],"usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15},"timestamp":60}`, 2},

		{"6.9 google bootstrap", func(m []hygiene.Message) ([]hygiene.Message, hygiene.Step) { return hygiene.GoogleTurnOrdering(m, now) }, `
{"role":"assistant","content":[{"type":"text","text":"Welcome back"}]}
{"role":"user","content":"hi"}`, `
{"role":"user","content":"(session bootstrap)","timestamp":1000}
{"role":"assistant","content":[{"type":"text","text":"Welcome back"}]}
{"role":"user","content":"hi"}`, 1},
		{"6.9 leading toolResult is not fixed", func(m []hygiene.Message) ([]hygiene.Message, hygiene.Step) { return hygiene.GoogleTurnOrdering(m, now) },
			`{"role":"toolResult","toolCallId":"c","content":[]}`, `{"role":"toolResult","toolCallId":"c","content":[]}`, 0},
		{"6.10 gemini merges consecutive assistants", hygiene.ValidateGeminiTurns, `
{"role":"assistant","content":[{"type":"text","text":"a"}],"stopReason":"stop"}
{"role":"assistant","content":[{"type":"text","text":"b"}],"stopReason":"toolUse"}`,
			`{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"stopReason":"toolUse"}`, 1},
		{"6.10 anthropic merges consecutive users (string content kept)", func(m []hygiene.Message) ([]hygiene.Message, hygiene.Step) {
			return hygiene.ValidateAnthropicTurns(m, hygiene.AnthropicTurnOptions{})
		}, `
{"role":"user","content":"a","timestamp":1}
{"role":"user","content":"b"}`,
			`{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"timestamp":1}`, 1},
		{"6.10 anthropic classic merge loses string content", func(m []hygiene.Message) ([]hygiene.Message, hygiene.Step) {
			return hygiene.ValidateAnthropicTurns(m, hygiene.AnthropicTurnOptions{ClassicStringMerge: true})
		}, `
{"role":"user","content":"a","timestamp":1}
{"role":"user","content":"b","timestamp":2}`,
			`{"role":"user","content":[],"timestamp":2}`, 1},
		{"6.10 dangling toolUse stripped before a user turn", func(m []hygiene.Message) ([]hygiene.Message, hygiene.Step) {
			return hygiene.ValidateAnthropicTurns(m, hygiene.AnthropicTurnOptions{})
		}, `
{"role":"assistant","content":[{"type":"toolUse","id":"t1","name":"x","input":{}},{"type":"toolUse","id":"t2","name":"y","input":{}}]}
{"role":"user","content":[{"type":"toolResult","toolUseId":"t1","content":"ok"}]}
{"role":"assistant","content":[{"type":"toolUse","id":"t3","name":"x","input":{}}]}
{"role":"user","content":"next"}`, `
{"role":"assistant","content":[{"type":"toolUse","id":"t1","name":"x","input":{}}]}
{"role":"user","content":[{"type":"toolResult","toolUseId":"t1","content":"ok"}]}
{"role":"assistant","content":[{"type":"text","text":"[tool calls omitted]"}]}
{"role":"user","content":"next"}`, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := parse(t, tc.in)
			before := norm(t, in)
			got, st := tc.f(in)
			check(t, got, tc.want)
			if st.Changed != tc.wantChanged {
				t.Errorf("step %s changed = %d, want %d (details %q)", st.Name, st.Changed, tc.wantChanged, st.Details)
			}
			if st.Changed != len(st.Details) {
				t.Errorf("changed %d but %d details", st.Changed, len(st.Details))
			}
			if diff := cmp.Diff(before, norm(t, in)); diff != "" {
				t.Errorf("input was mutated:\n%s", diff)
			}
		})
	}
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// TestSanitizeToolCallID covers the single-id examples of §6.3.
func TestSanitizeToolCallID(t *testing.T) {
	for _, tc := range []struct{ in, mode, want string }{
		{"call_abc-123", "strict", "callabc123"},
		{"toolu_01XYZ", "strict", "toolu01XYZ"},
		{"functions.exec:0", "strict", "functions.exec:0"},
		{"___", "strict", "sanitizedtoolid"},
		{"call_abcdefghij", "strict9", "callabcde"},
		{"ab_1", "strict9", sha("ab1")[:9]},
		{"--", "strict9", sha("sanitized")[:9]},
	} {
		if got := hygiene.SanitizeToolCallID(tc.in, true, tc.mode); got != tc.want {
			t.Errorf("SanitizeToolCallID(%q, %s) = %q, want %q", tc.in, tc.mode, got, tc.want)
		}
	}
	if got := hygiene.SanitizeToolCallID("", false, "strict"); got != "defaulttoolid" {
		t.Errorf("missing strict id = %q", got)
	}
	if got := hygiene.SanitizeToolCallID("", false, "strict9"); got != "defaultid" {
		t.Errorf("missing strict9 id = %q", got)
	}
}

// TestStrict9Collisions: ids that sanitize to the same 9 characters get sha256 seeds.
func TestStrict9Collisions(t *testing.T) {
	in := parse(t, `
{"role":"assistant","content":[{"type":"toolCall","id":"call_abcdefghij1","name":"a","arguments":{}},{"type":"toolCall","id":"call_abcdefghij2","name":"b","arguments":{}}]}
{"role":"toolResult","toolCallId":"call_abcdefghij2","toolName":"b","content":[],"isError":false}`)
	got, _ := hygiene.SanitizeToolCallIDs(in, "strict9", now)
	calls := hygiene.ToolCalls(got[0])
	if calls[0].ID != "callabcde" || calls[1].ID != sha("call_abcdefghij2:0")[:9] {
		t.Fatalf("ids = %q %q", calls[0].ID, calls[1].ID)
	}
	if id := hygiene.ResultID(got[1], false); id != calls[1].ID {
		t.Fatalf("result id %q does not follow its call %q", id, calls[1].ID)
	}
}

// TestWorkedExample is transcript.md §11: the Anthropic replay of a five-message path.
func TestWorkedExample(t *testing.T) {
	in := parse(t, `
{"role":"user","content":[{"type":"text","text":"list files"}],"timestamp":1}
{"role":"assistant","content":[{"type":"text","text":" "},{"type":"toolCall","id":"call-1","name":"exec ","arguments":{"cmd":"ls"}}],"stopReason":"toolUse","api":"anthropic-messages","provider":"anthropic","model":"claude-x","usage":{"input":10,"output":5},"timestamp":2}
{"role":"user","content":[{"type":"text","text":"hurry"}],"timestamp":3}
{"role":"toolResult","toolCallId":"call-1","toolName":"exec","content":[{"type":"text","text":"a b"}],"details":{"exitCode":0},"isError":false,"timestamp":4}
{"role":"user","content":[{"type":"text","text":"thanks"}],"timestamp":5}`)
	p := hygiene.Resolve("anthropic", "anthropic-messages", "claude-x", hygiene.EraSingleFile)
	got, steps := hygiene.Sanitize(in, p, hygiene.Options{NowMs: now, Usage: hygiene.UsageOptions{SummaryIndex: -1}})
	check(t, got, `
{"role":"user","content":[{"type":"text","text":"list files"}],"timestamp":1}
{"role":"assistant","content":[{"type":"toolCall","id":"call1","name":"exec","arguments":{"cmd":"ls"}}],"stopReason":"toolUse","api":"anthropic-messages","provider":"anthropic","model":"claude-x","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15},"timestamp":2}
{"role":"toolResult","toolCallId":"call1","toolName":"exec","content":[{"type":"text","text":"a b"}],"isError":false,"timestamp":4}
{"role":"user","content":[{"type":"text","text":"hurry"},{"type":"text","text":"thanks"}],"timestamp":5}`)
	changed := map[string]int{}
	for _, s := range steps {
		changed[s.Name] = s.Changed
	}
	want := map[string]int{"inter-session-provenance": 0, "tool-call-ids:strict": 2, "images-and-text:full": 1,
		"tool-call-inputs": 1, "tool-result-pairing:classic": 1, "strip-tool-result-details": 1, "usage": 1, "anthropic-turns": 1}
	if diff := cmp.Diff(want, changed); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
}

// TestLongMergeRuns: long runs of same-role turns merge into one message holding every block,
// extending the merged message in place (a quadratic copy would stall on 50k turns).
func TestLongMergeRuns(t *testing.T) {
	const n = 50000
	users := make([]hygiene.Message, n)
	asst := make([]hygiene.Message, n)
	for i := range users {
		users[i] = hygiene.Message{"role": "user", "content": "u", hygiene.RefKey: fmt.Sprintf("u%d", i)}
		asst[i] = hygiene.Message{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "a"}}}
	}
	u, st := hygiene.ValidateAnthropicTurns(users, hygiene.AnthropicTurnOptions{})
	if len(u) != 1 || len(u[0]["content"].([]any)) != n || st.Changed != n-1 || hygiene.Ref(u[0]) != "u0+…+u49999" {
		t.Errorf("users: %d messages, changed %d, ref %s", len(u), st.Changed, hygiene.Ref(u[0]))
	}
	a, st := hygiene.ValidateGeminiTurns(asst)
	if len(a) != 1 || len(a[0]["content"].([]any)) != n || st.Changed != n-1 {
		t.Errorf("assistants: %d messages, changed %d", len(a), st.Changed)
	}
	if len(asst[0]["content"].([]any)) != 1 || users[0]["content"] != "u" {
		t.Error("inputs were mutated")
	}
}

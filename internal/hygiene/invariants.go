package hygiene

import (
	"fmt"
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
)

// The checks below state what the providers require of a replayed history. Failed assistants
// (stopReason error or aborted) are left out first: pi-ai skips them when it converts the
// history for a provider, so their calls are never sent.

func sendable(msgs []Message) []Message {
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		if Role(m) == "assistant" && failed(m) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// CheckPairing reports the first tool call not followed by its result, or the first result
// that does not answer a call of the assistant right before its run of results.
func CheckPairing(msgs []Message) error {
	msgs = sendable(msgs)
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if Role(m) == "toolResult" {
			return fmt.Errorf("message %d (%s): orphan tool result %q", i, Ref(m), ResultID(m))
		}
		calls := ToolCalls(m)
		if len(calls) == 0 {
			continue
		}
		want := map[string]bool{}
		for _, c := range calls {
			want[c.ID] = true
		}
		got := map[string]bool{}
		j := i + 1
		for ; j < len(msgs) && Role(msgs[j]) == "toolResult"; j++ {
			id := ResultID(msgs[j])
			if !want[id] {
				return fmt.Errorf("message %d (%s): tool result %q answers no call of %s", j, Ref(msgs[j]), id, Ref(m))
			}
			if got[id] {
				return fmt.Errorf("message %d (%s): second tool result %q", j, Ref(msgs[j]), id)
			}
			got[id] = true
		}
		for _, c := range calls {
			if !got[c.ID] {
				return fmt.Errorf("message %d (%s): tool call %q is not followed by its result", i, Ref(m), c.ID)
			}
		}
		i = j - 1
	}
	return nil
}

// CheckAnthropic: every tool call followed by its results and no orphan results (failed
// assistants left out: pi-ai skips them). Consecutive user turns are allowed: the Messages
// API joins them, and OpenClaw sends them after every compaction (the summary, converted to
// a user message, followed by the kept user turn).
func CheckAnthropic(msgs []Message) error { return CheckPairing(msgs) }

// CheckGemini: the history starts with a user turn and model turns alternate (no two
// assistant messages in a row).
func CheckGemini(msgs []Message) error {
	if len(msgs) == 0 {
		return nil
	}
	if Role(msgs[0]) != "user" {
		return fmt.Errorf("message 0 (%s): history starts with %s, not a user turn", Ref(msgs[0]), Role(msgs[0]))
	}
	for i := 1; i < len(msgs); i++ {
		if Role(msgs[i]) == "assistant" && Role(msgs[i-1]) == "assistant" {
			return fmt.Errorf("messages %d and %d (%s, %s): consecutive assistant turns", i-1, i, Ref(msgs[i-1]), Ref(msgs[i]))
		}
	}
	return nil
}

var mistralID = lazyre.New(`^[A-Za-z0-9]{9}$`)

// CheckMistral: every tool-call and tool-result id is 9 alphanumerics, and results are still
// matched to their calls.
func CheckMistral(msgs []Message) error {
	for i, m := range msgs {
		for _, c := range ToolCalls(m) {
			if !mistralID.MatchString(c.ID) {
				return fmt.Errorf("message %d (%s): tool call id %q is not 9 alphanumerics", i, Ref(m), c.ID)
			}
		}
		if Role(m) == "toolResult" {
			if id := ResultID(m); !mistralID.MatchString(id) {
				return fmt.Errorf("message %d (%s): tool result id %q is not 9 alphanumerics", i, Ref(m), id)
			}
		}
	}
	return CheckPairing(msgs)
}

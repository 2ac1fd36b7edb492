package hygiene

import (
	"encoding/json"
	"fmt"
)

// Synthetic tool-result texts.
const (
	MissingToolResultText = "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair."
	AbortedToolResultText = "aborted" // OpenAI Responses family (Codex parity)
)

// SyntheticResult is makeMissingToolResult: the result OpenClaw inserts for a tool call that
// has none. From 2026.6.11 it carries details.openclawSyntheticMissingToolResult.
func SyntheticResult(call ToolCall, text string, nowMs int64, r Release) Message {
	name := call.Name
	if !call.HasName {
		name = "unknown"
	}
	m := Message{
		"role":       "toolResult",
		"toolCallId": call.ID,
		"toolName":   name,
		"content":    []any{textBlock(text)},
		"isError":    true,
		"timestamp":  json.Number(itoa(nowMs)),
		RefKey:       "synthetic:" + call.ID,
	}
	if r.atLeast(Release20260611) {
		m["details"] = map[string]any{"openclawSyntheticMissingToolResult": true}
	}
	return m
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// isSynthetic is isSyntheticMissingToolResult.
func isSynthetic(m Message) bool {
	if !truthy(m["isError"]) {
		return false
	}
	if d, ok := m["details"].(map[string]any); ok && d["openclawSyntheticMissingToolResult"] == true {
		return true
	}
	c, _ := m["content"].([]any)
	for _, v := range c {
		if b, ok := v.(map[string]any); ok && b["type"] == "text" && b["text"] == MissingToolResultText {
			return true
		}
	}
	return false
}

// normalizeResultName is normalizeToolResultName: a trimmed toolName, else the call's name,
// else "unknown" when toolName was a string.
func normalizeResultName(m Message, fallback string) Message {
	raw, isStr := m["toolName"].(string)
	if n := jsTrim(raw); isStr && n != "" {
		if raw == n {
			return m
		}
		c := clone(m)
		c["toolName"] = n
		return c
	}
	if f := jsTrim(fallback); f != "" {
		c := clone(m)
		c["toolName"] = f
		return c
	}
	if isStr {
		c := clone(m)
		c["toolName"] = "unknown"
		return c
	}
	return m
}

// legacyResultID is normalizeLegacyToolResultId (2026.6.11): a result without any id after
// an assistant with exactly one call (and no contradicting toolName) answers that call, as an
// error.
func legacyResultID(m Message, calls []ToolCall) Message {
	if resultID(m, DefaultRelease) != "" || len(calls) != 1 {
		return m
	}
	rn, cn := optString(m["toolName"]), jsTrim(calls[0].Name)
	if rn != "" && cn != "" && rn != cn {
		return m
	}
	c := clone(m)
	c["toolCallId"] = calls[0].ID
	c["isError"] = true
	return c
}

// PairingOptions are the options sanitizeToolUseResultPairing is called with.
type PairingOptions struct {
	DropErrored bool   // erroredAssistantResultPolicy "drop"
	MissingText string // "" for MissingToolResultText
}

// RepairPairing is repairToolUseResultPairing (src/agents/session-transcript-repair.ts): every
// tool call is followed by its results in call order, then the other messages of its span;
// free-floating results are dropped, duplicates dropped (a real one replacing a synthetic
// one), missing results synthesized. A result id already seen anywhere earlier is a
// duplicate, so a later assistant that reuses a call id loses its real result (see
// conformance.md, "reused tool-call ids").
//
// Release differences: up to 2026.4.24 a span ends at any assistant, results pair only by
// toolCallId/toolUseId, later matching results are not pulled back, a synthetic result is
// never replaced and a second result for the same call within its turn is not a change
// (alone, it leaves the transcript as it was); 2026.3.13 copies a failed assistant unchanged
// (its results become orphans) and has no errored-result policy.
func RepairPairing(msgs []Message, o PairingOptions, r Release, nowMs int64) ([]Message, Step) {
	st := Step{Name: "tool-result-pairing"}
	newest := r.atLeast(Release20260611)
	text := o.MissingText
	if text == "" || !r.atLeast(Release20260424) {
		text = MissingToolResultText
	}
	var out []Message
	var quiet []string
	seen := map[string]bool{}
	pos := map[string]int{}
	push := func(m Message) {
		id := resultID(m, r)
		if id != "" && seen[id] {
			if p, ok := pos[id]; ok && newest && isSynthetic(out[p]) && !isSynthetic(m) {
				out[p] = m
				st.note("%s: real tool result %q replaced a synthetic one", Ref(m), id)
				return
			}
			st.note("%s: duplicate tool result %q dropped", Ref(m), id)
			return
		}
		if id != "" {
			seen[id] = true
			pos[id] = len(out)
		}
		out = append(out, m)
	}
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m == nil {
			out = append(out, m)
			continue
		}
		if Role(m) != "assistant" {
			if Role(m) != "toolResult" {
				out = append(out, m)
			} else {
				st.note("%s: orphan tool result %q dropped", Ref(m), resultID(m, r))
			}
			continue
		}
		failed := StopReason(m) == "error" || StopReason(m) == "aborted"
		if failed && !r.atLeast(Release20260424) {
			out = append(out, m)
			continue
		}
		calls := toolCalls(m)
		if len(calls) == 0 {
			out = append(out, m)
			continue
		}
		ids := map[string]bool{}
		names := map[string]string{}
		for _, c := range calls {
			ids[c.ID] = true
			if c.HasName || !newest {
				names[c.ID] = c.Name
			}
		}
		span := map[string]Message{}
		var remainder []Message
		j := i + 1
		for ; j < len(msgs); j++ {
			next := msgs[j]
			if next == nil {
				remainder = append(remainder, next)
				continue
			}
			role := Role(next)
			if role == "assistant" {
				if !newest || len(toolCalls(next)) > 0 {
					break
				}
				remainder = append(remainder, next)
				continue
			}
			if role == "toolResult" {
				res := next
				if newest {
					res = legacyResultID(next, calls)
				}
				id := resultID(res, r)
				if newest && id != "" && seen[id] {
					push(normalizeResultName(res, names[id]))
					continue
				}
				if id != "" && ids[id] {
					if !newest && seen[id] {
						st.note("%s: duplicate tool result %q dropped", Ref(next), id)
						continue
					}
					nr := normalizeResultName(res, names[id])
					if !same(nr, next) {
						st.note("%s: tool result %q normalised", Ref(next), id)
					}
					if prev, ok := span[id]; !ok {
						span[id] = nr
					} else if newest && isSynthetic(prev) && !isSynthetic(nr) {
						span[id] = nr
						st.note("%s: real tool result %q replaced a synthetic one", Ref(next), id)
					} else if newest {
						st.note("%s: second tool result %q in the same turn dropped", Ref(next), id)
					} else {
						// Up to 2026.4.24 this drop does not count as a change: when it is the
						// only one, the transcript goes out unrepaired, duplicate included.
						quiet = append(quiet, fmt.Sprintf("%s: second tool result %q in the same turn dropped", Ref(next), id))
					}
					continue
				}
				st.note("%s: orphan tool result %q dropped", Ref(next), id)
				continue
			}
			remainder = append(remainder, next)
		}
		if failed {
			if !o.DropErrored {
				out = append(out, m)
				for _, c := range calls {
					if res, ok := span[c.ID]; ok {
						push(res)
					}
				}
			} else {
				st.note("%s: failed assistant (stopReason %s) and its %d tool result(s) dropped", Ref(m), StopReason(m), len(span))
			}
			out = append(out, remainder...)
			i = j - 1
			continue
		}
		out = append(out, m)
		if len(span) > 0 && len(remainder) > 0 {
			st.note("%s: tool results moved before %d other message(s)", Ref(m), len(remainder))
		}
		var later map[string]Message
		if newest {
			later = laterResults(msgs, j, calls, names, seen)
		}
		for _, c := range calls {
			if res, ok := span[c.ID]; ok {
				push(res)
			} else if res, ok := later[c.ID]; ok {
				delete(later, c.ID)
				st.note("%s: later tool result %q moved back to its call", Ref(res), c.ID)
				push(res)
			} else {
				st.note("%s: synthetic result inserted for tool call %q", Ref(m), c.ID)
				push(SyntheticResult(c, text, nowMs, r))
			}
		}
		out = append(out, remainder...)
		i = j - 1
	}
	if st.Changed == 0 {
		return msgs, st
	}
	st.Details = append(st.Details, quiet...)
	st.Changed += len(quiet)
	if out == nil {
		out = []Message{}
	}
	return out, st
}

// laterResults is collectLaterMatchingToolResults: the first not-yet-seen result for each
// call found anywhere after the span.
func laterResults(msgs []Message, start int, calls []ToolCall, names map[string]string, seen map[string]bool) map[string]Message {
	out := map[string]Message{}
	ids := map[string]bool{}
	for _, c := range calls {
		ids[c.ID] = true
	}
	for _, m := range msgs[start:] {
		if m == nil || Role(m) != "toolResult" {
			continue
		}
		res := legacyResultID(m, calls)
		id := resultID(res, DefaultRelease)
		if id == "" || !ids[id] || seen[id] {
			continue
		}
		if _, ok := out[id]; ok {
			continue
		}
		out[id] = normalizeResultName(res, names[id])
	}
	return out
}

// StripToolResultDetails removes the details key from every toolResult.
func StripToolResultDetails(msgs []Message) ([]Message, Step) {
	st := Step{Name: "strip-tool-result-details"}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		if Role(m) != "toolResult" {
			continue
		}
		if _, ok := m["details"]; !ok {
			continue
		}
		c := clone(m)
		delete(c, "details")
		out[i] = c
		st.note("%s: toolResult details removed", Ref(m))
	}
	if st.Changed == 0 {
		return msgs, st
	}
	return out, st
}

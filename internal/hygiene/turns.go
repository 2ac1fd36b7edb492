package hygiene

import (
	"encoding/json"
	"strings"
)

// Turn-ordering constants.
const (
	GoogleBootstrapText = "(session bootstrap)"
	ToolCallsOmitted    = "[tool calls omitted]"
)

// GoogleTurnOrdering is sanitizeGoogleAssistantFirstOrdering: a history that starts with an
// assistant gets a "(session bootstrap)" user turn in front (unless it already starts with
// that turn).
func GoogleTurnOrdering(msgs []Message, nowMs int64) ([]Message, Step) {
	st := Step{Name: "google-turn-ordering"}
	if len(msgs) == 0 || Role(msgs[0]) != "assistant" {
		return msgs, st
	}
	boot := Message{"role": "user", "content": GoogleBootstrapText, "timestamp": json.Number(itoa(nowMs)), RefKey: "bootstrap"}
	st.note("user %q prepended before the leading assistant %s", GoogleBootstrapText, Ref(msgs[0]))
	return append([]Message{boot}, msgs...), st
}

// mergeTurns is validateTurnsWithConsecutiveMerge: a message of role that follows a pushed
// message of the same role is merged into it. Role-less messages are pushed without updating
// the remembered role (so [A, {no role}, A] merges the second A into the role-less slot, as
// OpenClaw does). A slot holding a message that is not an object (a string, a number) is not
// merged into: OpenClaw's `typeof lastMsg === "object"` fails, so the later message is pushed
// after it and becomes the remembered role (mutation 9053 of seed 5: [A, "hello", A]). An
// array is an object to JavaScript: it is merged into, its elements spread as keys "0", "1", ...
func mergeTurns(msgs []Message, role string, merge func(prev, cur Message) Message, st *Step) []Message {
	if len(msgs) == 0 {
		return msgs
	}
	out := make([]Message, 0, len(msgs))
	last := ""
	for _, m := range msgs {
		if m == nil {
			out = append(out, m)
			continue
		}
		r := Role(m)
		if r == "" {
			out = append(out, m)
			continue
		}
		if r == last && last == role && len(out) > 0 && mergeable(out[len(out)-1]) {
			prev := spreadArray(out[len(out)-1])
			out[len(out)-1] = merge(prev, m)
			st.note("%s: merged into the previous %s %s", Ref(m), role, Ref(prev))
			continue
		}
		out = append(out, m)
		last = r
	}
	return out
}

// mergeable is `lastMsg && typeof lastMsg === "object"`: any object, an array too, but not a
// string, number or boolean message.
func mergeable(m Message) bool {
	if m == nil {
		return false
	}
	v, ok := m[ValueKey]
	if !ok {
		return true
	}
	_, isArray := v.([]any)
	return isArray
}

// spreadArray is what `{...previous}` makes of an array message: its elements under their
// indexes as keys. Other messages are returned as they are.
func spreadArray(m Message) Message {
	a, ok := m[ValueKey].([]any)
	if !ok {
		return m
	}
	out := Message{}
	for i, v := range a {
		out[itoa(int64(i))] = v
	}
	if ref, ok := m[RefKey]; ok {
		out[RefKey] = ref
	}
	return out
}

func arrayOrEmpty(v any) []any {
	if a, ok := v.([]any); ok {
		return a
	}
	return nil
}

// mergeAssistants is mergeConsecutiveAssistantTurns.
func mergeAssistants(prev, cur Message) Message {
	m := clone(prev)
	m["content"] = append(append([]any{}, arrayOrEmpty(prev["content"])...), arrayOrEmpty(cur["content"])...)
	for _, k := range []string{"usage", "stopReason", "errorMessage"} {
		if truthy(cur[k]) {
			m[k] = cur[k]
		}
	}
	m[RefKey] = mergedRef(Ref(prev), Ref(cur))
	return m
}

// mergeUsers is mergeConsecutiveUserTurns: the later message's fields, both contents (a string
// becomes a text block from 2026.6.11; before, it contributes nothing) and the later
// timestamp, else the earlier one.
func mergeUsers(r Release) func(prev, cur Message) Message {
	content := func(v any) []any {
		if s, ok := v.(string); ok && r.atLeast(Release20260611) {
			return []any{textBlock(s)}
		}
		return arrayOrEmpty(v)
	}
	return func(prev, cur Message) Message {
		m := clone(cur)
		m["content"] = append(append([]any{}, content(prev["content"])...), content(cur["content"])...)
		if cur["timestamp"] == nil {
			if ts, ok := prev["timestamp"]; ok {
				m["timestamp"] = ts
			} else {
				delete(m, "timestamp")
			}
		}
		m[RefKey] = mergedRef(Ref(prev), Ref(cur))
		return m
	}
}

// ValidateGeminiTurns is validateGeminiTurns: consecutive assistant messages are merged.
func ValidateGeminiTurns(msgs []Message) ([]Message, Step) {
	st := Step{Name: "gemini-turns"}
	return mergeTurns(msgs, "assistant", mergeAssistants, &st), st
}

// ValidateAnthropicTurns is validateAnthropicTurns: consecutive assistants merged
// (2026.6.11), dangling tool calls stripped, consecutive user messages merged.
func ValidateAnthropicTurns(msgs []Message, r Release) ([]Message, Step) {
	st := Step{Name: "anthropic-turns"}
	if r.atLeast(Release20260611) {
		msgs = mergeTurns(msgs, "assistant", mergeAssistants, &st)
	}
	if r.atLeast(Release20260424) {
		msgs = stripDanglingToolUses(msgs, r, &st)
	} else {
		msgs = stripDanglingToolUsesClassic(msgs, &st)
	}
	return mergeTurns(msgs, "user", mergeUsers(r), &st), st
}

// toolResultMatchIDs is extractToolResultMatchIds.
func toolResultMatchIDs(rec map[string]any) []string {
	var ids []string
	for _, k := range []string{"toolUseId", "toolCallId", "tool_use_id", "tool_call_id", "callId", "call_id"} {
		if id := optString(rec[k]); id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

func matchName(rec map[string]any) string {
	if n := optString(rec["toolName"]); n != "" {
		return n
	}
	return optString(rec["name"])
}

// futureResults collects, for the messages after index up to the next assistant, the result
// ids any form of tool result answers (collectFutureToolResultIds) and the trusted ones with
// their tool names (collectFutureToolResultMatches).
func futureResults(msgs []Message, index int, r Release) (ids map[string]bool, trusted map[string]map[string]bool) {
	ids, trusted = map[string]bool{}, map[string]map[string]bool{}
	addTrusted := func(list []string, name string) {
		for _, id := range list {
			if trusted[id] == nil {
				trusted[id] = map[string]bool{}
			}
			if name != "" {
				trusted[id][name] = true
			}
		}
	}
	for _, m := range msgs[index+1:] {
		if m == nil {
			continue
		}
		if Role(m) == "assistant" {
			break
		}
		switch Role(m) {
		case "toolResult":
			if id := resultID(m, r); id != "" {
				ids[id] = true
			}
			list := toolResultMatchIDs(m)
			if id := resultID(m, r); id != "" {
				list = append(list, id)
			}
			addTrusted(list, matchName(m))
		case "tool":
			for _, id := range toolResultMatchIDs(m) {
				ids[id] = true
			}
			addTrusted(toolResultMatchIDs(m), matchName(m))
		}
		for _, v := range arrayOrEmpty(m["content"]) {
			if b, ok := v.(map[string]any); ok && (b["type"] == "toolResult" || b["type"] == "tool") {
				for _, id := range toolResultMatchIDs(b) {
					ids[id] = true
				}
			}
		}
	}
	return ids, trusted
}

func omittedCalls(m Message) []any {
	if r := StopReason(m); r == "aborted" || r == "error" {
		return []any{}
	}
	return []any{textBlock(ToolCallsOmitted)}
}

// stripDanglingToolUses is stripDanglingAnthropicToolUses (2026.4.24 on): tool calls that no
// tool result before the next assistant answers are removed; an assistant with thinking keeps
// all its blocks only if every call is answered (by a result naming the same tool), else its
// content becomes "[tool calls omitted]" (nothing for a failed turn).
func stripDanglingToolUses(msgs []Message, r Release, st *Step) []Message {
	out := make([]Message, 0, len(msgs))
	for i, m := range msgs {
		c := arrayOrEmpty(m["content"])
		if m == nil || Role(m) != "assistant" || len(c) == 0 || len(toolCalls(m)) == 0 {
			out = append(out, m)
			continue
		}
		ids, trusted := futureResults(msgs, i, r)
		if hasThinkingBlock(c) {
			ok := true
			for _, v := range c {
				b, isObj := v.(map[string]any)
				if !isObj || !pairingCallTypes[str(b["type"])] {
					continue
				}
				id, name := optString(b["id"]), optString(b["name"])
				names, found := trusted[id]
				if id == "" || name == "" || !found || (len(names) > 0 && !names[name]) {
					ok = false
				}
			}
			if ok {
				out = append(out, m)
				continue
			}
			out = append(out, withContent(m, omittedCalls(m)))
			st.note("%s: thinking turn with unanswered tool calls replaced by %q", Ref(m), ToolCallsOmitted)
			continue
		}
		var kept []any
		for _, v := range c {
			if v == nil || v == false || v == "" {
				continue // !block
			}
			if f, isNum := numberOf(v); isNum && f == 0 {
				continue
			}
			b, isObj := v.(map[string]any)
			if !isObj || !pairingCallTypes[str(b["type"])] {
				kept = append(kept, v)
				continue
			}
			if id := optString(b["id"]); id != "" && ids[id] {
				kept = append(kept, v)
			}
		}
		if len(kept) == len(c) {
			out = append(out, m)
			continue
		}
		if len(kept) == 0 {
			out = append(out, withContent(m, omittedCalls(m)))
		} else {
			out = append(out, withContent(m, kept))
		}
		st.note("%s: %d unanswered tool call(s) stripped", Ref(m), len(c)-len(kept))
	}
	return out
}

// stripDanglingToolUsesClassic is stripDanglingAnthropicToolUses of 2026.3.13: for an
// assistant right before a user message, toolUse blocks whose id no toolResult block of that
// user message names are removed (and null blocks with them).
func stripDanglingToolUsesClassic(msgs []Message, st *Step) []Message {
	out := make([]Message, 0, len(msgs))
	for i, m := range msgs {
		if m == nil || Role(m) != "assistant" || i+1 >= len(msgs) || Role(msgs[i+1]) != "user" {
			out = append(out, m)
			continue
		}
		valid := map[string]bool{}
		for _, v := range arrayOrEmpty(msgs[i+1]["content"]) {
			if b, ok := v.(map[string]any); ok && b["type"] == "toolResult" && truthy(b["toolUseId"]) {
				if s, ok := b["toolUseId"].(string); ok {
					valid[s] = true
				}
			}
		}
		orig := arrayOrEmpty(m["content"])
		kept := []any{}
		for _, v := range orig {
			if !truthy(v) {
				continue
			}
			b, ok := v.(map[string]any)
			if !ok || b["type"] != "toolUse" {
				kept = append(kept, v)
				continue
			}
			if id, _ := b["id"].(string); valid[id] {
				kept = append(kept, v)
			}
		}
		if len(orig) > 0 && len(kept) == 0 {
			kept = []any{textBlock(ToolCallsOmitted)}
		}
		out = append(out, withContent(m, kept))
		if len(kept) != len(orig) {
			st.note("%s: dangling toolUse blocks stripped", Ref(m))
		}
	}
	return out
}

// mergedRef names a merge of messages: "a+b", and "a+…+z" once more than two are merged.
func mergedRef(prev, cur string) string {
	if i := strings.Index(prev, "+"); i >= 0 {
		return prev[:i] + "+…+" + cur
	}
	return prev + "+" + cur
}

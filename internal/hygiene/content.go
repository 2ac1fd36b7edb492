package hygiene

// StreamErrorFallbackText replaces the empty content of a failed assistant turn on replay.
const StreamErrorFallbackText = "[assistant turn failed before producing content]"

// transcriptOnlyModels are OpenClaw's transcript-only assistant rows (provider "openclaw"):
// they record deliveries and injected text, never model output.
var transcriptOnlyModels = map[string]bool{"delivery-mirror": true, "gateway-injected": true}

func transcriptOnlyAssistant(m Message) bool {
	p, _ := m["provider"].(string)
	model, ok := m["model"].(string)
	return Role(m) == "assistant" && p == "openclaw" && ok && transcriptOnlyModels[model]
}

// NormalizeReplayContent is normalizeAssistantReplayContent. From 2026.6.11 it
//   - drops blank text blocks of user messages (and a user message left empty);
//   - drops OpenClaw's transcript-only assistant rows (delivery mirrors, injected text);
//   - strips OpenClaw's internal metadata from assistant text and drops silent (NO_REPLY) text;
//   - drops reasoning-only assistant turns cut off by the length limit;
//   - replaces the empty content of a failed or empty zero-usage turn with the fallback text;
//   - drops such fallback-only assistant turns at the end of the history.
//
// 2026.4.24 only turns an assistant's string content into a text block; 2026.3.13 has no such
// step (the pipeline skips it).
func NormalizeReplayContent(msgs []Message, r Release) ([]Message, Step) {
	st := Step{Name: "assistant-replay-content"}
	if !r.atLeast(Release20260611) {
		out := msgs
		copied := false
		for i, m := range msgs {
			if s, ok := m["content"].(string); ok && Role(m) == "assistant" {
				if !copied {
					out, copied = append([]Message(nil), msgs...), true
				}
				out[i] = withContent(m, []any{map[string]any{"type": "text", "text": s}})
				st.note("%s: string content turned into a text block", Ref(m))
			}
		}
		return out, st
	}
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		if Role(m) == "user" {
			um := sanitizeUserReplayContent(m)
			if um == nil {
				st.note("%s: user message with only blank text dropped", Ref(m))
				continue
			}
			if !same(um, m) {
				st.note("%s: blank text blocks dropped", Ref(m))
			}
			out = append(out, um)
			continue
		}
		if m == nil || Role(m) != "assistant" {
			out = append(out, m)
			continue
		}
		if transcriptOnlyAssistant(m) {
			st.note("%s: transcript-only OpenClaw row (%v) dropped", Ref(m), m["model"])
			continue
		}
		am := m
		switch c := m["content"].(type) {
		case string:
			if n := replayTextContent(m, c); n != nil {
				out = append(out, n)
				st.note("%s: string content turned into a text block", Ref(m))
			} else {
				st.note("%s: blank or silent (NO_REPLY) assistant text dropped", Ref(m))
			}
			continue
		case []any:
		default:
			var content []any
			if isObject(c) {
				content = []any{c}
			} else {
				content = []any{}
			}
			am = withContent(m, content)
			st.note("%s: non-array content normalised", Ref(m))
		}
		content, _ := am["content"].([]any)
		n := replayBlockContent(am, content)
		if n == nil {
			st.note("%s: assistant with only silent or metadata text dropped", Ref(m))
			continue
		}
		if !same(n, am) {
			st.note("%s: internal metadata or silent text removed", Ref(m))
			am = n
		}
		if reasoningOnlyLengthTurn(am) {
			st.note("%s: reasoning-only turn cut off by the length limit dropped", Ref(m))
			continue
		}
		if c, ok := am["content"].([]any); ok && len(c) == 0 {
			if StopReason(am) == "error" || zeroUsageEmptyStop(am) {
				out = append(out, withContent(am, []any{map[string]any{"type": "text", "text": StreamErrorFallbackText}}))
				st.note("%s: empty failed turn given the fallback text", Ref(m))
				continue
			}
		}
		out = append(out, am)
	}
	for len(out) > 0 && droppableTrailingAssistant(out[len(out)-1]) {
		st.note("%s: trailing failed assistant turn dropped", Ref(out[len(out)-1]))
		out = out[:len(out)-1]
	}
	if st.Changed == 0 {
		return msgs, st
	}
	return out, st
}

// sanitizeUserReplayContent is sanitizeUserReplayContent: nil means "drop the message".
func sanitizeUserReplayContent(m Message) Message {
	switch c := m["content"].(type) {
	case string:
		if jsTrim(c) == "" {
			return nil
		}
		return m
	case []any:
		var kept []any
		touched := false
		for _, v := range c {
			if b, ok := v.(map[string]any); ok && b["type"] == "text" {
				if s, ok := b["text"].(string); ok && jsTrim(s) == "" {
					touched = true
					continue
				}
			}
			kept = append(kept, v)
		}
		if len(kept) == 0 {
			return nil
		}
		if touched {
			return withContent(m, kept)
		}
	}
	return m
}

// replayTextContent is normalizeAssistantReplayTextContent (nil: drop the message).
func replayTextContent(m Message, text string) Message {
	stripped := stripInternalMetadataForDisplay(text)
	t := jsTrim(stripped)
	if t == "" || silentReplyPayload(t) {
		return nil
	}
	return withContent(m, []any{map[string]any{"type": "text", "text": stripped}})
}

// replayBlockContent is normalizeAssistantReplayBlockContent (nil: drop the message).
func replayBlockContent(m Message, content []any) Message {
	touched := false
	var kept []any
	for _, v := range content {
		b, ok := v.(map[string]any)
		if !ok {
			kept = append(kept, v)
			continue
		}
		text, ok := b["text"].(string)
		if !ok {
			kept = append(kept, v)
			continue
		}
		stripped := stripInternalMetadataForDisplay(text)
		if stripped == text {
			if !silentReplyPayload(jsTrim(text)) {
				kept = append(kept, v)
			} else {
				touched = true
			}
			continue
		}
		touched = true
		if t := jsTrim(stripped); t != "" && !silentReplyPayload(t) {
			nb := clone(b)
			nb["text"] = stripped
			kept = append(kept, nb)
		}
	}
	if !touched {
		return m
	}
	if len(kept) == 0 {
		return nil
	}
	return withContent(m, kept)
}

// reasoningOnlyLengthTurn is isReasoningOnlyLengthAssistantTurn.
func reasoningOnlyLengthTurn(m Message) bool {
	if StopReason(m) != "length" || Role(m) != "assistant" {
		return false
	}
	var content []any
	switch c := m["content"].(type) {
	case []any:
		content = c
	default:
		if isObject(c) {
			content = []any{c}
		}
	}
	thinking := false
	for _, v := range content {
		b, ok := v.(map[string]any)
		if !ok {
			return false
		}
		switch b["type"] {
		case "thinking", "redacted_thinking":
			thinking = true
			continue
		case "text":
			if s, ok := b["text"].(string); ok && jsTrim(s) == "" {
				continue
			}
		}
		return false
	}
	return thinking
}

// zeroUsageEmptyStop is isZeroUsageEmptyStopAssistantTurn.
func zeroUsageEmptyStop(m Message) bool {
	c, ok := m["content"].([]any)
	return m != nil && StopReason(m) == "stop" && ok && len(c) == 0 && zeroTokenUsage(m["usage"])
}

// zeroTokenUsage is hasZeroTokenUsageSnapshot.
func zeroTokenUsage(v any) bool {
	u, ok := v.(map[string]any)
	if !ok {
		return false
	}
	var comps []float64
	for _, k := range []string{"input", "output", "cacheRead", "cacheWrite"} {
		if f, ok := finite(u[k]); ok {
			comps = append(comps, f)
		}
	}
	total := u["total"]
	if total == nil {
		total = u["totalTokens"]
	}
	if total == nil {
		total = u["total_tokens"]
	}
	if t, ok := finite(total); ok {
		if t != 0 {
			return false
		}
		for _, c := range comps {
			if c != 0 {
				return false
			}
		}
		return true
	}
	if len(comps) == 0 {
		return false
	}
	for _, c := range comps {
		if c != 0 {
			return false
		}
	}
	return true
}

// droppableTrailingAssistant is isReplayDroppableTrailingAssistant.
func droppableTrailingAssistant(m Message) bool {
	if Role(m) != "assistant" {
		return false
	}
	c, ok := m["content"].([]any)
	if !ok {
		return false
	}
	if len(c) == 0 {
		return StopReason(m) == "error" || zeroUsageEmptyStop(m)
	}
	if len(c) != 1 {
		return false
	}
	b, ok := c[0].(map[string]any)
	if !ok || b["type"] != "text" || b["text"] != StreamErrorFallbackText {
		return false
	}
	if StopReason(m) == "error" {
		return true
	}
	return StopReason(m) == "stop" && zeroTokenUsage(m["usage"])
}

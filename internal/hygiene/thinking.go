package hygiene

// ReasoningOmitted replaces the content of an assistant left empty by thinking removal.
const ReasoningOmitted = "[assistant reasoning omitted]"

func isThinking(v any) bool {
	b, ok := v.(map[string]any)
	return ok && (b["type"] == "thinking" || b["type"] == "redacted_thinking")
}

// assistantWithContent is isAssistantMessageWithContent.
func assistantWithContent(m Message) ([]any, bool) {
	c, ok := m["content"].([]any)
	return c, ok && Role(m) == "assistant"
}

func latestAssistantWithContent(msgs []Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if _, ok := assistantWithContent(msgs[i]); ok {
			return i
		}
	}
	return -1
}

func latestUser(msgs []Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if Role(msgs[i]) == "user" {
			return i
		}
	}
	return -1
}

func omittedReasoning() []any { return []any{textBlock(ReasoningOmitted)} }

// hasToolCallBlock is hasAssistantToolCall of the thinking helpers, whose isToolCallBlock
// knows toolCall, tool_use and function_call (not toolUse or functionCall).
func hasToolCallBlock(c []any) bool {
	for _, v := range c {
		if b, ok := v.(map[string]any); ok {
			switch b["type"] {
			case "toolCall", "tool_use", "function_call":
				return true
			}
		}
	}
	return false
}

func str(v any) string { s, _ := v.(string); return s }

// currentToolTurnReasoning is shouldPreserveCurrentToolTurnReasoning: the assistant at index
// is the first assistant of the latest user turn, calls tools and is answered by a tool
// result before any user message.
func currentToolTurnReasoning(msgs []Message, index, lastUser int) bool {
	c, ok := assistantWithContent(msgs[index])
	if index < lastUser || !ok || !hasToolCallBlock(c) {
		return false
	}
	for i := index - 1; i >= 0; i-- {
		switch Role(msgs[i]) {
		case "user":
			i = -1
		case "assistant":
			return false
		}
	}
	for i := index + 1; i < len(msgs); i++ {
		switch Role(msgs[i]) {
		case "toolResult":
			return true
		case "user":
			return false
		}
	}
	return false
}

// preserveLatestAssistantThinking is shouldPreserveLatestAssistantThinking.
func preserveLatestAssistantThinking(msgs []Message) bool {
	la := latestAssistantWithContent(msgs)
	if la < 0 {
		return false
	}
	if la == len(msgs)-1 {
		return true
	}
	return currentToolTurnReasoning(msgs, la, latestUser(msgs))
}

// StripStaleThinkingSignatures is stripStaleThinkingSignaturesForCompactionReplay: thinking
// blocks of assistant turns older than the latest compaction summary lose their signatures
// (the prefix they were signed over is gone, so Anthropic would reject them).
func StripStaleThinkingSignatures(msgs []Message) ([]Message, Step) {
	st := Step{Name: "stale-thinking-signatures"}
	latest, found := 0.0, false
	for _, m := range msgs {
		if Role(m) != "compactionSummary" {
			continue
		}
		if ts, ok := timestampMs(m["timestamp"]); ok && (!found || ts > latest) {
			latest, found = ts, true
		}
	}
	if !found {
		return msgs, st
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		c, ok := assistantWithContent(m)
		if !ok {
			continue
		}
		ts, ok := timestampMs(m["timestamp"])
		if !ok || ts >= latest {
			continue
		}
		var nc []any
		for j, v := range c {
			b, ok := v.(map[string]any)
			if !isThinking(v) || !(present(b, "thinkingSignature") || present(b, "signature") || present(b, "thought_signature") ||
				(b["type"] == "redacted_thinking" && present(b, "data"))) {
				continue
			}
			if nc == nil {
				nc = append([]any(nil), c...)
			}
			_ = ok
			nb := make(map[string]any, len(b))
			for k, x := range b {
				if k == "thinkingSignature" || k == "signature" || k == "thought_signature" || (k == "data" && b["type"] == "redacted_thinking") {
					continue
				}
				nb[k] = x
			}
			nc[j] = nb
		}
		if nc != nil {
			out[i] = withContent(m, nc)
			st.note("%s: thinking signatures from before the latest compaction removed", Ref(m))
		}
	}
	if st.Changed == 0 {
		return msgs, st
	}
	return out, st
}

// replayableThinkingSignature is hasReplayableThinkingSignature.
func replayableThinkingSignature(b map[string]any) bool {
	keys := []string{"signature", "thinkingSignature", "thought_signature"}
	if b["type"] == "redacted_thinking" {
		keys = append([]string{"data"}, keys...)
	}
	for _, k := range keys {
		if s, ok := b[k].(string); ok && jsTrim(s) != "" {
			return true
		}
	}
	return false
}

// StripInvalidThinkingSignatures is stripInvalidThinkingSignatures: thinking blocks without a
// signature are dropped from every assistant but (when preserveLatest) the latest one; an
// assistant left empty says "[assistant reasoning omitted]".
func StripInvalidThinkingSignatures(msgs []Message, preserveLatest bool) ([]Message, Step) {
	st := Step{Name: "unsigned-thinking"}
	la := -1
	if preserveLatest {
		la = latestAssistantWithContent(msgs)
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		c, ok := assistantWithContent(m)
		if !ok || i == la {
			continue
		}
		var nc []any
		dropped := 0
		for _, v := range c {
			if b, ok := v.(map[string]any); ok && isThinking(v) && !replayableThinkingSignature(b) {
				dropped++
				continue
			}
			nc = append(nc, v)
		}
		if dropped == 0 {
			continue
		}
		if len(nc) == 0 {
			nc = omittedReasoning()
		}
		out[i] = withContent(m, nc)
		st.note("%s: %d unsigned thinking block(s) dropped", Ref(m), dropped)
	}
	if st.Changed == 0 {
		return msgs, st
	}
	return out, st
}

// DropReasoningFromHistory is dropReasoningFromHistory: thinking blocks go from every
// assistant except the one running the current tool turn.
func DropReasoningFromHistory(msgs []Message) ([]Message, Step) {
	st := Step{Name: "drop-reasoning"}
	lu := latestUser(msgs)
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		c, ok := assistantWithContent(m)
		if !ok || currentToolTurnReasoning(msgs, i, lu) {
			continue
		}
		var nc []any
		for _, v := range c {
			if !isThinking(v) {
				nc = append(nc, v)
			}
		}
		if len(nc) == len(c) {
			continue
		}
		if len(nc) == 0 {
			nc = omittedReasoning()
		}
		out[i] = withContent(m, nc)
		st.note("%s: %d reasoning block(s) dropped", Ref(m), len(c)-len(nc))
	}
	if st.Changed == 0 {
		return msgs, st
	}
	return out, st
}

// DropThinkingBlocks is dropThinkingBlocks (policy.dropThinkingBlocks, e.g. Claude models that
// do not keep thinking natively). From 2026.4.24 the latest assistant keeps its thinking and
// redacted_thinking goes too; an emptied assistant gets "[assistant reasoning omitted]"
// (2026.4.24: an empty text block).
func DropThinkingBlocks(msgs []Message, r Release) ([]Message, Step) {
	st := Step{Name: "drop-thinking-blocks"}
	la := -1
	if r.atLeast(Release20260424) {
		la = latestAssistantWithContent(msgs)
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		c, ok := assistantWithContent(m)
		if !ok || i == la {
			continue
		}
		var nc []any
		for _, v := range c {
			drop := isThinking(v)
			if !r.atLeast(Release20260424) {
				b, ok := v.(map[string]any)
				drop = ok && b["type"] == "thinking"
			}
			if !drop {
				nc = append(nc, v)
			}
		}
		if len(nc) == len(c) {
			continue
		}
		if len(nc) == 0 {
			if r.atLeast(Release20260611) {
				nc = omittedReasoning()
			} else {
				nc = []any{textBlock("")}
			}
		}
		out[i] = withContent(m, nc)
		st.note("%s: %d thinking block(s) dropped", Ref(m), len(c)-len(nc))
	}
	if st.Changed == 0 {
		return msgs, st
	}
	return out, st
}

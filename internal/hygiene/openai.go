package hygiene

import (
	"fmt"
	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"strings"
)

// reasoningSignature is parseOpenAIReasoningSignature: a thinkingSignature that is (or is a
// string holding) a JSON object with an id starting "rs_" and a type "reasoning"/"reasoning.*".
func reasoningSignature(v any) bool {
	var obj map[string]any
	switch s := v.(type) {
	case map[string]any:
		obj = s
	case string:
		t := jsTrim(s)
		if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
			return false
		}
		o, ok := jsonParseObject(t)
		if !ok {
			return false
		}
		obj = o
	default:
		return false
	}
	id, _ := obj["id"].(string)
	typ, _ := obj["type"].(string)
	return strings.HasPrefix(id, "rs_") && (typ == "reasoning" || strings.HasPrefix(typ, "reasoning."))
}

func replayableReasoning(v any) bool {
	b, ok := v.(map[string]any)
	return ok && b["type"] == "thinking" && reasoningSignature(b["thinkingSignature"])
}

// DowngradeOpenAIReasoning is downgradeOpenAIReasoningBlocks: replayable reasoning with no
// following non-thinking block in its message is dropped (all of it when the model changed
// since the last snapshot, 2026.4.24 on; 2026.6.11 then also drops the msg_ id from text
// signatures, keeping the phase); an assistant left empty is dropped.
func DowngradeOpenAIReasoning(msgs []Message, dropAll bool, r Release) ([]Message, Step) {
	st := Step{Name: "openai-reasoning"}
	if !r.atLeast(Release20260424) {
		dropAll = false
	}
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		c, ok := m["content"].([]any)
		if m == nil || Role(m) != "assistant" || !ok {
			out = append(out, m)
			continue
		}
		var next []any
		changed, droppedAll := false, false
		for i, v := range c {
			if !replayableReasoning(v) {
				next = append(next, v)
				continue
			}
			if dropAll {
				changed, droppedAll = true, true
				continue
			}
			if followingNonThinking(c, i) {
				next = append(next, v)
				continue
			}
			changed = true
		}
		if !changed {
			out = append(out, m)
			continue
		}
		if len(next) == 0 {
			st.note("%s: assistant with only orphaned reasoning dropped", Ref(m))
			continue
		}
		if droppedAll && r.atLeast(Release20260611) {
			for i, v := range next {
				b, ok := v.(map[string]any)
				if !ok || b["type"] != "text" {
					continue
				}
				sig, has := b["textSignature"]
				if !has {
					continue
				}
				nb := clone(b)
				delete(nb, "textSignature")
				if s, ok := sig.(string); ok {
					if phase := textSignaturePhase(s); phase != "" {
						nb["textSignature"] = `{"v":1,"phase":"` + phase + `"}`
					}
				}
				next[i] = nb
			}
		}
		out = append(out, withContent(m, next))
		st.note("%s: replayable reasoning dropped", Ref(m))
	}
	if st.Changed == 0 {
		return msgs, st
	}
	return out, st
}

// textSignaturePhase is extractTextSignaturePhase.
func textSignaturePhase(sig string) string {
	if !strings.HasPrefix(sig, "{") {
		return ""
	}
	o, ok := jsonParseObject(sig)
	if !ok {
		return ""
	}
	if v, _ := numberOf(o["v"]); v != 1 {
		return ""
	}
	if p, _ := o["phase"].(string); p == "commentary" || p == "final_answer" {
		return p
	}
	return ""
}

// followingNonThinking is hasFollowingNonThinkingBlock.
func followingNonThinking(c []any, i int) bool {
	for _, v := range c[i+1:] {
		b, ok := v.(map[string]any)
		if !ok || b["type"] != "thinking" {
			return true
		}
	}
	return false
}

// splitPairing is splitOpenAIFunctionCallPairing: "<call_id>|<item_id>".
func splitPairing(id string) (call, item string, hasItem bool) {
	sep := strings.IndexByte(id, '|')
	if sep <= 0 || sep >= len(id)-1 {
		return id, "", false
	}
	return id[:sep], id[sep+1:], true
}

// DowngradeFunctionCallPairs is downgradeOpenAIFunctionCallReasoningPairs: a call whose item
// id starts "fc_" and comes before any replayable reasoning in its message loses the item
// part, and the tool results right after it follow.
func DowngradeFunctionCallPairs(msgs []Message) ([]Message, Step) {
	st := Step{Name: "openai-function-call-ids"}
	out := make([]Message, len(msgs))
	var pending map[string]string
	for i, m := range msgs {
		out[i] = m
		if m == nil {
			pending = nil
			continue
		}
		switch Role(m) {
		case "assistant":
			c, ok := m["content"].([]any)
			if !ok {
				pending = nil
				continue
			}
			local := map[string]string{}
			seenReasoning := false
			var nc []any
			for j, v := range c {
				b, ok := v.(map[string]any)
				if !ok {
					continue
				}
				if b["type"] == "thinking" && reasoningSignature(b["thinkingSignature"]) {
					seenReasoning = true
					continue
				}
				id, isStr := b["id"].(string)
				if !pairingCallTypes[str(b["type"])] || !isStr {
					continue
				}
				call, item, has := splitPairing(id)
				if seenReasoning || !has || !strings.HasPrefix(item, "fc_") {
					continue
				}
				if nc == nil {
					nc = append([]any(nil), c...)
				}
				nb := clone(b)
				nb["id"] = call
				nc[j] = nb
				local[id] = call
			}
			pending = nil
			if len(local) > 0 {
				pending = local
			}
			if nc != nil {
				out[i] = withContent(m, nc)
				st.note("%s: fc_ item ids cut from %d tool call id(s)", Ref(m), len(local))
			}
			continue
		case "toolResult":
			if len(pending) == 0 {
				break
			}
			var nm Message
			for _, k := range []string{"toolCallId", "toolUseId"} {
				if s, ok := m[k].(string); ok {
					if to, ok := pending[s]; ok && to != s {
						if nm == nil {
							nm = clone(m)
						}
						nm[k] = to
					}
				}
			}
			if nm != nil {
				out[i] = nm
				st.note("%s: tool result id follows its call", Ref(m))
			}
			continue
		}
		pending = nil
	}
	if st.Changed == 0 {
		return msgs, st
	}
	return out, st
}

var (
	responsesCallID = lazyre.New(`^call_[A-Za-z0-9_-]{1,59}$`)
	responsesItemID = lazyre.New(`^fc_[A-Za-z0-9_-]{1,61}$`)
	responsesTail   = lazyre.New(`[^A-Za-z0-9_-]`)
	edgeUnderscores = lazyre.New(`^_+|_+$`)
)

// normalizeResponsesPart is normalizeOpenAIResponsesIdPart.
func normalizeResponsesPart(value, prefix string, valid *lazyre.Regexp) string {
	t := jsTrim(value)
	if valid.MatchString(t) {
		return t
	}
	tail := strings.TrimPrefix(t, prefix)
	seed := t
	if seed == "" {
		seed = prefix
	}
	hash := "_" + shortHash(seed, 10)
	maxTail := 64 - len(prefix)
	// a lone surrogate is one character to the JS regular expression: one "_", as U+FFFD is
	clean := edgeUnderscores.ReplaceAllString(responsesTail.ReplaceAllString(jsonobj.ToUTF8(tail), "_"), "")
	clean = cutUTF16(clean, max(1, maxTail-len(hash)))
	if clean == "" {
		clean = "id"
	}
	return prefix + cutUTF16(clean+hash, maxTail)
}

// cutUTF16 is s.slice(0, n) for a string of ASCII characters (the only ones left here).
func cutUTF16(s string, n int) string { return cut(s, n) }

func normalizeResponsesID(id string) string {
	call, item, has := splitPairing(id)
	nc := normalizeResponsesPart(call, "call_", responsesCallID)
	if !has {
		return nc
	}
	return nc + "|" + normalizeResponsesPart(item, "fc_", responsesItemID)
}

func responsesIDNeedsNormalizing(id string) bool {
	call, item, has := splitPairing(id)
	if !responsesCallID.MatchString(call) {
		return true
	}
	return has && !responsesItemID.MatchString(item)
}

// NormalizeResponsesToolCallIDs is normalizeOpenAIResponsesToolCallIds (2026.6.11): call ids
// that do not fit the Responses call_*/fc_* shape (64 characters) get a normalized id, the
// same one for the call and its results.
func NormalizeResponsesToolCallIDs(msgs []Message) ([]Message, Step) {
	st := Step{Name: "openai-responses-ids"}
	rewritten := map[string]string{}
	resolve := func(id string) string {
		if v, ok := rewritten[id]; ok {
			return v
		}
		if !responsesIDNeedsNormalizing(id) {
			return id
		}
		v := normalizeResponsesID(id)
		rewritten[id] = v
		return v
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		switch Role(m) {
		case "assistant":
			c, ok := m["content"].([]any)
			if !ok {
				continue
			}
			var nc []any
			for j, v := range c {
				b, ok := v.(map[string]any)
				id, isStr := b["id"].(string)
				if !ok || !pairingCallTypes[str(b["type"])] || !isStr {
					continue
				}
				if nid := resolve(id); nid != id {
					if nc == nil {
						nc = append([]any(nil), c...)
					}
					nb := clone(b)
					nb["id"] = nid
					nc[j] = nb
					st.note("%s: tool call id %q -> %q", Ref(m), id, nid)
				}
			}
			if nc != nil {
				out[i] = withContent(m, nc)
			}
		case "toolResult":
			var nm Message
			for _, k := range []string{"toolCallId", "toolUseId"} {
				if s, ok := m[k].(string); ok {
					if n := resolve(s); n != s {
						if nm == nil {
							nm = clone(m)
						}
						nm[k] = n
					}
				}
			}
			if nm != nil {
				out[i] = nm
				st.note("%s: tool result id normalized", Ref(m))
			}
		}
	}
	if st.Changed == 0 {
		return msgs, st
	}
	return out, st
}

// ErrInvalidReplay is returned when OpenClaw's OpenAI Responses invariant would throw: the
// history still has a call without a result, or a result without its call, after repair.
type ErrInvalidReplay struct {
	Reason     string
	ToolCallID string
	Index      int
}

func (e *ErrInvalidReplay) Error() string {
	id := ""
	if e.ToolCallID != "" {
		id = " toolCallId=" + e.ToolCallID
	}
	return fmt.Sprintf("invalid_replay_transcript: OpenAI Responses replay contains %s%s at message index %d", e.Reason, id, e.Index)
}

// checkResponsesInvariant is assertOpenAIResponsesToolUseResultInvariant.
func checkResponsesInvariant(msgs []Message) error {
	var order []string          // pending call ids in insertion order (a JS Map)
	pending := map[string]int{} // id -> message index
	remove := func(id string) {
		delete(pending, id)
		for k, x := range order {
			if x == id {
				order = append(order[:k:k], order[k+1:]...)
				break
			}
		}
	}
	dangling := func() error {
		return &ErrInvalidReplay{Reason: "dangling_tool_call", ToolCallID: order[0], Index: pending[order[0]]}
	}
	for i, m := range msgs {
		role := Role(m)
		if len(pending) > 0 && role != "toolResult" {
			return dangling()
		}
		if m == nil {
			continue
		}
		if role == "toolResult" {
			id := resultID(m, DefaultRelease)
			if _, ok := pending[id]; id == "" || !ok {
				return &ErrInvalidReplay{Reason: "orphan_tool_result", ToolCallID: id, Index: i}
			}
			remove(id)
			continue
		}
		if role != "assistant" {
			continue
		}
		for _, tc := range toolCalls(m) {
			if _, ok := pending[tc.ID]; !ok {
				order = append(order, tc.ID)
			}
			pending[tc.ID] = i
		}
	}
	if len(pending) > 0 {
		return dangling()
	}
	return nil
}

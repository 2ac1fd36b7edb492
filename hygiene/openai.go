package hygiene

import (
	"encoding/json"
	"strings"
)

// replayableReasoning reports a thinking block whose thinkingSignature is OpenAI Responses
// reasoning: a JSON object with an id starting "rs_" and type "reasoning" or "reasoning.*".
func replayableReasoning(v any) bool {
	b, ok := Block(v)
	if !ok {
		return false
	}
	if t, _ := Str(b, "type"); t != "thinking" {
		return false
	}
	var obj map[string]any
	switch s := b["thinkingSignature"].(type) {
	case map[string]any:
		obj = s
	case string:
		s = strings.TrimSpace(s)
		if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") || json.Unmarshal([]byte(s), &obj) != nil {
			return false
		}
	default:
		return false
	}
	id, _ := Str(obj, "id")
	typ, _ := Str(obj, "type")
	return strings.HasPrefix(id, "rs_") && (typ == "reasoning" || strings.HasPrefix(typ, "reasoning."))
}

// DowngradeOpenAIReasoning is downgradeOpenAIReasoningBlocks then
// downgradeOpenAIFunctionCallReasoningPairs (§6.7, classic: applied unconditionally).
func DowngradeOpenAIReasoning(msgs []Message) ([]Message, Step) {
	st := Step{Name: "openai-responses-reasoning"}
	var out []Message
	for _, m := range msgs {
		bl, ok := Blocks(m)
		if !ok || Role(m) != "assistant" {
			out = append(out, m)
			continue
		}
		var nc []any
		dropped := 0
		for i, v := range bl {
			if replayableReasoning(v) {
				follows := false
				for _, w := range bl[i+1:] {
					if !isThinking(w) {
						follows = true
						break
					}
				}
				if !follows {
					dropped++
					continue
				}
			}
			nc = append(nc, v)
		}
		if dropped == 0 {
			out = append(out, m)
			continue
		}
		st.note("%s: dropped %d orphaned reasoning block(s)", Ref(m), dropped)
		if len(nc) == 0 {
			st.note("%s: dropped assistant left empty", Ref(m))
			continue
		}
		out = append(out, withContent(m, nc))
	}
	// function-call/reasoning pairs: fc_ item ids before any reasoning lose their item part
	for i := 0; i < len(out); i++ {
		m := out[i]
		bl, ok := Blocks(m)
		if !ok || Role(m) != "assistant" {
			continue
		}
		remap := map[string]string{}
		var nc []any
		seenReasoning := false
		for j, v := range bl {
			if replayableReasoning(v) {
				seenReasoning = true
				continue
			}
			b, id, ok := pairingCall(v)
			if !ok || seenReasoning {
				continue
			}
			p := strings.Index(id, "|")
			if p <= 0 || p == len(id)-1 || !strings.HasPrefix(id[p+1:], "fc_") {
				continue
			}
			if nc == nil {
				nc = append([]any(nil), bl...)
			}
			nb := clone(b)
			nb["id"] = id[:p]
			nc[j] = nb
			remap[id] = id[:p]
			st.note("%s: tool call id %q -> %q", Ref(m), id, id[:p])
		}
		if nc == nil {
			continue
		}
		out[i] = withContent(m, nc)
		for k := i + 1; k < len(out) && Role(out[k]) == "toolResult"; k++ {
			r := out[k]
			var nr Message
			for _, key := range []string{"toolCallId", "toolUseId"} {
				if s, ok := Str(r, key); ok {
					if to, ok := remap[s]; ok {
						if nr == nil {
							nr = clone(r)
						}
						nr[key] = to
					}
				}
			}
			if nr != nil {
				out[k] = nr
				st.note("%s: toolResult id remapped to %q", Ref(r), nr["toolCallId"])
			}
		}
	}
	return out, st
}

package hygiene

import (
	"encoding/json"
	"strings"
)

// Turn-ordering constants (§6.9, §6.10).
const (
	GoogleBootstrapText = "(session bootstrap)"
	ToolCallsOmitted    = "[tool calls omitted]"
)

// GoogleTurnOrdering prepends the "(session bootstrap)" user turn when the history starts
// with an assistant (§6.9).
func GoogleTurnOrdering(msgs []Message, nowMs int64) ([]Message, Step) {
	st := Step{Name: "google-turn-ordering"}
	if len(msgs) == 0 || Role(msgs[0]) != "assistant" {
		return msgs, st
	}
	boot := Message{"role": "user", "content": GoogleBootstrapText, "timestamp": json.Number(itoa(nowMs)), RefKey: "bootstrap"}
	st.note("prepended user %q before the leading assistant %s", GoogleBootstrapText, Ref(msgs[0]))
	return append([]Message{boot}, msgs...), st
}

// contentArray returns content as an array; a string becomes one text block when
// stringToText is set (newer builds) and nothing otherwise (the classic merge bug).
func contentArray(m Message, stringToText bool) []any {
	switch c := m["content"].(type) {
	case []any:
		return c
	case string:
		if stringToText {
			return []any{map[string]any{"type": "text", "text": c}}
		}
	}
	return nil
}

// ValidateGeminiTurns merges consecutive assistant messages (§6.10).
func ValidateGeminiTurns(msgs []Message) ([]Message, Step) {
	st := Step{Name: "gemini-turns"}
	var out []Message
	last := ""
	own := -1 // index in out of a merged message this function built (safe to extend in place)
	for _, m := range msgs {
		role := Role(m)
		if role == "" {
			out = append(out, m) // role-less: pushed, remembered role unchanged (JS quirk)
			continue
		}
		if role == "assistant" && last == "assistant" && len(out) > 0 {
			prev := out[len(out)-1]
			merged := prev
			if own != len(out)-1 {
				merged = clone(prev)
				merged["content"] = append([]any{}, contentArray(prev, false)...)
				own = len(out) - 1
			}
			merged["content"] = append(merged["content"].([]any), contentArray(m, false)...)
			for _, k := range []string{"usage", "stopReason", "errorMessage"} {
				if truthy(m[k]) {
					merged[k] = m[k]
				}
			}
			out[len(out)-1] = merged
			st.note("%s: merged into the previous assistant %s", Ref(m), Ref(prev))
			continue
		}
		out = append(out, m)
		last = role
	}
	return out, st
}

func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		f, err := x.Float64()
		return err == nil && f != 0
	}
	return true
}

// AnthropicTurnOptions select the variant of validateAnthropicTurns.
type AnthropicTurnOptions struct {
	// ClassicStringMerge keeps the classic bug: string content contributes nothing to a merge.
	ClassicStringMerge bool
}

// ValidateAnthropicTurns strips dangling toolUse blocks before a user turn and merges
// consecutive user messages (§6.10).
func ValidateAnthropicTurns(msgs []Message, o AnthropicTurnOptions) ([]Message, Step) {
	st := Step{Name: "anthropic-turns"}
	stripped := make([]Message, len(msgs))
	copy(stripped, msgs)
	for i := 0; i+1 < len(msgs); i++ {
		m, next := msgs[i], msgs[i+1]
		if Role(m) != "assistant" || Role(next) != "user" {
			continue
		}
		bl, ok := Blocks(m)
		if !ok || len(bl) == 0 {
			continue
		}
		answered := map[string]bool{}
		if nb, ok := Blocks(next); ok {
			for _, v := range nb {
				if b, ok := Block(v); ok {
					if t, _ := Str(b, "type"); t == "toolResult" {
						if id, ok := Str(b, "toolUseId"); ok {
							answered[id] = true
						}
					}
				}
			}
		}
		var nc []any
		n := 0
		for _, v := range bl {
			if b, ok := Block(v); ok {
				if t, _ := Str(b, "type"); t == "toolUse" {
					if id, _ := Str(b, "id"); !answered[id] {
						n++
						continue
					}
				}
			}
			nc = append(nc, v)
		}
		if n == 0 {
			continue
		}
		if len(nc) == 0 {
			nc = []any{map[string]any{"type": "text", "text": ToolCallsOmitted}}
		}
		stripped[i] = withContent(m, nc)
		st.note("%s: stripped %d dangling toolUse block(s)", Ref(m), n)
	}
	var out []Message
	last := ""
	own := -1 // index in out of a merged message this function built
	for _, m := range stripped {
		role := Role(m)
		if role == "" {
			out = append(out, m)
			continue
		}
		if role == "user" && last == "user" && len(out) > 0 {
			prev := out[len(out)-1]
			var content []any
			if own == len(out)-1 {
				content = prev["content"].([]any) // ours: extend in place
			} else {
				content = append([]any{}, contentArray(prev, !o.ClassicStringMerge)...)
			}
			merged := clone(m)
			merged["content"] = append(content, contentArray(m, !o.ClassicStringMerge)...)
			if _, ok := m["timestamp"]; !ok {
				if ts, ok := prev["timestamp"]; ok {
					merged["timestamp"] = ts
				}
			}
			merged[RefKey] = mergedRef(Ref(prev), Ref(m))
			own = len(out) - 1
			out[len(out)-1] = merged
			st.note("%s: merged consecutive user message into %s", Ref(m), Ref(prev))
			continue
		}
		out = append(out, m)
		last = role
	}
	return out, st
}

// mergedRef names a merge of messages: "a+b", and "a+…+z" once more than two are merged.
func mergedRef(prev, cur string) string {
	if i := strings.Index(prev, "+"); i >= 0 {
		return prev[:i] + "+…+" + cur
	}
	return prev + "+" + cur
}

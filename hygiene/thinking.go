package hygiene

import (
	"regexp"
	"strings"
)

// ReasoningOmitted replaces the content of an assistant left empty by thinking removal.
const ReasoningOmitted = "[assistant reasoning omitted]"

func isThinking(v any) bool {
	b, ok := Block(v)
	if !ok {
		return false
	}
	t, _ := Str(b, "type")
	return t == "thinking" || t == "redacted_thinking"
}

// DropThinkingBlocks removes thinking and redacted_thinking blocks from every assistant except
// the latest one with array content (§6.5).
func DropThinkingBlocks(msgs []Message) ([]Message, Step) {
	st := Step{Name: "drop-thinking-blocks"}
	last := -1
	for i, m := range msgs {
		if _, ok := Blocks(m); ok && Role(m) == "assistant" {
			last = i
		}
	}
	out := make([]Message, len(msgs))
	copy(out, msgs)
	for i, m := range msgs {
		bl, ok := Blocks(m)
		if !ok || Role(m) != "assistant" || i == last {
			continue
		}
		var nc []any
		n := 0
		for _, v := range bl {
			if isThinking(v) {
				n++
				continue
			}
			nc = append(nc, v)
		}
		if n == 0 {
			continue
		}
		if len(nc) == 0 {
			nc = []any{map[string]any{"type": "text", "text": ReasoningOmitted}}
		}
		out[i] = withContent(m, nc)
		st.note("%s: dropped %d thinking block(s)", Ref(m), n)
	}
	return out, st
}

var antigravitySig = regexp.MustCompile(`^[A-Za-z0-9+/]+={0,2}$`)

// NormalizeAntigravityThinking is the middle-era Antigravity Claude fix (§6.4): thinking blocks
// need a valid base64 signature, copied into thinkingSignature; others are dropped.
func NormalizeAntigravityThinking(msgs []Message) ([]Message, Step) {
	st := Step{Name: "antigravity-thinking"}
	var out []Message
	for _, m := range msgs {
		bl, ok := Blocks(m)
		if !ok || Role(m) != "assistant" {
			out = append(out, m)
			continue
		}
		var nc []any
		changed := false
		for _, v := range bl {
			b, ok := Block(v)
			if t, _ := Str(b, "type"); !ok || t != "thinking" {
				nc = append(nc, v)
				continue
			}
			sig, field := "", ""
			for _, k := range []string{"thinkingSignature", "signature", "thought_signature", "thoughtSignature"} {
				if s, ok := Str(b, k); ok && s != "" {
					sig, field = s, k
					break
				}
			}
			ts := strings.TrimSpace(sig)
			if ts == "" || len(ts)%4 != 0 || !antigravitySig.MatchString(ts) {
				st.note("%s: dropped thinking block without a valid signature", Ref(m))
				changed = true
				continue
			}
			if field != "thinkingSignature" {
				nb := clone(b)
				nb["thinkingSignature"] = sig
				b = nb
				st.note("%s: copied %s into thinkingSignature", Ref(m), field)
				changed = true
			}
			nc = append(nc, b)
		}
		if !changed {
			out = append(out, m)
			continue
		}
		if len(nc) == 0 {
			st.note("%s: dropped assistant left empty", Ref(m))
			continue
		}
		out = append(out, withContent(m, nc))
	}
	return out, st
}

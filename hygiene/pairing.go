package hygiene

import (
	"encoding/json"
	"strings"
)

// Synthetic tool-result texts (§4.3, §10).
const (
	MissingToolResultText = "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair."
	AbortedToolResultText = "aborted" // OpenAI Responses family (Codex parity)
)

// Pairing selects the tool-use/result pairing algorithm.
type Pairing string

const (
	PairingClassic Pairing = "classic" // repairToolUseResultPairing (§4.3)
	PairingFrames  Pairing = "frames"  // newest frame-based tool-result-pairing.ts (§4.4)
)

// ResponsesFamily reports the OpenAI Responses apis whose synthetic result text is "aborted".
func ResponsesFamily(api string) bool {
	switch api {
	case "openai-responses", "openai-chatgpt-responses", "azure-openai-responses", "openai-codex-responses":
		return true
	}
	return false
}

// SyntheticResult builds OpenClaw's synthetic missing tool result.
func SyntheticResult(call ToolCall, text string, nowMs int64) Message {
	name := call.Name
	if name == "" {
		name = "unknown"
	}
	return Message{
		"role":       "toolResult",
		"toolCallId": call.ID,
		"toolName":   name,
		"content":    []any{map[string]any{"type": "text", "text": text}},
		"isError":    true,
		"timestamp":  json.Number(itoa(nowMs)),
		"details":    map[string]any{"openclawSyntheticMissingToolResult": true, "reason": "missing_tool_result"},
		RefKey:       "synthetic:" + call.ID,
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// isSynthetic recognises a synthetic missing result by its details flag or legacy text.
func isSynthetic(m Message) bool {
	if d, ok := m["details"].(map[string]any); ok {
		if v, _ := d["openclawSyntheticMissingToolResult"].(bool); v {
			return true
		}
	}
	isErr, _ := m["isError"].(bool)
	return isErr && strings.TrimSpace(TextOf(m)) == MissingToolResultText
}

// normalizeResultName applies the kept result's toolName rule of §4.3.
func normalizeResultName(r Message, call ToolCall) Message {
	raw, isStr := Str(r, "toolName")
	t := strings.TrimSpace(raw)
	var want string
	switch {
	case t != "":
		want = t
	case call.Name != "":
		want = call.Name
	case isStr:
		want = "unknown"
	default:
		return r
	}
	if isStr && raw == want {
		return r
	}
	c := clone(r)
	c["toolName"] = want
	return c
}

// RepairPairing makes every tool call be followed by exactly one result and drops free-floating
// results, with the classic or the frame-based algorithm. text is the synthetic result text.
func RepairPairing(msgs []Message, alg Pairing, text string, nowMs int64) ([]Message, Step) {
	if alg == PairingFrames {
		return pairFrames(msgs, text, nowMs)
	}
	return pairClassic(msgs, text, nowMs)
}

// pairClassic is repairToolUseResultPairing (§4.3).
func pairClassic(msgs []Message, text string, nowMs int64) ([]Message, Step) {
	st := Step{Name: "tool-result-pairing:classic"}
	out := make([]Message, 0, len(msgs))
	emitted := map[string]bool{}
	for i := 0; i < len(msgs); {
		m := msgs[i]
		role := Role(m)
		if role != "assistant" {
			if role == "toolResult" {
				st.note("%s: dropped orphan tool result %q", Ref(m), ResultID(m, false))
			} else {
				out = append(out, m)
			}
			i++
			continue
		}
		calls := ToolCalls(m)
		if failed(m) || len(calls) == 0 {
			out = append(out, m)
			i++
			continue
		}
		byID := map[string]ToolCall{}
		for _, c := range calls {
			if _, ok := byID[c.ID]; !ok {
				byID[c.ID] = c
			}
		}
		results := map[string]Message{}
		var remainder []Message
		movedOver := 0 // messages a kept result came after
		j := i + 1
		for ; j < len(msgs) && Role(msgs[j]) != "assistant"; j++ {
			r := msgs[j]
			if Role(r) != "toolResult" {
				remainder = append(remainder, r)
				continue
			}
			id := ResultID(r, false)
			call, ours := byID[id]
			switch {
			case !ours:
				st.note("%s: dropped orphan tool result %q", Ref(r), id)
			case emitted[id]:
				st.note("%s: dropped duplicate tool result %q (id already answered)", Ref(r), id)
			case results[id] != nil:
				st.note("%s: dropped second tool result %q in the same turn", Ref(r), id)
			default:
				nr := normalizeResultName(r, call)
				if n, o := Str(nr, "toolName"); o {
					if old, _ := Str(r, "toolName"); old != n {
						st.note("%s: tool result name %q -> %q", Ref(r), old, n)
					}
				}
				results[id] = nr
				movedOver = len(remainder)
			}
		}
		out = append(out, m)
		for _, c := range calls {
			if emitted[c.ID] {
				continue
			}
			emitted[c.ID] = true
			if r, ok := results[c.ID]; ok {
				out = append(out, r)
				continue
			}
			out = append(out, SyntheticResult(c, text, nowMs))
			st.note("%s: inserted synthetic result for tool call %q", Ref(m), c.ID)
		}
		if movedOver > 0 {
			st.note("%s: moved tool result(s) before %d other message(s)", Ref(m), movedOver)
		}
		out = append(out, remainder...)
		i = j
	}
	return out, st
}

type frame struct {
	asst      Message
	calls     []ToolCall
	results   []Message // by call occurrence; nil = missing
	remainder []Message
	failed    bool
}

type occ struct{ f, k int }

// pairFrames is the newest frame-based pairing (§4.4) with erroredAssistantResultPolicy
// "drop", as used for model replay.
func pairFrames(msgs []Message, text string, nowMs int64) ([]Message, Step) {
	st := Step{Name: "tool-result-pairing:frames"}
	var pre []Message
	var frames []*frame
	open := map[string][]occ{} // id → unresolved occurrences, oldest first
	claimed := map[string][]occ{}
	for _, m := range msgs {
		if calls := ToolCalls(m); len(calls) > 0 {
			f := &frame{asst: m, calls: calls, results: make([]Message, len(calls)), failed: failed(m)}
			frames = append(frames, f)
			for k, c := range calls {
				open[c.ID] = append(open[c.ID], occ{len(frames) - 1, k})
			}
			continue
		}
		if len(frames) == 0 {
			if Role(m) == "toolResult" {
				st.note("%s: dropped orphan tool result %q before any tool call", Ref(m), ResultID(m, true))
			} else {
				pre = append(pre, m)
			}
			continue
		}
		fi := len(frames) - 1
		f := frames[fi]
		if Role(m) != "toolResult" {
			f.remainder = append(f.remainder, m)
			continue
		}
		id := ResultID(m, true)
		if id == "" {
			name := strings.TrimSpace(func() string { s, _ := Str(m, "toolName"); return s }())
			if len(f.calls) == 1 && f.results[0] == nil && (name == "" || name == f.calls[0].Name) {
				nm := clone(m)
				nm["toolCallId"] = f.calls[0].ID
				nm["isError"] = true
				f.results[0] = nm
				removeOcc(open, f.calls[0].ID, occ{fi, 0})
				claimed[f.calls[0].ID] = append(claimed[f.calls[0].ID], occ{fi, 0})
				st.note("%s: adopted legacy result without id for %q (isError forced)", Ref(m), f.calls[0].ID)
			} else {
				st.note("%s: dropped tool result without id", Ref(m))
			}
			continue
		}
		// claim the first unresolved occurrence of id in this frame
		if o, ok := firstOcc(open[id], fi); ok {
			removeOcc(open, id, o)
			claimed[id] = append(claimed[id], o)
			frames[o.f].results[o.k] = m
			continue
		}
		if inFrame(f, id) {
			// all occurrences claimed: a duplicate; a real one replaces a synthetic one
			replaced := false
			for _, o := range claimed[id] {
				if o.f == fi && isSynthetic(frames[o.f].results[o.k]) && !isSynthetic(m) {
					frames[o.f].results[o.k] = m
					st.note("%s: real tool result %q replaced a synthetic one", Ref(m), id)
					replaced = true
					break
				}
			}
			if !replaced {
				st.note("%s: dropped duplicate tool result %q", Ref(m), id)
			}
			continue
		}
		// displaced: a unique unresolved occurrence in this or an earlier frame adopts it
		if os := open[id]; len(os) == 1 {
			o := os[0]
			removeOcc(open, id, o)
			claimed[id] = append(claimed[id], o)
			frames[o.f].results[o.k] = m
			st.note("%s: displaced tool result %q moved back to its call", Ref(m), id)
			continue
		}
		st.note("%s: dropped orphan tool result %q", Ref(m), id)
	}
	out := append([]Message(nil), pre...)
	for _, f := range frames {
		if f.failed {
			st.note("%s: dropped failed assistant (stopReason %s) and its %d tool result(s)", Ref(f.asst), StopReason(f.asst), countNonNil(f.results))
			out = append(out, f.remainder...)
			continue
		}
		out = append(out, f.asst)
		for k, r := range f.results {
			if r == nil {
				r = SyntheticResult(f.calls[k], text, nowMs)
				st.note("%s: inserted synthetic result for tool call %q", Ref(f.asst), f.calls[k].ID)
			} else {
				r = normalizeResultName(r, f.calls[k])
			}
			out = append(out, r)
		}
		out = append(out, f.remainder...)
	}
	return out, st
}

func countNonNil(ms []Message) int {
	n := 0
	for _, m := range ms {
		if m != nil {
			n++
		}
	}
	return n
}

func inFrame(f *frame, id string) bool {
	for _, c := range f.calls {
		if c.ID == id {
			return true
		}
	}
	return false
}

func firstOcc(os []occ, f int) (occ, bool) {
	for _, o := range os {
		if o.f == f {
			return o, true
		}
	}
	return occ{}, false
}

func removeOcc(open map[string][]occ, id string, o occ) {
	os := open[id]
	for i, x := range os {
		if x == o {
			open[id] = append(os[:i:i], os[i+1:]...)
			return
		}
	}
}

package hygiene

import "strings"

// InterSessionPrefix starts the replay marker of a user message routed from another session.
const InterSessionPrefix = "[Inter-session message]"

// AnnotateInterSession is annotateInterSessionUserMessages, classic form (§6.1): user messages
// whose provenance kind is inter_session get "[Inter-session message] sourceSession=…
// sourceChannel=… sourceTool=…" in front of their first text.
func AnnotateInterSession(msgs []Message) ([]Message, Step) {
	st := Step{Name: "inter-session-provenance"}
	out := msgs
	copied := false
	for i, m := range msgs {
		if Role(m) != "user" {
			continue
		}
		prov, ok := m["provenance"].(map[string]any)
		if !ok {
			continue
		}
		if k, _ := Str(prov, "kind"); k != "inter_session" {
			continue
		}
		prefix := InterSessionPrefix
		for _, f := range [][2]string{{"sourceSessionKey", "sourceSession"}, {"sourceChannel", "sourceChannel"}, {"sourceTool", "sourceTool"}} {
			if v, ok := Str(prov, f[0]); ok && strings.TrimSpace(v) != "" {
				prefix += " " + f[1] + "=" + strings.TrimSpace(v)
			}
		}
		var nm Message
		switch c := m["content"].(type) {
		case string:
			if strings.HasPrefix(c, InterSessionPrefix) {
				continue
			}
			nm = withContent(m, prefix+"\n"+c)
		case []any:
			nc := append([]any(nil), c...)
			done := false
			for j, v := range nc {
				b, ok := Block(v)
				if !ok {
					continue
				}
				t, _ := Str(b, "type")
				s, isStr := Str(b, "text")
				if t != "text" || !isStr {
					continue
				}
				if strings.HasPrefix(s, InterSessionPrefix) {
					done = true
					break
				}
				nb := clone(b)
				nb["text"] = prefix + "\n" + s
				nc[j] = nb
				nm = withContent(m, nc)
				done = true
				break
			}
			if !done {
				nm = withContent(m, append([]any{map[string]any{"type": "text", "text": prefix}}, c...))
			}
		}
		if nm == nil {
			continue
		}
		if !copied {
			out = append([]Message(nil), msgs...)
			copied = true
		}
		out[i] = nm
		st.note("%s: user message marked %q", Ref(m), prefix)
	}
	return out, st
}

package hygiene

import (
	"regexp"
	"strings"
)

// RedactedAttachment replaces sessions_spawn attachment contents (classic §4.2).
const RedactedAttachment = "__OPENCLAW_REDACTED__"

var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// validToolName is the §4.2 name rule; allowed is lowercased, empty means no allow-list.
func validToolName(v any, allowed map[string]bool) (string, bool) {
	s, ok := v.(string)
	if !ok {
		return "", false
	}
	t := strings.TrimSpace(s)
	if t == "" || len(t) > 64 || !toolNameRE.MatchString(t) {
		return "", false
	}
	if len(allowed) > 0 && !allowed[strings.ToLower(t)] {
		return "", false
	}
	return t, true
}

func present(b map[string]any, key string) bool {
	v, ok := b[key]
	return ok && v != nil
}

// SanitizeToolCallInputs is the classic sanitizeToolCallInputs (§4.2): tool-call blocks with no
// input, a blank id or an invalid name are dropped (and an assistant left empty with them),
// names are trimmed, and sessions_spawn attachment contents are redacted. allowed is an
// optional allow-list of tool names.
func SanitizeToolCallInputs(msgs []Message, allowed []string) ([]Message, Step) {
	st := Step{Name: "tool-call-inputs"}
	allow := map[string]bool{}
	for _, a := range allowed {
		if a = strings.ToLower(strings.TrimSpace(a)); a != "" {
			allow[a] = true
		}
	}
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		bl, ok := Blocks(m)
		if !ok || Role(m) != "assistant" {
			out = append(out, m)
			continue
		}
		var nc []any
		changed, dropped := false, 0
		for _, v := range bl {
			b, ok := Block(v)
			t, _ := Str(b, "type")
			if !ok || !rawCallTypes[t] {
				nc = append(nc, v)
				continue
			}
			id, _ := Str(b, "id")
			name, nameOK := validToolName(b["name"], allow)
			switch {
			case !present(b, "input") && !present(b, "arguments"):
				st.note("%s: dropped %s %q without input", Ref(m), t, id)
			case strings.TrimSpace(id) == "":
				st.note("%s: dropped %s without an id", Ref(m), t)
			case !nameOK:
				st.note("%s: dropped %s %q with an invalid name", Ref(m), t, id)
			default:
				raw, _ := Str(b, "name")
				if raw != name {
					b = clone(b)
					b["name"] = name
					st.note("%s: trimmed tool name %q", Ref(m), raw)
					changed = true
				}
				if strings.EqualFold(name, "sessions_spawn") {
					if nb, n := redactAttachments(b); n > 0 {
						b = nb
						st.note("%s: redacted %d sessions_spawn attachment(s)", Ref(m), n)
						changed = true
					}
				}
				nc = append(nc, b)
				continue
			}
			dropped++
		}
		if !changed && dropped == 0 {
			out = append(out, m)
			continue
		}
		if dropped > 0 && len(nc) == 0 {
			st.note("%s: dropped assistant message left without content", Ref(m))
			continue
		}
		if nc == nil {
			nc = []any{}
		}
		out = append(out, withContent(m, nc))
	}
	return out, st
}

// redactAttachments replaces attachments[i].content in arguments and input.
func redactAttachments(b map[string]any) (map[string]any, int) {
	n := 0
	out, copied := b, false
	for _, key := range []string{"arguments", "input"} {
		args, ok := b[key].(map[string]any)
		if !ok {
			continue
		}
		atts, ok := args["attachments"].([]any)
		if !ok {
			continue
		}
		var na []any
		for i, a := range atts {
			am, ok := a.(map[string]any)
			if !ok {
				continue
			}
			if _, has := am["content"]; !has {
				continue
			}
			if c, _ := am["content"].(string); c == RedactedAttachment {
				continue
			}
			if na == nil {
				na = append([]any(nil), atts...)
			}
			nm := clone(am)
			nm["content"] = RedactedAttachment
			na[i] = nm
			n++
		}
		if na != nil {
			if !copied {
				out, copied = clone(b), true
			}
			nargs := clone(args)
			nargs["attachments"] = na
			out[key] = nargs
		}
	}
	return out, n
}

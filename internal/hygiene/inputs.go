package hygiene

import (
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
)

// RedactedAttachment replaces sessions_spawn attachment contents (up to 2026.4.24).
const RedactedAttachment = "__OPENCLAW_REDACTED__"

var (
	toolNameRE      = lazyre.New(`^[A-Za-z0-9_:.-]+$`) // 2026.6.11
	toolNameClassic = lazyre.New(`^[A-Za-z0-9_-]+$`)   // up to 2026.4.24
	// rawToolCallTypes are the block types isRawToolCallBlock knows; 2026.6.11 added the
	// snake_case ones (before, a tool_use block passes repairToolCallInputs untouched).
	rawToolCallTypes        = map[string]bool{"toolCall": true, "toolUse": true, "functionCall": true, "tool_call": true, "tool_use": true, "function_call": true}
	rawToolCallTypesClassic = map[string]bool{"toolCall": true, "toolUse": true, "functionCall": true}
)

// allowList is normalizeAllowedToolNames: nil for no (or an empty) allow-list.
func allowList(names []string) map[string]bool {
	set := map[string]bool{}
	for _, n := range names {
		if t := jsTrim(n); t != "" {
			set[strings.ToLower(t)] = true
		}
	}
	if len(set) == 0 {
		return nil
	}
	return set
}

// allowedToolName is isAllowedToolCallName.
func allowedToolName(v any, allowed map[string]bool, r Release) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	t := jsTrim(s)
	re := toolNameRE
	if !r.atLeast(Release20260611) {
		re = toolNameClassic
	}
	if t == "" || jsonobj.UTF16Len(t) > 64 || !re.MatchString(t) {
		return false
	}
	return allowed == nil || allowed[strings.ToLower(t)]
}

// rawToolCall is isRawToolCallBlock of release r.
func rawToolCall(v any, r Release) (map[string]any, bool) {
	b, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	t, _ := b["type"].(string)
	if !r.atLeast(Release20260611) {
		return b, rawToolCallTypesClassic[t]
	}
	return b, rawToolCallTypes[t]
}

// hasToolCallInput: input or arguments present and not null.
func hasToolCallInput(b map[string]any) bool { return present(b, "input") || present(b, "arguments") }

// hasToolCallID is hasToolCallId (2026.6.11 reads the other id spellings too).
func hasToolCallID(b map[string]any, r Release) bool {
	keys := []string{"id"}
	if r.atLeast(Release20260611) {
		keys = append(keys, "call_id", "toolCallId", "toolUseId", "tool_call_id", "tool_use_id")
	}
	for _, k := range keys {
		if optString(b[k]) != "" {
			return true
		}
	}
	return false
}

// finalizedResponsesToolCall is isFinalizedOpenAIResponsesToolCall: a partialJson the stream
// left on a completed OpenAI Responses call, safe to strip.
func finalizedResponsesToolCall(m Message, b map[string]any) bool {
	pj, ok := b["partialJson"].(string)
	id, idOK := b["id"].(string)
	_, hasInput := b["input"]
	args, argsObj := b["arguments"].(map[string]any)
	if Role(m) != "assistant" || StopReason(m) != "toolUse" || !ok || !idOK || hasInput || !argsObj {
		return false
	}
	if _, complete := jsonParseObject(pj); !complete && (jsTrim(pj) != "" || len(args) > 0) {
		return false
	}
	sep := strings.IndexByte(id, '|')
	return sep > 0 && sep < len(id)-1
}

// replaySafeThinkingTurn is isReplaySafeThinkingAssistantTurn: every tool call is valid, has
// no partialJson (2026.6.11), a unique id and a name that needs no trimming.
func replaySafeThinkingTurn(content []any, allowed map[string]bool, r Release) bool {
	saw := false
	seen := map[string]bool{}
	for _, v := range content {
		b, ok := rawToolCall(v, r)
		if !ok {
			continue
		}
		saw = true
		id := optString(b["id"])
		_, partial := b["partialJson"].(string)
		if !hasToolCallInput(b) || (partial && r.atLeast(Release20260611)) || id == "" || seen[id] || !allowedToolName(b["name"], allowed, r) {
			return false
		}
		seen[id] = true
		if s, ok := b["name"].(string); ok && jsTrim(s) != s {
			return false
		}
		if !r.atLeast(Release20260611) && strings.EqualFold(jsTrim(str(b["name"])), "sessions_spawn") {
			if _, changed := redactSpawn(b, r); changed {
				return false
			}
		}
	}
	return saw
}

// SanitizeToolCallInputs is repairToolCallInputs: tool-call blocks with no input, no id or an
// invalid name are dropped (and an assistant left empty with them), names are trimmed, and
// (2026.6.11) a partialJson left by the stream is dropped or stripped. With provider-owned
// thinking replay, an assistant holding thinking and tool calls is kept byte for byte only if
// every call is replay-safe, otherwise dropped whole. Up to 2026.4.24 sessions_spawn
// attachment contents are redacted.
func SanitizeToolCallInputs(msgs []Message, allowedNames []string, providerThinking bool, r Release) ([]Message, Step) {
	st := Step{Name: "tool-call-inputs"}
	allowed := allowList(allowedNames)
	preserved := map[string]bool{} // ids of replay-safe thinking turns kept so far
	prior := map[string]bool{}     // ids of every tool call kept so far (2026.6.11)
	out := make([]Message, 0, len(msgs))
	for index, m := range msgs {
		c, ok := m["content"].([]any)
		if m == nil || Role(m) != "assistant" || !ok {
			out = append(out, m)
			continue
		}
		if providerThinking && r.atLeast(Release20260424) && hasThinkingBlock(c) && countRawToolCalls(c, r) > 0 {
			calls := ToolCalls(m)
			follow := collectFollowingResults(msgs, index)
			keep := replaySafeThinkingTurn(c, allowed, r)
			for _, tc := range calls {
				if preserved[tc.ID] {
					keep = false
				}
				if r.atLeast(Release20260611) {
					if hasSpawnAttachments(c, r) && !follow.ids[tc.ID] {
						keep = false
					}
					if follow.displaced && prior[tc.ID] {
						keep = false
					}
				}
			}
			if keep {
				for _, tc := range calls {
					preserved[tc.ID], prior[tc.ID] = true, true
				}
				out = append(out, m)
			} else {
				st.note("%s: assistant with thinking and unsafe tool calls dropped whole", Ref(m))
			}
			continue
		}
		var next []any
		dropped, changed := 0, false
		for _, v := range c {
			b, isCall := rawToolCall(v, r)
			if isCall && (!hasToolCallInput(b) || !hasToolCallID(b, r) || !allowedToolName(b["name"], allowed, r)) {
				dropped++
				st.note("%s: invalid %s %q dropped (no input, id or valid name)", Ref(m), b["type"], str(b["id"]))
				continue
			}
			work := v
			if _, partial := b["partialJson"].(string); isCall && partial && r.atLeast(Release20260611) {
				if !finalizedResponsesToolCall(m, b) {
					dropped++
					st.note("%s: unfinished tool call %q (partialJson) dropped", Ref(m), str(b["id"]))
					continue
				}
				nb := clone(b)
				delete(nb, "partialJson")
				work, b, changed = nb, nb, true
				st.note("%s: partialJson of finished tool call %q removed", Ref(m), str(b["id"]))
			}
			if isCall && (r.atLeast(Release20260611) || pairingCallTypes[str(b["type"])]) {
				if strings.EqualFold(jsTrim(str(b["name"])), "sessions_spawn") && !r.atLeast(Release20260611) {
					if nb, ch := redactSpawn(b, r); ch {
						work, changed = nb, true
						st.note("%s: sessions_spawn attachments redacted", Ref(m))
					}
				} else if name, ok := b["name"].(string); ok {
					if t := jsTrim(name); t != name && t != "" {
						nb := clone(b)
						nb["name"] = t
						work, changed = nb, true
						st.note("%s: tool name %q trimmed", Ref(m), name)
					}
				}
			}
			next = append(next, work)
		}
		if dropped > 0 && len(next) == 0 {
			st.note("%s: assistant left without content dropped", Ref(m))
			continue
		}
		nm := m
		if dropped > 0 || changed {
			if next == nil {
				next = []any{}
			}
			nm = withContent(m, next)
		}
		for _, tc := range ToolCalls(nm) {
			prior[tc.ID] = true
		}
		out = append(out, nm)
	}
	if st.Changed == 0 {
		return msgs, st
	}
	return out, st
}

func countRawToolCalls(c []any, r Release) int {
	n := 0
	for _, v := range c {
		if _, ok := rawToolCall(v, r); ok {
			n++
		}
	}
	return n
}

// hasSpawnAttachments is hasSessionsSpawnAttachmentToolCall.
func hasSpawnAttachments(c []any, r Release) bool {
	for _, v := range c {
		b, ok := rawToolCall(v, r)
		if !ok || b["name"] != "sessions_spawn" {
			continue
		}
		in, _ := b["input"].(map[string]any)
		if a, ok := in["attachments"].([]any); ok && len(a) > 0 {
			return true
		}
	}
	return false
}

type following struct {
	ids       map[string]bool
	displaced bool
}

// collectFollowingResults is collectFollowingToolResults: the result ids after the assistant
// at index up to the next tool-calling assistant, and whether one came after another message.
func collectFollowingResults(msgs []Message, index int) following {
	f := following{ids: map[string]bool{}}
	calls := ToolCalls(msgs[index])
	sawOther := false
	for _, m := range msgs[index+1:] {
		if m == nil {
			sawOther = true
			continue
		}
		if Role(m) == "assistant" && len(ToolCalls(m)) > 0 {
			break
		}
		if Role(m) == "toolResult" {
			ids := resultIDs(legacyResultID(m, calls))
			for _, id := range ids {
				f.ids[id] = true
			}
			f.displaced = f.displaced || (len(ids) > 0 && sawOther)
			continue
		}
		sawOther = true
	}
	return f
}

var spawnMetadataKeys = []string{"name", "encoding", "mimeType"}

// redactSpawn is sanitizeToolCallBlock for a sessions_spawn call up to 2026.4.24: attachment
// contents become "__OPENCLAW_REDACTED__" (2026.4.24 also keeps only name/encoding/mimeType)
// and the name is trimmed.
func redactSpawn(b map[string]any, r Release) (map[string]any, bool) {
	redact := func(v any) (any, bool) {
		rec, ok := v.(map[string]any)
		if !ok {
			return v, false
		}
		atts, ok := rec["attachments"].([]any)
		if !ok {
			return v, false
		}
		changed := !r.atLeast(Release20260424) // 2026.3.13 rebuilds the object every time
		next := make([]any, len(atts))
		for i, a := range atts {
			am, isObj := a.(map[string]any)
			if r.atLeast(Release20260424) {
				if isObj && redactedAttachment(am) {
					next[i] = a
					continue
				}
				changed = true
				na := map[string]any{"content": RedactedAttachment}
				for _, k := range spawnMetadataKeys {
					if s, ok := am[k].(string); ok && jsTrim(s) != "" {
						na[k] = s
					}
				}
				next[i] = na
				continue
			}
			if !isObj {
				next[i] = a
				continue
			}
			if _, has := am["content"]; !has {
				next[i] = a
				continue
			}
			na := clone(am)
			na["content"] = RedactedAttachment
			next[i] = na
		}
		if !changed {
			return v, false
		}
		nr := clone(rec)
		nr["attachments"] = next
		return nr, true
	}
	name, _ := b["name"].(string)
	trimmed := jsTrim(name)
	nameChanged := trimmed != "" && trimmed != name
	args, ca := redact(b["arguments"])
	in, ci := redact(b["input"])
	if !ca && !ci && !nameChanged {
		return b, false
	}
	nb := clone(b)
	if nameChanged {
		nb["name"] = trimmed
	}
	if _, has := b["arguments"]; has || ca {
		nb["arguments"] = args
	}
	if _, has := b["input"]; has || ci {
		nb["input"] = in
	}
	return nb, true
}

func redactedAttachment(a map[string]any) bool {
	if a["content"] != RedactedAttachment {
		return false
	}
	for k, v := range a {
		if k == "content" {
			continue
		}
		s, ok := v.(string)
		if !isOneOf(k, spawnMetadataKeys) || !ok || jsTrim(s) == "" {
			return false
		}
	}
	return true
}

package hygiene

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
)

var (
	kimiNativeID      = lazyre.New(`^functions\.[A-Za-z0-9_-]+:\d+$`)
	anthropicNativeID = lazyre.New(`^toolu_[A-Za-z0-9_]+$`)
	openAICallID      = lazyre.New(`^call_[A-Za-z0-9_-]+$`)
	nonAlnum          = lazyre.New(`[^a-zA-Z0-9]`)
)

// shortHash hashes s as node:crypto does, which encodes a lone surrogate as U+FFFD.
func shortHash(s string, n int) string {
	h := sha256.Sum256([]byte(jsonobj.ToUTF8(s)))
	return hex.EncodeToString(h[:])[:n]
}

// SanitizeToolCallID is sanitizeToolCallId: one id in "strict" (letters and digits; Kimi's
// native functions.<name>:<n> ids kept from 2026.4.24) or "strict9" (9 letters and digits,
// Mistral) mode, without uniqueness.
func SanitizeToolCallID(id string, present bool, mode string, r Release) string {
	if !present || id == "" {
		if mode == "strict9" {
			return "defaultid"
		}
		return "defaulttoolid"
	}
	a := nonAlnum.ReplaceAllString(id, "")
	if mode == "strict9" {
		switch {
		case len(a) >= 9:
			return a[:9]
		case len(a) > 0:
			return shortHash(a, 9)
		}
		return shortHash("sanitized", 9)
	}
	if r.atLeast(Release20260424) && kimiNativeID.MatchString(id) {
		return id
	}
	if a == "" {
		return "sanitizedtoolid"
	}
	return a
}

// uniqueID is makeUniqueToolId: seed is the sanitizer input, used the ids already allocated.
func uniqueID(seed, mode string, used map[string]bool, nowMs int64, r Release) string {
	if mode == "strict9" {
		base := SanitizeToolCallID(seed, true, mode, r)
		if len(base) >= 9 && !used[base[:9]] {
			return base[:9]
		}
		for i := 0; i < 1000; i++ {
			if c := shortHash(seed+":"+strconv.Itoa(i), 9); !used[c] {
				return c
			}
		}
		return shortHash(seed+":"+strconv.FormatInt(nowMs, 10), 9)
	}
	base := cut(SanitizeToolCallID(seed, true, mode, r), 40)
	if !used[base] {
		return base
	}
	cand := cut(base, 32) + shortHash(seed, 8)
	if !used[cand] {
		return cand
	}
	for i := 2; i < 1000; i++ {
		suf := "x" + strconv.Itoa(i)
		if c := cut(cand, 40-len(suf)) + suf; !used[c] {
			return c
		}
	}
	suf := "t" + strconv.FormatInt(nowMs, 10)
	return cut(cand, 40-len(suf)) + suf
}

func cut(s string, n int) string {
	if n < 0 {
		n = 0
	}
	if len(s) > n {
		return s[:n]
	}
	return s
}

// idResolver is createOccurrenceAwareResolver (from 2026.4.24): the n-th call using a raw id
// gets its own unique id, and results claim the call ids of their raw id first in, first
// out, so a provider that reuses ids (Kimi's functions.<name>:<n>) keeps every pair. 2026.3.13
// maps each raw id to one sanitized id for the whole transcript.
type idResolver struct {
	p       Policy
	r       Release
	nowMs   int64
	used    map[string]bool
	calls   map[string]int
	orphans map[string]int
	pending map[string][]string
	byRaw   map[string]string // 2026.3.13
}

func newIDResolver(p Policy, reserved map[string]bool, r Release, nowMs int64) *idResolver {
	used := map[string]bool{}
	for id := range reserved {
		used[id] = true
	}
	return &idResolver{p: p, r: r, nowMs: nowMs, used: used, calls: map[string]int{}, orphans: map[string]int{},
		pending: map[string][]string{}, byRaw: map[string]string{}}
}

func (x *idResolver) alloc(seed string) string {
	id := uniqueID(seed, x.p.ToolCallIDMode, x.used, x.nowMs, x.r)
	x.used[id] = true
	return id
}

func (x *idResolver) classic(id string) string {
	if v, ok := x.byRaw[id]; ok {
		return v
	}
	v := x.alloc(id)
	x.byRaw[id] = v
	return v
}

func (x *idResolver) keepNative(id string, n int) bool {
	if n != 1 || x.used[id] {
		return false
	}
	if x.p.DuplicateToolCallIDStyle == "openai" && openAICallID.MatchString(id) {
		return true
	}
	return x.p.PreserveNativeAnthropicToolUseIDs && anthropicNativeID.MatchString(id)
}

func (x *idResolver) call(id string) string {
	if !x.r.atLeast(Release20260424) {
		return x.classic(id)
	}
	x.calls[id]++
	n := x.calls[id]
	var next string
	switch {
	case x.p.DuplicateToolCallIDStyle == "openai" && n > 1 && x.r.atLeast(Release20260611):
		for attempt := 0; ; attempt++ {
			c := "call_" + shortHash(id+":"+strconv.Itoa(n)+":"+strconv.Itoa(attempt), 24)
			if !x.used[c] {
				next = c
				break
			}
		}
		x.used[next] = true
	case x.keepNative(id, n):
		next = id
		x.used[id] = true
	case n == 1:
		next = x.alloc(id)
	default:
		next = x.alloc(id + ":" + strconv.Itoa(n))
	}
	x.pending[id] = append(x.pending[id], next)
	return next
}

func (x *idResolver) result(id string) string {
	if !x.r.atLeast(Release20260424) {
		return x.classic(id)
	}
	if q := x.pending[id]; len(q) > 0 {
		x.pending[id] = q[1:]
		return q[0]
	}
	x.orphans[id]++
	n := x.orphans[id]
	if x.p.PreserveNativeAnthropicToolUseIDs && anthropicNativeID.MatchString(id) && n == 1 && !x.used[id] {
		x.used[id] = true
		return id
	}
	return x.alloc(id + ":tool_result:" + strconv.Itoa(n))
}

func (x *idResolver) preserve(id string) {
	x.used[id] = true
	x.pending[id] = append(x.pending[id], id)
}

// replaySafeThinkingIDs is collectReplaySafeThinkingToolIds: assistants whose thinking and tool
// calls Anthropic must see unchanged keep their ids, which are reserved.
func replaySafeThinkingIDs(msgs []Message, allowed map[string]bool, r Release) (map[string]bool, map[int]bool) {
	reserved, keep := map[string]bool{}, map[int]bool{}
	for i, m := range msgs {
		c, ok := assistantWithContent(m)
		if !ok || !replaySafeThinkingMessage(c, allowed, r) {
			continue
		}
		calls := toolCalls(m)
		clash := false
		for _, tc := range calls {
			if reserved[tc.ID] {
				clash = true
			}
		}
		if clash {
			continue
		}
		keep[i] = true
		for _, tc := range calls {
			reserved[tc.ID] = true
		}
	}
	return reserved, keep
}

// replaySafeThinkingMessage is isReplaySafeThinkingAssistantMessage.
func replaySafeThinkingMessage(c []any, allowed map[string]bool, r Release) bool {
	thinking, call := false, false
	seen := map[string]bool{}
	for _, v := range c {
		if isThinking(v) {
			thinking = true
			continue
		}
		b, ok := v.(map[string]any)
		if !ok || !pairingCallTypes[str(b["type"])] {
			continue
		}
		call = true
		id := optString(b["id"])
		name, isStr := b["name"].(string)
		if !hasToolCallInput(b) || id == "" || seen[id] || !allowedToolName(b["name"], allowed, r) || (isStr && name != "" && jsTrim(name) != name) {
			return false
		}
		seen[id] = true
	}
	return thinking && call
}

var resultIDFields = []string{"toolCallId", "toolUseId", "tool_call_id", "tool_use_id", "callId", "call_id"}

// SanitizeToolCallIDs is sanitizeToolCallIdsForCloudCodeAssist in the policy's mode: every
// tool-call id and tool-result id is rewritten to the mode's charset, unique over the
// transcript, results still pointing at the call they answered. allowed is the tool-name
// allow-list; preserveThinking keeps the ids of replay-safe thinking turns.
func SanitizeToolCallIDs(msgs []Message, p Policy, allowedNames []string, r Release, nowMs int64) ([]Message, Step) {
	return sanitizeIDs(msgs, p, allowedNames, false, r, nowMs)
}

func sanitizeIDs(msgs []Message, p Policy, allowedNames []string, preserveThinking bool, r Release, nowMs int64) ([]Message, Step) {
	st := Step{Name: "tool-call-ids:" + p.ToolCallIDMode}
	var reserved map[string]bool
	var keep map[int]bool
	if preserveThinking && r.atLeast(Release20260424) {
		reserved, keep = replaySafeThinkingIDs(msgs, allowList(allowedNames), r)
	}
	x := newIDResolver(p, reserved, r, nowMs)
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		switch Role(m) {
		case "assistant":
			if keep[i] {
				for _, tc := range toolCalls(m) {
					x.preserve(tc.ID)
				}
				continue
			}
			bl, ok := m["content"].([]any)
			if !ok {
				continue
			}
			var nc []any
			for j, v := range bl {
				b, ok := v.(map[string]any)
				if !ok || !pairingCallTypes[str(b["type"])] {
					continue
				}
				id, ok := b["id"].(string)
				if !ok || id == "" {
					continue
				}
				nid := x.call(id)
				if nid == id {
					continue
				}
				if nc == nil {
					nc = append([]any(nil), bl...)
				}
				nb := clone(b)
				if r.atLeast(Release20260424) {
					// Object.assign({}, block, {id}) from 2026.4.24 (a spread before) sets an own
					// "__proto__" key through the prototype setter: the copy has no such key
					delete(nb, "__proto__")
				}
				nb["id"] = nid
				nc[j] = nb
				st.note("%s: tool call id %q -> %q", Ref(m), id, nid)
			}
			if nc != nil {
				out[i] = withContent(m, nc)
			}
		case "toolResult":
			if nm := rewriteResultIDs(m, x, r); nm != nil {
				out[i] = nm
				st.note("%s: tool result id %q -> %q", Ref(m), resultID(m, r), resultID(nm, r))
			}
		}
	}
	if st.Changed == 0 {
		return msgs, st
	}
	return out, st
}

// rewriteResultIDs is rewriteToolResultIds; nil means unchanged.
func rewriteResultIDs(m Message, x *idResolver, r Release) Message {
	if !r.atLeast(Release20260611) {
		tc, _ := m["toolCallId"].(string)
		tu, _ := m["toolUseId"].(string)
		var ntc, ntu string
		if r.atLeast(Release20260424) && tc != "" && tc == tu {
			ntc = x.result(tc)
			ntu = ntc
		} else {
			if tc != "" {
				ntc = x.result(tc)
			}
			if tu != "" {
				ntu = x.result(tu)
			}
		}
		if ntc == tc && ntu == tu {
			return nil
		}
		c := clone(m)
		if ntc != "" {
			c["toolCallId"] = ntc
		}
		if ntu != "" {
			c["toolUseId"] = ntu
		}
		return c
	}
	raw := map[string]string{}
	for _, f := range resultIDFields {
		if s, ok := m[f].(string); ok && s != "" {
			raw[f] = s
		}
	}
	primary := ""
	for _, f := range []string{"call_id", "callId", "tool_call_id", "tool_use_id", "toolCallId", "toolUseId"} {
		if s, ok := raw[f]; ok {
			primary = s
			break
		}
	}
	if primary == "" {
		return nil
	}
	resolved := x.result(primary)
	updates := map[string]string{}
	for f, s := range raw {
		if resolved != s {
			updates[f] = resolved
		}
	}
	if _, ok := m["toolCallId"].(string); !ok && resolved != "" {
		updates["toolCallId"] = resolved
	}
	if len(updates) == 0 {
		return nil
	}
	c := clone(m)
	for f, v := range updates {
		c[f] = v
	}
	return c
}

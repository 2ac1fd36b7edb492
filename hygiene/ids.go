package hygiene

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strconv"
)

var (
	kimiNativeID = regexp.MustCompile(`^functions\.[A-Za-z0-9_-]+:\d+$`)
	nonAlnum     = regexp.MustCompile(`[^a-zA-Z0-9]`)
	mangledFuncs = regexp.MustCompile(`^functions\s+`)
)

func sha256hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// SanitizeToolCallID maps one id in "strict" or "strict9" mode (§6.3), without uniqueness.
func SanitizeToolCallID(id string, present bool, mode string) string {
	if mode == "strict9" {
		if !present {
			return "defaultid"
		}
		a := nonAlnum.ReplaceAllString(id, "")
		switch {
		case len(a) >= 9:
			return a[:9]
		case len(a) > 0:
			return sha256hex(a)[:9]
		}
		return sha256hex("sanitized")[:9]
	}
	if !present {
		return "defaulttoolid"
	}
	if kimiNativeID.MatchString(id) {
		return id
	}
	a := nonAlnum.ReplaceAllString(id, "")
	if a == "" {
		return "sanitizedtoolid"
	}
	return a
}

// uniqueID is makeUniqueToolId: seed is the sanitizer input, used the ids already allocated.
// nowMs is the Date.now() of the last resort.
func uniqueID(seed, mode string, used map[string]bool, nowMs int64) string {
	base := SanitizeToolCallID(seed, true, mode)
	if mode == "strict9" {
		if !used[base] {
			return base
		}
		for i := 0; i < 1000; i++ {
			c := sha256hex(seed + ":" + strconv.Itoa(i))[:9]
			if !used[c] {
				return c
			}
		}
		return sha256hex(seed + ":" + strconv.FormatInt(nowMs, 10))[:9]
	}
	if len(base) > 40 {
		base = base[:40]
	}
	if !used[base] {
		return base
	}
	h := sha256hex(seed)[:8]
	cand := base
	if len(cand) > 32 {
		cand = cand[:32]
	}
	cand += h
	if !used[cand] {
		return cand
	}
	for i := 2; i < 1000; i++ {
		suf := "x" + strconv.Itoa(i)
		c := cut(cand, 40-len(suf)) + suf
		if !used[c] {
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

// SanitizeToolCallIDs is sanitizeToolCallIdsForCloudCodeAssist, occurrence-aware (§6.3): every
// tool-call id and toolResult id is rewritten to mode's charset, unique over the transcript,
// and results keep pointing at the call they answered.
func SanitizeToolCallIDs(msgs []Message, mode string, nowMs int64) ([]Message, Step) {
	st := Step{Name: "tool-call-ids:" + mode}
	used := map[string]bool{}
	seen := map[string]int{}       // raw id → occurrences among calls
	queue := map[string][]string{} // raw id → allocated ids not yet claimed by a result
	orphanSeen := map[string]int{} // raw id → results with no queued call
	alloc := func(seed string) string {
		id := uniqueID(seed, mode, used, nowMs)
		used[id] = true
		return id
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		switch Role(m) {
		case "assistant":
			bl, ok := Blocks(m)
			if !ok {
				continue
			}
			var nc []any
			for j, v := range bl {
				b, id, ok := pairingCall(v)
				if !ok {
					continue
				}
				raw := mangledFuncs.ReplaceAllString(id, "functions.")
				seen[raw]++
				seed := raw
				if n := seen[raw]; n > 1 {
					seed = raw + ":" + strconv.Itoa(n)
				}
				nid := alloc(seed)
				queue[raw] = append(queue[raw], nid)
				if nid == id {
					continue
				}
				if nc == nil {
					nc = append([]any(nil), bl...)
				}
				nb := clone(b)
				nb["id"] = nid
				nc[j] = nb
				st.note("%s: tool call id %q -> %q", Ref(m), id, nid)
			}
			if nc != nil {
				out[i] = withContent(m, nc)
			}
		case "toolResult":
			resolve := func(id string) string {
				raw := mangledFuncs.ReplaceAllString(id, "functions.")
				if q := queue[raw]; len(q) > 0 {
					queue[raw] = q[1:]
					return q[0]
				}
				orphanSeen[raw]++
				return alloc(raw + ":tool_result:" + strconv.Itoa(orphanSeen[raw]))
			}
			tc, hasTC := Str(m, "toolCallId")
			tu, hasTU := Str(m, "toolUseId")
			var nm Message
			set := func(key, old, nid string) {
				if old == nid {
					return
				}
				if nm == nil {
					nm = clone(m)
				}
				nm[key] = nid
				st.note("%s: toolResult %s %q -> %q", Ref(m), key, old, nid)
			}
			switch {
			case hasTC && hasTU && tc == tu && tc != "":
				nid := resolve(tc)
				set("toolCallId", tc, nid)
				set("toolUseId", tu, nid)
			default:
				if hasTC && tc != "" {
					set("toolCallId", tc, resolve(tc))
				}
				if hasTU && tu != "" {
					set("toolUseId", tu, resolve(tu))
				}
			}
			if nm != nil {
				out[i] = nm
			}
		}
	}
	return out, st
}

package hygiene

import (
	"encoding/json"
	"math"
)

var usageCounters = []string{"input", "output", "cacheRead", "cacheWrite"}

// zeroUsage is makeZeroUsageSnapshot.
func zeroUsage() map[string]any {
	z := json.Number("0")
	return map[string]any{"input": z, "output": z, "cacheRead": z, "cacheWrite": z, "totalTokens": z,
		"cost": map[string]any{"input": z, "output": z, "cacheRead": z, "cacheWrite": z, "total": z}}
}

// StripStaleUsage is stripStaleAssistantUsageBeforeLatestCompaction: assistants before the
// latest compaction summary get a zero usage snapshot, so their old token counts do not
// trigger another compaction. "Before" is by timestamp when both have one (2026.6.11: only
// then), else by position.
func StripStaleUsage(msgs []Message, r Release) ([]Message, Step) {
	st := Step{Name: "stale-usage"}
	idx := -1
	var compTS float64
	hasCompTS := false
	for i, m := range msgs {
		if Role(m) == "compactionSummary" {
			idx = i
			compTS, hasCompTS = timestampMs(m["timestamp"])
		}
	}
	if idx < 0 {
		return msgs, st
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		if Role(m) != "assistant" {
			continue
		}
		if _, ok := m["usage"].(map[string]any); !ok {
			if _, isArr := m["usage"].([]any); !isArr {
				continue
			}
		}
		ts, hasTS := timestampMs(m["timestamp"])
		boundary := hasCompTS && hasTS
		stale := (boundary && ts <= compTS) || i < idx
		if r.atLeast(Release20260611) {
			stale = (boundary && ts <= compTS) || (!boundary && i < idx)
		}
		if !stale {
			continue
		}
		c := clone(m)
		c["usage"] = zeroUsage()
		out[i] = c
		st.note("%s: usage from before the latest compaction zeroed", Ref(m))
	}
	if st.Changed == 0 {
		return msgs, st
	}
	return out, st
}

// tokenCount is normalizeTokenCount: a finite number, negatives 0, truncated (2026.4.24 on;
// 2026.3.13 keeps any finite number as it is).
func tokenCount(v any, r Release) (float64, bool) {
	f, ok := finite(v)
	if !ok {
		return 0, false
	}
	if !r.atLeast(Release20260424) {
		return f, true
	}
	if f <= 0 {
		return 0, true
	}
	return math.Min(math.Trunc(f), 1<<53-1), true
}

// firstDefined is JavaScript's a ?? b ?? c over object fields (a missing or null field is
// skipped).
func firstDefined(obj map[string]any, paths ...[]string) any {
	for _, p := range paths {
		var v any = obj
		for _, k := range p {
			o, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			v = o[k]
		}
		if v != nil {
			return v
		}
	}
	return nil
}

func keys(ks ...string) [][]string {
	out := make([][]string, len(ks))
	for i, k := range ks {
		out[i] = []string{k}
	}
	return out
}

type normUsage struct {
	input, output, cacheRead, cacheWrite, total          float64
	hasInput, hasOutput, hasRead, hasWrite, hasTotal, ok bool
}

// normalizeUsage is normalizeUsage (src/agents/usage.ts) for the fields the snapshot reads.
func normalizeUsage(raw map[string]any, r Release) normUsage {
	var n normUsage
	if raw == nil {
		return n
	}
	newest := r.atLeast(Release20260424)
	readPaths := keys("cacheRead", "cache_read", "cache_read_input_tokens", "cached_tokens")
	if newest {
		readPaths = append(readPaths, []string{"input_tokens_details", "cached_tokens"})
	}
	readPaths = append(readPaths, []string{"prompt_tokens_details", "cached_tokens"})
	n.cacheRead, n.hasRead = tokenCount(firstDefined(raw, readPaths...), r)
	inPaths := keys("input", "inputTokens", "input_tokens", "promptTokens", "prompt_tokens")
	if newest {
		inPaths = append(inPaths, []string{"prompt_n"}, []string{"timings", "prompt_n"})
	}
	rawIn, hasRawIn := finite(firstDefined(raw, inPaths...))
	if newest {
		openAITotals := firstDefined(raw, []string{"cached_tokens"}) != nil ||
			firstDefined(raw, []string{"input_tokens_details", "cached_tokens"}) != nil ||
			firstDefined(raw, []string{"prompt_tokens_details", "cached_tokens"}) != nil
		// JS tests !== undefined; a JSON null counts as defined there
		openAITotals = openAITotals || hasNull(raw, "cached_tokens") || hasNullAt(raw, "input_tokens_details", "cached_tokens") || hasNullAt(raw, "prompt_tokens_details", "cached_tokens")
		if hasRawIn && openAITotals && n.hasRead {
			rawIn -= n.cacheRead
		}
		if hasRawIn {
			n.input, n.hasInput = tokenCount(json.Number(num(rawIn)), r)
		}
	} else if hasRawIn {
		n.input, n.hasInput = rawIn, true
		if rawIn < 0 {
			n.input = 0
		}
	}
	outPaths := keys("output", "outputTokens", "output_tokens", "completionTokens", "completion_tokens")
	if newest {
		outPaths = append(outPaths, []string{"predicted_n"}, []string{"timings", "predicted_n"})
	}
	n.output, n.hasOutput = tokenCount(firstDefined(raw, outPaths...), r)
	n.cacheWrite, n.hasWrite = tokenCount(firstDefined(raw, keys("cacheWrite", "cache_write", "cache_creation_input_tokens")...), r)
	n.total, n.hasTotal = tokenCount(firstDefined(raw, keys("total", "totalTokens", "total_tokens")...), r)
	_, hasReasoning := tokenCount(firstDefined(raw, keys("reasoningTokens", "reasoning_tokens")...), r)
	if !hasReasoning {
		_, hasReasoning = tokenCount(firstDefined(raw, []string{"completion_tokens_details", "reasoning_tokens"}, []string{"output_tokens_details", "reasoning_tokens"}), r)
	}
	if !r.atLeast(Release20260611) {
		hasReasoning = false
	}
	n.ok = n.hasInput || n.hasOutput || n.hasRead || n.hasWrite || n.hasTotal || hasReasoning
	return n
}

func hasNull(o map[string]any, k string) bool {
	v, ok := o[k]
	return ok && v == nil
}

func hasNullAt(o map[string]any, a, b string) bool {
	in, ok := o[a].(map[string]any)
	return ok && hasNull(in, b)
}

// usageSnapshot is normalizeAssistantUsageSnapshot (cost nil when usage has no finite cost).
func usageSnapshot(u any, r Release) (map[string]any, map[string]any) {
	raw, _ := u.(map[string]any)
	n := normalizeUsage(raw, r)
	if !n.ok {
		z := zeroUsage()
		return z, z["cost"].(map[string]any)
	}
	total := n.input + n.output + n.cacheRead + n.cacheWrite
	if n.hasTotal {
		total = n.total
	}
	snap := map[string]any{"input": num(n.input), "output": num(n.output), "cacheRead": num(n.cacheRead),
		"cacheWrite": num(n.cacheWrite), "totalTokens": num(total)}
	cost := usageCost(raw)
	if cost != nil {
		snap["cost"] = cost
	}
	return snap, cost
}

// usageCost is normalizeAssistantUsageCost.
func usageCost(raw map[string]any) map[string]any {
	c, ok := raw["cost"].(map[string]any)
	if !ok {
		return nil
	}
	vals := map[string]float64{}
	found := false
	for _, k := range []string{"input", "output", "cacheRead", "cacheWrite", "total"} {
		if f, ok := finite(c[k]); ok {
			vals[k], found = f, true
		}
	}
	if !found {
		return nil
	}
	sum := vals["input"] + vals["output"] + vals["cacheRead"] + vals["cacheWrite"]
	total := sum
	if t, ok := finite(c["total"]); ok {
		total = t
	}
	return map[string]any{"input": num(vals["input"]), "output": num(vals["output"]), "cacheRead": num(vals["cacheRead"]),
		"cacheWrite": num(vals["cacheWrite"]), "total": num(total)}
}

func numEq(v any, want any) bool {
	a, ok1 := numberOf(v)
	b, ok2 := numberOf(want)
	return ok1 && ok2 && a == b
}

// EnsureUsageSnapshots is ensureAssistantUsageSnapshots: every assistant gets a usage with
// numeric input, output, cacheRead, cacheWrite and totalTokens (and a cost when the stored
// one has a finite field); one that already has exactly those values is left untouched.
func EnsureUsageSnapshots(msgs []Message, r Release) ([]Message, Step) {
	st := Step{Name: "usage-snapshots"}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		if Role(m) != "assistant" {
			continue
		}
		snap, cost := usageSnapshot(m["usage"], r)
		if u, ok := m["usage"].(map[string]any); ok {
			same := true
			for _, k := range append(usageCounters, "totalTokens") {
				same = same && numEq(u[k], snap[k])
			}
			uc, hasCost := u["cost"]
			ucm, _ := uc.(map[string]any)
			switch {
			case snap["cost"] != nil:
				if ucm == nil {
					same = false
				}
				for _, k := range []string{"input", "output", "cacheRead", "cacheWrite", "total"} {
					same = same && numEq(ucm[k], cost[k])
				}
			default:
				same = same && (!hasCost)
			}
			if same {
				continue
			}
		}
		c := clone(m)
		c["usage"] = snap
		out[i] = c
		st.note("%s: usage normalized", Ref(m))
	}
	if st.Changed == 0 {
		return msgs, st
	}
	return out, st
}

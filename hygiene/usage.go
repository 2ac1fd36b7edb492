package hygiene

import (
	"encoding/json"
	"math"
	"strconv"
)

// StripToolResultDetails removes the details key from every toolResult (§4.5).
func StripToolResultDetails(msgs []Message) ([]Message, Step) {
	st := Step{Name: "strip-tool-result-details"}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		if Role(m) != "toolResult" {
			continue
		}
		if _, ok := m["details"]; !ok {
			continue
		}
		c := clone(m)
		delete(c, "details")
		out[i] = c
		st.note("%s: removed toolResult details", Ref(m))
	}
	return out, st
}

var usageCounters = []string{"input", "output", "cacheRead", "cacheWrite"}
var costFields = []string{"input", "output", "cacheRead", "cacheWrite", "total"}

func num(f float64) json.Number {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return json.Number(strconv.FormatInt(int64(f), 10))
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
}

// zeroUsage is the zero snapshot of §6.8.
func zeroUsage() map[string]any {
	u := map[string]any{"totalTokens": json.Number("0")}
	cost := map[string]any{}
	for _, k := range usageCounters {
		u[k] = json.Number("0")
	}
	for _, k := range costFields {
		cost[k] = json.Number("0")
	}
	u["cost"] = cost
	return u
}

// Usage hygiene options: where the latest compaction summary sits in the list (-1 for none)
// and its timestamp in ms (0 for unknown).
type UsageOptions struct {
	SummaryIndex     int
	SummaryTimestamp float64
}

// NormalizeUsage is stripStaleAssistantUsageBeforeLatestCompaction followed by
// ensureAssistantUsageSnapshots (§6.8).
func NormalizeUsage(msgs []Message, o UsageOptions) ([]Message, Step) {
	st := Step{Name: "usage"}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		if Role(m) != "assistant" {
			continue
		}
		u, hasUsage := m["usage"].(map[string]any)
		if hasUsage && o.SummaryIndex >= 0 {
			ts, hasTS := Num(m, "timestamp")
			if i < o.SummaryIndex || (hasTS && o.SummaryTimestamp > 0 && ts <= o.SummaryTimestamp) {
				if !zeroed(u) {
					c := clone(m)
					c["usage"] = zeroUsage()
					out[i] = c
					st.note("%s: stale usage before the latest compaction zeroed", Ref(m))
				}
				continue
			}
		}
		nu, changed := ensureUsage(u)
		if changed {
			c := clone(m)
			c["usage"] = nu
			out[i] = c
			st.note("%s: usage normalized", Ref(m))
		}
	}
	return out, st
}

func zeroed(u map[string]any) bool {
	for _, k := range append(usageCounters, "totalTokens") {
		if v, ok := Num(u, k); !ok || v != 0 {
			return false
		}
	}
	return true
}

// ensureUsage gives numeric input/output/cacheRead/cacheWrite/totalTokens; cost is kept only
// when it has a finite field, with missing fields 0 and total the sum.
func ensureUsage(u map[string]any) (map[string]any, bool) {
	nu := map[string]any{}
	for k, v := range u {
		nu[k] = v
	}
	changed := u == nil
	sum := 0.0
	for _, k := range usageCounters {
		v, ok := Num(u, k)
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			v = 0
			changed = true
		}
		if _, isNum := u[k].(json.Number); !isNum {
			changed = true
		}
		nu[k] = num(v)
		sum += v
	}
	if t, ok := Num(u, "totalTokens"); ok && t > 0 {
		nu["totalTokens"] = num(t)
	} else {
		if !ok || t != sum {
			changed = true
		}
		nu["totalTokens"] = num(sum)
	}
	if c, ok := u["cost"].(map[string]any); ok {
		finite := false
		for _, k := range costFields {
			if v, ok := Num(c, k); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
				finite = true
			}
		}
		if !finite {
			delete(nu, "cost")
			changed = true
		} else {
			nc := map[string]any{}
			for k, v := range c {
				nc[k] = v
			}
			total := 0.0
			for _, k := range costFields[:4] {
				v, ok := Num(c, k)
				if !ok {
					changed = true
				}
				nc[k] = num(v)
				total += v
			}
			if _, ok := Num(c, "total"); !ok {
				nc["total"] = num(total)
				changed = true
			}
			nu["cost"] = nc
		}
	} else if _, has := u["cost"]; has {
		delete(nu, "cost")
		changed = true
	}
	return nu, changed
}

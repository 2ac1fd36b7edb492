// Package compaction re-computes, offline, what pi and OpenClaw's compaction would decide for a
// session (spec context-and-forensics.md §2): per-message token estimates, context tokens from
// the last usable usage, the trigger with OpenClaw's reserve floor, the cut point that never
// separates a tool call from its result, split turns, the boundary of the next compaction in
// both generations, the multi-stage summarization chunk plan and the memory-flush threshold.
// It calls no model and writes nothing.
package compaction

import (
	"unicode/utf16"

	"github.com/clawdoctor/clawdoctor/internal/hygiene"
	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
)

// Estimator selects the token estimator generation.
type Estimator string

const (
	// EstimatorPi is pi-0.58 estimateTokens: ceil(chars/4) per message, user images free,
	// 4800 chars per image in custom and toolResult messages.
	EstimatorPi Estimator = "pi"
	// EstimatorCJK is the OC-core variant: CJK code points count 4 chars (one token) each and
	// every image in user, custom and toolResult messages counts 2000 tokens.
	EstimatorCJK Estimator = "cjk"
)

// jsLen is JavaScript's String.length: UTF-16 code units.
func jsLen(s string) int { return jsonobj.UTF16Len(s) }

// isCJK is the OC-core non-Latin class of estimateStringChars.
func isCJK(r rune) bool {
	return (r >= 0x2E80 && r <= 0x9FFF) || (r >= 0xA000 && r <= 0xA4FF) || (r >= 0xAC00 && r <= 0xD7AF) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0xFF01 && r <= 0xFF60) || (r >= 0xFFE0 && r <= 0xFFE6) ||
		(r >= 0x20000 && r <= 0x2FA1F)
}

func (e Estimator) chars(s string) int {
	if e != EstimatorCJK {
		return jsLen(s)
	}
	n := jsLen(s) // a lone surrogate (jsonobj.DecodeJS) is one unit and not CJK
	for _, r := range s {
		if isCJK(r) {
			n += 4 - utf16.RuneLen(r)
		}
	}
	return n
}

func (e Estimator) imageChars(role string) int {
	if e == EstimatorCJK {
		return 8000
	}
	if role == "user" {
		return 0
	}
	return 4800
}

// contentChars sums text (and images) of a string-or-blocks content.
func (e Estimator) contentChars(v any, role string) int {
	switch c := v.(type) {
	case string:
		return e.chars(c)
	case []any:
		n := 0
		for _, x := range c {
			b, ok := hygiene.Block(x)
			if !ok {
				continue
			}
			switch t, _ := hygiene.Str(b, "type"); t {
			case "text":
				s, _ := hygiene.Str(b, "text")
				n += e.chars(s)
			case "image":
				n += e.imageChars(role)
			}
		}
		return n
	}
	return 0
}

// Tokens is estimateTokens for one message (pi roles, custom roles included).
func (e Estimator) Tokens(m hygiene.Message) int {
	role := hygiene.Role(m)
	chars := 0
	switch role {
	case "user", "custom", "toolResult":
		chars = e.contentChars(m["content"], role)
	case "assistant":
		bl, _ := hygiene.Blocks(m)
		for _, x := range bl {
			b, ok := hygiene.Block(x)
			if !ok {
				continue
			}
			switch t, _ := hygiene.Str(b, "type"); t {
			case "text":
				s, _ := hygiene.Str(b, "text")
				chars += e.chars(s)
			case "thinking":
				s, _ := hygiene.Str(b, "thinking")
				chars += e.chars(s)
			case "toolCall":
				name, _ := hygiene.Str(b, "name")
				chars += e.chars(name) + e.chars(hygiene.Stringify(b["arguments"]))
			}
		}
	case "bashExecution":
		c, _ := hygiene.Str(m, "command")
		o, _ := hygiene.Str(m, "output")
		chars = e.chars(c) + e.chars(o)
	case "branchSummary", "compactionSummary":
		s, _ := hygiene.Str(m, "summary")
		chars = e.chars(s)
	}
	return (chars + 3) / 4
}

// ContextTokens is calculateContextTokens: totalTokens, else the sum of the four counters.
func ContextTokens(usage map[string]any) int {
	if t, ok := hygiene.Num(usage, "totalTokens"); ok && t > 0 {
		return int(t)
	}
	sum := 0.0
	for _, k := range []string{"input", "output", "cacheRead", "cacheWrite"} {
		v, _ := hygiene.Num(usage, k)
		sum += v
	}
	return int(sum)
}

// usable reports an assistant whose usage counts: stopReason neither aborted nor error.
func usable(m hygiene.Message) (map[string]any, bool) {
	if hygiene.Role(m) != "assistant" {
		return nil, false
	}
	if r := hygiene.StopReason(m); r == "aborted" || r == "error" {
		return nil, false
	}
	u, ok := m["usage"].(map[string]any)
	return u, ok
}

// ContextEstimate is estimateContextTokens' result.
type ContextEstimate struct {
	Tokens         JSNum `json:"tokens"`
	UsageTokens    JSNum `json:"usage_tokens"`
	TrailingTokens JSNum `json:"trailing_tokens"`
	LastUsageIndex int   `json:"last_usage_index"` // -1 when no usage was usable
	// Error is set when OpenClaw's estimator would throw on one of the messages.
	Error string `json:"error,omitempty"`
}

// EstimateContext is estimateContextTokens with estimator e (lenient: what OpenClaw throws on
// counts 0): the last usable usage plus estimates of the messages after it, or the estimate of
// every message when no usage is usable.
func (e Estimator) EstimateContext(msgs []hygiene.Message) ContextEstimate {
	ce := ContextEstimate{LastUsageIndex: -1}
	for i := len(msgs) - 1; i >= 0; i-- {
		if u, ok := usable(msgs[i]); ok {
			ce.LastUsageIndex = i
			ce.UsageTokens = JSNum(ContextTokens(u))
			break
		}
	}
	for _, m := range msgs[ce.LastUsageIndex+1:] {
		ce.TrailingTokens += JSNum(e.Tokens(m))
	}
	ce.Tokens = ce.UsageTokens + ce.TrailingTokens
	return ce
}

package compaction

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/hygiene"
)

// OpenClaw's compaction code is plain JavaScript arithmetic over whatever the transcript holds:
// a usage counter that is missing turns a sum into NaN (and NaN never crosses a threshold), a
// message whose content is not iterable makes estimateTokens throw. The helpers here reproduce
// that, so the plan says what OpenClaw would decide on damaged input too.

// JSNum is a number as OpenClaw computes it: NaN (written as null, as JSON.stringify does)
// when the arithmetic met something that is not a number.
type JSNum float64

// NaN is JSNum's not-a-number.
var NaN = JSNum(math.NaN())

// Valid reports whether n is a number (not NaN or infinite).
func (n JSNum) Valid() bool { return !math.IsNaN(float64(n)) && !math.IsInf(float64(n), 0) }

// Int is n as an int (0 when not Valid).
func (n JSNum) Int() int {
	if !n.Valid() {
		return 0
	}
	return int(n)
}

// MarshalJSON writes NaN and infinities as null.
func (n JSNum) MarshalJSON() ([]byte, error) {
	if !n.Valid() {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatFloat(float64(n), 'f', -1, 64)), nil
}

// UnmarshalJSON reads a number, or null as NaN.
func (n *JSNum) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = NaN
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*n = JSNum(f)
	return nil
}

// errThrows marks where OpenClaw's code would throw a TypeError.
var errThrows = errors.New("OpenClaw's estimator throws (TypeError)")

// jsToNumber is JavaScript's Number(v) for decoded JSON (undefined is nil-and-absent, see
// present).
func jsToNumber(v any, present bool) float64 {
	switch x := v.(type) {
	case nil:
		if present {
			return 0 // null
		}
		return math.NaN()
	case bool:
		if x {
			return 1
		}
		return 0
	case string:
		t := strings.TrimSpace(x)
		if t == "" {
			return 0
		}
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return math.NaN()
		}
		return f
	case json.Number:
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	case float64:
		return x
	}
	return math.NaN() // objects and arrays (close enough: [] and [5] are rare here)
}

// field reads obj[key] with presence.
func field(obj map[string]any, key string) (any, bool) {
	v, ok := obj[key]
	return v, ok
}

// jsLength is `v.length` for an estimator operand: a string's UTF-16 length, an array's
// length, undefined (NaN) for other values, and a throw for undefined/null.
func jsLength(v any, present bool) (float64, error) {
	switch x := v.(type) {
	case nil:
		return 0, errThrows
	case string:
		return float64(jsLen(x)), nil
	case []any:
		return float64(len(x)), nil
	}
	_ = present
	return math.NaN(), nil
}

// blockChars is countContentBlockChars: text blocks with truthy text and (imageChars > 0)
// images; a null block throws.
func blockChars(content []any, imageChars float64) (float64, error) {
	chars := 0.0
	for _, v := range content {
		if v == nil {
			return 0, errThrows
		}
		b, ok := v.(map[string]any)
		if !ok {
			continue
		}
		switch b["type"] {
		case "text":
			if t, present := field(b, "text"); truthyJS(t) {
				n, err := jsLength(t, present)
				if err != nil {
					return 0, err
				}
				chars += n
			}
		case "image":
			chars += imageChars
		}
	}
	return chars, nil
}

func truthyJS(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		f, _ := strconv.ParseFloat(string(x), 64)
		return f != 0 && !math.IsNaN(f)
	}
	return true
}

// iterable returns what `for (const x of v)` iterates: an array's elements, a string's
// characters (never blocks), or ok=false where it throws.
func iterable(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case string:
		return nil, true // characters: no block has a type
	}
	return nil, false
}

// JSTokens is estimateTokens exactly as release r runs it: NaN where a length is not a number,
// an error where it throws. From 2026.6.11 images in user messages count 4800 characters.
func JSTokens(m hygiene.Message, r hygiene.Release) (JSNum, error) {
	chars := 0.0
	ceil := func() (JSNum, error) { return JSNum(math.Ceil(chars / 4)), nil }
	userImages := 0.0
	if compareRelease(r, hygiene.Release20260611) >= 0 {
		userImages = 4800
	}
	role, _ := m["role"].(string)
	switch role {
	case "user":
		switch c := m["content"].(type) {
		case string:
			chars = float64(jsLen(c))
		case []any:
			n, err := blockChars(c, userImages)
			if err != nil {
				return 0, err
			}
			chars = n
		}
		return ceil()
	case "assistant":
		blocks, ok := iterable(m["content"])
		if !ok {
			return 0, errThrows
		}
		for _, v := range blocks {
			if v == nil {
				return 0, errThrows
			}
			b, ok := v.(map[string]any)
			if !ok {
				continue
			}
			var n float64
			var err error
			switch b["type"] {
			case "text":
				t, p := field(b, "text")
				n, err = jsLength(t, p)
			case "thinking":
				t, p := field(b, "thinking")
				n, err = jsLength(t, p)
			case "toolCall":
				nm, p := field(b, "name")
				if n, err = jsLength(nm, p); err == nil {
					args, hasArgs := field(b, "arguments")
					s, defined := stringify(args, hasArgs)
					if !defined {
						if compareRelease(r, hygiene.Release20260611) < 0 {
							return 0, errThrows // JSON.stringify(undefined).length
						}
						s = "undefined"
					}
					n += float64(jsLen(s))
				}
			}
			if err != nil {
				return 0, err
			}
			chars += n
		}
		return ceil()
	case "custom", "toolResult":
		if s, ok := m["content"].(string); ok {
			chars = float64(jsLen(s))
			return ceil()
		}
		blocks, ok := iterable(m["content"])
		if !ok {
			return 0, errThrows
		}
		n, err := blockChars(blocks, 4800)
		if err != nil {
			return 0, err
		}
		chars = n
		return ceil()
	case "bashExecution":
		c, p1 := field(m, "command")
		o, p2 := field(m, "output")
		a, err := jsLength(c, p1)
		if err != nil {
			return 0, err
		}
		b, err := jsLength(o, p2)
		if err != nil {
			return 0, err
		}
		chars = a + b
		return ceil()
	case "branchSummary", "compactionSummary":
		s, p := field(m, "summary")
		n, err := jsLength(s, p)
		if err != nil {
			return 0, err
		}
		chars = n
		return ceil()
	}
	return 0, nil
}

// stringify is JSON.stringify(v) (defined=false for undefined).
func stringify(v any, present bool) (string, bool) {
	if !present {
		return "", false
	}
	if v == nil {
		return "null", true
	}
	return hygiene.Stringify(v), true
}

// jsUsage is getAssistantUsage: the usage of an assistant that did not fail, when truthy.
func jsUsage(m hygiene.Message) (any, bool) {
	if m == nil || m["role"] != "assistant" {
		return nil, false
	}
	u, has := m["usage"]
	if !has || !truthyJS(u) {
		return nil, false
	}
	if r := hygiene.StopReason(m); r == "aborted" || r == "error" {
		return nil, false
	}
	return u, true
}

// JSContextTokens is calculateContextTokens: totalTokens when truthy, else the sum of the
// four counters (NaN when one is missing or not a number).
func JSContextTokens(usage any) JSNum {
	u, ok := usage.(map[string]any)
	if !ok {
		return NaN
	}
	if t, has := field(u, "totalTokens"); truthyJS(t) {
		return JSNum(jsToNumber(t, has))
	}
	sum := 0.0
	for _, k := range []string{"input", "output", "cacheRead", "cacheWrite"} {
		v, has := field(u, k)
		sum += jsToNumber(v, has)
	}
	return JSNum(sum)
}

// JSEstimateContext is estimateContextTokens as release r runs it.
func JSEstimateContext(msgs []hygiene.Message, r hygiene.Release) (ContextEstimate, error) {
	ce := ContextEstimate{LastUsageIndex: -1}
	for i := len(msgs) - 1; i >= 0; i-- {
		if u, ok := jsUsage(msgs[i]); ok {
			ce.LastUsageIndex = i
			ce.UsageTokens = JSContextTokens(u)
			break
		}
	}
	trailing := JSNum(0)
	for _, m := range msgs[ce.LastUsageIndex+1:] {
		t, err := JSTokens(m, r)
		if err != nil {
			return ce, err
		}
		trailing += t
	}
	ce.TrailingTokens = trailing
	ce.Tokens = ce.UsageTokens + trailing
	return ce, nil
}

func compareRelease(a, b hygiene.Release) int {
	if a == "" {
		a = hygiene.DefaultRelease
	}
	return hygiene.CompareReleases(a, b)
}

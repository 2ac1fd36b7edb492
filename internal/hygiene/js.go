package hygiene

import (
	"encoding/json"
	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/session"
)

// JavaScript semantics the ported sanitizers depend on. OpenClaw's code tests values with
// typeof, truthiness, String.prototype.trim and Date.parse; these helpers give the same
// answers on decoded JSON (map[string]any, []any, string, json.Number, bool, nil).

var (
	jsTrim      = session.JSTrim
	jsTrimStart = session.JSTrimStart
	jsTrimEnd   = session.JSTrimEnd
)

// jsSpaceChars is JavaScript's \s character class without its brackets, for regular
// expressions ported from JS (Go's \s is ASCII only).
const jsSpaceChars = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

// jsRe compiles a JavaScript regular expression, giving \s JavaScript's meaning inside and
// outside character classes ([\s\S] is any character).
func jsRe(expr string) *lazyre.Regexp {
	expr = strings.ReplaceAll(expr, `[\s\S]`, `[\x00-\x{10FFFF}]`)
	var b strings.Builder
	inClass := false
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case c == '\\' && i+1 < len(expr):
			if expr[i+1] == 's' {
				if inClass {
					b.WriteString(jsSpaceChars)
				} else {
					b.WriteString("[" + jsSpaceChars + "]")
				}
			} else {
				b.WriteString(expr[i : i+2])
			}
			i++
			continue
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		}
		b.WriteByte(c)
	}
	return lazyre.New(b.String())
}

// isObject is `v && typeof v === "object"`: objects and arrays, not null.
func isObject(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// isNumber is typeof v === "number".
func isNumber(v any) bool {
	switch v.(type) {
	case json.Number, float64, int, int64:
		return true
	}
	return false
}

// numberOf returns v's value when typeof v === "number".
func numberOf(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			// out of float64 range: JSON.parse gives ±Infinity
			if strings.HasPrefix(string(x), "-") {
				return math.Inf(-1), true
			}
			return math.Inf(1), true
		}
		return f, true
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

// finite is asFiniteNumber: v when it is a finite number.
func finite(v any) (float64, bool) {
	f, ok := numberOf(v)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// truthy is JavaScript's Boolean(v) for a decoded JSON value (nil is undefined or null).
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	}
	if f, ok := numberOf(v); ok {
		return f != 0 && !math.IsNaN(f)
	}
	return true
}

// present is `v !== undefined && v !== null` for obj[key].
func present(obj map[string]any, key string) bool {
	v, ok := obj[key]
	return ok && v != nil
}

// optString is normalizeOptionalString: the trimmed string, "" for non-strings and blanks.
func optString(v any) string {
	s, ok := v.(string)
	if !ok {
		return ""
	}
	return jsTrim(s)
}

// num makes a JSON number of an integral or fractional value.
func num(f float64) json.Number {
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return json.Number(strconv.FormatFloat(f, 'f', -1, 64))
	}
	return json.Number(session.JSNumber(f))
}

// isoDate matches the date-time strings Date.parse reads as ISO 8601 (ES §21.4.3.2) and the
// space-separated form V8 also accepts.
var isoDate = lazyre.New(`^([+-]\d{6}|\d{4})(?:-(\d{2})(?:-(\d{2}))?)?(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$`)

// dateParse is Date.parse for the strings transcripts hold: ISO 8601 dates and date-times
// (a date-only string is UTC; a date-time without an offset is local time, here UTC as OpenClaw
// runs under TZ=UTC in the oracle). Other strings give ok=false (NaN).
func dateParse(s string) (ms float64, ok bool) {
	m := isoDate.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, false
	}
	atoi := func(x string, def int) int {
		if x == "" {
			return def
		}
		n, _ := strconv.Atoi(x)
		return n
	}
	year := atoi(strings.TrimPrefix(m[1], "+"), 0)
	month, day := atoi(m[2], 1), atoi(m[3], 1)
	hour, minute, sec := atoi(m[4], 0), atoi(m[5], 0), atoi(m[6], 0)
	if month < 1 || month > 12 || day < 1 || day > 31 || hour > 24 || minute > 59 || sec > 59 ||
		(hour == 24 && (minute != 0 || sec != 0 || strings.Trim(m[7], "0") != "")) {
		return 0, false
	}
	frac := 0.0
	if m[7] != "" {
		digits := m[7]
		if len(digits) > 3 {
			digits = digits[:3]
		}
		for len(digits) < 3 {
			digits += "0"
		}
		frac = float64(atoi(digits, 0))
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC)
	if t.Day() != day {
		return 0, false // Feb 30 and friends
	}
	offset := 0
	if z := m[8]; z != "" && z != "Z" {
		sign := 1
		if z[0] == '-' {
			sign = -1
		}
		hm := strings.ReplaceAll(z[1:], ":", "")
		h := atoi(hm[:2], 0)
		mm := 0
		if len(hm) >= 4 {
			mm = atoi(hm[2:4], 0)
		}
		offset = sign * (h*60 + mm)
	}
	v := float64(t.UnixMilli()) + frac - float64(offset)*60000
	if math.Abs(v) > 8.64e15 {
		return 0, false
	}
	return v, true
}

// timestampMs is parseTimestampMs / parseCompactionUsageTimestamp: a finite number, or a
// string Date.parse reads.
func timestampMs(v any) (float64, bool) {
	if f, ok := finite(v); ok {
		return f, true
	}
	if s, ok := v.(string); ok {
		return dateParse(s)
	}
	return 0, false
}

// jsonParseObject is `JSON.parse(s)` yielding a plain object (not an array, not null).
func jsonParseObject(s string) (map[string]any, bool) {
	v, ok := jsonParse(s)
	m, isMap := v.(map[string]any)
	return m, ok && isMap
}

// jsonParse is JSON.parse: ok is false where it would throw.
func jsonParse(s string) (any, bool) {
	v, err := jsonobj.DecodeJSString(s)
	return v, err == nil
}

// DateValue is `new Date(v).getTime()` for a decoded JSON value: a number is itself (NaN past
// ±8.64e15), a string is Date.parse'd, null is 0, true/false 1/0; anything else NaN.
func DateValue(v any, present bool) float64 {
	switch x := v.(type) {
	case nil:
		if present {
			return 0
		}
		return math.NaN()
	case bool:
		if x {
			return 1
		}
		return 0
	case string:
		if ms, ok := dateParse(x); ok {
			return ms
		}
		return math.NaN()
	}
	if f, ok := finite(v); ok && math.Abs(f) <= 8.64e15 {
		return math.Trunc(f)
	}
	return math.NaN()
}

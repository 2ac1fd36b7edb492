package hygiene

import (
	"encoding/json"
	"math"
	"strings"
)

// asSent is v as JSON.stringify writes what JSON.parse read: a number literal out of
// float64's range (1776055e27952) is ±Infinity in JavaScript and goes out as null. Inside the
// pipeline it stays a number (typeof "number", as in OpenClaw); only what is sent changes. v is
// returned as it is, without a copy, when it holds no such literal.
func asSent(v any) any {
	if !hasOverflow(v) {
		return v
	}
	return replaceOverflow(v)
}

// overflows reports whether n is ±Infinity to JSON.parse (numberOf). Only a literal with an
// exponent or over 308 digits can be, so the others are not parsed.
func overflows(n json.Number) bool {
	s := string(n)
	if len(s) <= 308 && !strings.ContainsAny(s, "eE") {
		return false
	}
	f, _ := numberOf(n)
	return math.IsInf(f, 0)
}

func hasOverflow(v any) bool {
	switch x := v.(type) {
	case json.Number:
		return overflows(x)
	case map[string]any:
		for _, e := range x {
			if hasOverflow(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasOverflow(e) {
				return true
			}
		}
	}
	return false
}

func replaceOverflow(v any) any {
	switch x := v.(type) {
	case json.Number:
		if overflows(x) {
			return nil
		}
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = replaceOverflow(e)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = replaceOverflow(e)
		}
		return c
	}
	return v
}

package replaycheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/internal/session"
)

// Canonical encodes v (decoded JSON or any value encoding/json accepts) as canonical JSON:
// object keys sorted, numbers written as their float64 value in shortest form, no HTML
// escaping. Two values are "equal as JSON" when their canonical forms are equal: key order and
// number spelling (1 vs 1.0) do not count, everything else does.
func Canonical(v any) ([]byte, error) {
	norm, err := normalize(v)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	writeCanon(&b, norm)
	return b.Bytes(), nil
}

// normalize round-trips v through JSON as JavaScript reads it (jsonobj.DecodeJS), so every
// number is a json.Number, every object a map[string]any, and a lone surrogate stays itself
// on both sides (encoding/json made "\ud800" and "\ufffd" one string, and so could not tell
// a call id OpenClaw kept from one we replaced).
func normalize(v any) (any, error) {
	raw, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = jsonobj.MarshalJS(v, true); err != nil {
			return nil, err
		}
	}
	return jsonobj.DecodeJS(bytes.TrimSpace(raw))
}

func writeCanon(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case json.Number:
		b.WriteString(canonNumber(x))
	case string:
		s, _ := jsonobj.MarshalJS(x, false)
		b.Write(s)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanon(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanon(b, k)
			b.WriteByte(':')
			writeCanon(b, x[k])
		}
		b.WriteByte('}')
	default:
		fmt.Fprintf(b, "%q", fmt.Sprint(x))
	}
}

// canonNumber writes a number as JavaScript does (1e21 and up in exponent form).
func canonNumber(n json.Number) string {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) {
		return string(n)
	}
	return session.JSNumber(f)
}

// FirstDiff returns "" when want and got are equal as JSON, else the path of the first
// difference and both values there, e.g. `[3].content[0].text: "a" != "b"`.
func FirstDiff(want, got any) string {
	w, err1 := normalize(want)
	g, err2 := normalize(got)
	if err1 != nil || err2 != nil {
		return fmt.Sprintf("not JSON: %v %v", err1, err2)
	}
	return diffAt("", w, g)
}

func diffAt(path string, w, g any) string {
	switch wx := w.(type) {
	case map[string]any:
		gx, ok := g.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %s != %s", orRoot(path), short(w), short(g))
		}
		keys := map[string]bool{}
		for k := range wx {
			keys[k] = true
		}
		for k := range gx {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			wv, wok := wx[k]
			gv, gok := gx[k]
			p := path + "." + k
			switch {
			case !wok:
				return fmt.Sprintf("%s: missing in oracle, ours %s", p, short(gv))
			case !gok:
				return fmt.Sprintf("%s: oracle %s, missing in ours", p, short(wv))
			}
			if d := diffAt(p, wv, gv); d != "" {
				return d
			}
		}
		return ""
	case []any:
		gx, ok := g.([]any)
		if !ok {
			return fmt.Sprintf("%s: %s != %s", orRoot(path), short(w), short(g))
		}
		for i := 0; i < len(wx) && i < len(gx); i++ {
			if d := diffAt(fmt.Sprintf("%s[%d]", path, i), wx[i], gx[i]); d != "" {
				return d
			}
		}
		if len(wx) != len(gx) {
			return fmt.Sprintf("%s: oracle has %d elements, ours %d", orRoot(path), len(wx), len(gx))
		}
		return ""
	}
	a, _ := Canonical(w)
	b, _ := Canonical(g)
	if !bytes.Equal(a, b) {
		return fmt.Sprintf("%s: oracle %s, ours %s", orRoot(path), short(w), short(g))
	}
	return ""
}

func orRoot(p string) string {
	if p == "" {
		return "(root)"
	}
	return strings.TrimPrefix(p, ".")
}

// short renders a value for a difference line: its type and size, never its text, since
// inputs may be personal data (the corpus).
func short(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return canonNumber(x)
	case string:
		return fmt.Sprintf("string(%d)", len(x))
	case []any:
		return fmt.Sprintf("array(%d)", len(x))
	case map[string]any:
		return fmt.Sprintf("object(%d keys)", len(x))
	}
	return fmt.Sprintf("%T", v)
}

package jsonobj

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"unicode/utf8"
)

// Strings from UnquoteJS and DecodeJS hold a lone surrogate (a \udXXX escape that JSON.parse
// keeps as one code unit) as its three-byte generalised UTF-8 form, ED A0..BF 80..BF, so Go
// compares them as JavaScript does. Nothing else makes those bytes: raw ones in a file are
// read as U+FFFD, as Node reads them. The helpers below are where such a string leaves for
// something that is not a comparison.

// loneAt reports whether s[i:] starts with the three-byte form of a lone surrogate.
func loneAt(s string, i int) bool {
	return i+2 < len(s) && s[i] == 0xed && s[i+1] >= 0xa0 && s[i+1] <= 0xbf && s[i+2] >= 0x80 && s[i+2] <= 0xbf
}

// loneUnit is the code unit of the lone surrogate at s[i:].
func loneUnit(s string, i int) uint16 {
	return 0xd000 | uint16(s[i+1]&0x3f)<<6 | uint16(s[i+2]&0x3f)
}

// LoneAt reports whether s[i:] starts with a lone surrogate, and its code unit: for output
// that writes it as \udXXX.
func LoneAt(s string, i int) (uint16, bool) {
	if !loneAt(s, i) {
		return 0, false
	}
	return loneUnit(s, i), true
}

// SliceUTF16 is JavaScript's s.slice(0, n): the first n UTF-16 code units of s. A character
// above U+FFFF cut in two leaves its high surrogate, lone (its three-byte form).
func SliceUTF16(s string, n int) string {
	units := 0
	for i := 0; i < len(s); {
		if units >= n {
			return s[:i]
		}
		size, w := 1, 1
		switch {
		case s[i] < utf8.RuneSelf:
		case loneAt(s, i):
			size = 3
		default:
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			if r >= 0x10000 {
				w = 2
				if units+2 > n { // only the high surrogate fits
					hi := 0xd800 + uint16((r-0x10000)>>10)
					return s[:i] + string([]byte{0xe0 | byte(hi>>12), 0x80 | byte(hi>>6)&0x3f, 0x80 | byte(hi)&0x3f})
				}
			}
		}
		units += w
		i += size
	}
	return s
}

// HasLone reports whether s holds a lone surrogate.
func HasLone(s string) bool {
	for i := strings.IndexByte(s, 0xed); i >= 0; {
		if loneAt(s, i) {
			return true
		}
		j := strings.IndexByte(s[i+1:], 0xed)
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// ToUTF8 is s as JavaScript encodes it to UTF-8 (Buffer.from, a hash's update, a file
// write): each lone surrogate becomes U+FFFD.
func ToUTF8(s string) string {
	if !HasLone(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if loneAt(s, i) {
			b.WriteString("\ufffd")
			i += 3
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// UTF16Len is s's length in UTF-16 code units, JavaScript's s.length: a lone surrogate is
// one, as is every other character below U+10000; one above is two.
func UTF16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			n++
			i++
			continue
		}
		if loneAt(s, i) {
			n++
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}

// DecodeJS decodes one JSON text as JSON.parse reads it, into encoding/json's generic shapes
// with UseNumber (map[string]any, []any, json.Number, string, bool, nil): strings and keys as
// UnquoteJS gives them, ill-formed UTF-8 as U+FFFD per maximal subpart, a duplicate key's
// last value kept. Nesting is bounded by jsonl.MaxDepth.
func DecodeJS(data []byte) (any, error) {
	n, err := parseDocument(data, treeFull)
	if err != nil {
		return nil, err
	}
	return n.toAny(false), nil
}

// DecodeJSString is JSON.parse(s) of a string DecodeJS made (a tool call's partialJson, a
// reasoning signature): a lone surrogate it holds in its three-byte form stays one inside a
// string literal, as V8 keeps the code unit, where DecodeJS would read file bytes as U+FFFD.
func DecodeJSString(s string) (any, error) {
	n, err := parseDocument([]byte(s), treeFull)
	if err != nil {
		return nil, err
	}
	return n.toAny(true), nil
}

func (n *node) toAny(rawLone bool) any {
	switch n.kind {
	case '{':
		m := make(map[string]any, len(n.keys))
		for i := range n.keys {
			k, _ := unquote(n.keys[i], true, rawLone)
			m[string(k)] = n.kids[i].toAny(rawLone)
		}
		return m
	case '[':
		a := make([]any, len(n.kids))
		for i := range n.kids {
			a[i] = n.kids[i].toAny(rawLone)
		}
		return a
	case '"':
		s, _ := unquote(n.raw, true, rawLone)
		return string(s)
	case '0':
		return json.Number(n.raw)
	case 't':
		return true
	case 'f':
		return false
	}
	return nil
}

// MarshalJS is json.Marshal (escapeHTML) or an Encoder without HTML escaping, for the generic
// shapes DecodeJS makes, except that a lone surrogate in a string or key is written as
// JSON.stringify writes it (\udXXX), where encoding/json would write three U+FFFD. A value
// without one is encoding/json's bytes exactly (no trailing newline).
func MarshalJS(v any, escapeHTML bool) ([]byte, error) {
	if !anyLone(v) {
		return marshalStd(v, escapeHTML)
	}
	var b bytes.Buffer
	if err := marshalJS(&b, v, escapeHTML); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func marshalStd(v any, escapeHTML bool) ([]byte, error) {
	if escapeHTML {
		return json.Marshal(v)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func anyLone(v any) bool {
	switch x := v.(type) {
	case string:
		return HasLone(x)
	case map[string]any:
		for k, e := range x {
			if HasLone(k) || anyLone(e) {
				return true
			}
		}
	case []any:
		return listLone(x)
	case []map[string]any:
		return listLone(x)
	}
	return false
}

func listLone[T any](x []T) bool {
	for _, e := range x {
		if anyLone(e) {
			return true
		}
	}
	return false
}

func marshalJS(b *bytes.Buffer, v any, html bool) error {
	switch x := v.(type) {
	case string:
		return marshalString(b, x, html)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // encoding/json's order
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := marshalString(b, k, html); err != nil {
				return err
			}
			b.WriteByte(':')
			if err := marshalJS(b, x[k], html); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	case []any:
		return marshalList(b, x, html)
	case []map[string]any:
		return marshalList(b, x, html)
	}
	raw, err := marshalStd(v, html)
	b.Write(raw)
	return err
}

func marshalList[T any](b *bytes.Buffer, x []T, html bool) error {
	b.WriteByte('[')
	for i, e := range x {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := marshalJS(b, e, html); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	return nil
}

// marshalString writes s as encoding/json does, each run between lone surrogates through it
// (its escaping of U+2028 and U+2029, and of <, > and & when html, kept) and each lone
// surrogate as its escape.
func marshalString(b *bytes.Buffer, s string, html bool) error {
	b.WriteByte('"')
	start := 0
	flush := func(end int) error {
		if end == start {
			return nil
		}
		raw, err := marshalStd(s[start:end], html)
		if err != nil {
			return err
		}
		b.Write(raw[1 : len(raw)-1])
		return nil
	}
	for i := 0; i < len(s); {
		if !loneAt(s, i) {
			i++
			continue
		}
		if err := flush(i); err != nil {
			return err
		}
		u := loneUnit(s, i)
		b.Write([]byte{'\\', 'u', hexDigits[u>>12], hexDigits[u>>8&0xf], hexDigits[u>>4&0xf], hexDigits[u&0xf]})
		i += 3
		start = i
	}
	if err := flush(len(s)); err != nil {
		return err
	}
	b.WriteByte('"')
	return nil
}

package jsonobj

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"
)

// Stringify re-serializes the JSON text data as JavaScript's
// JSON.stringify(JSON.parse(data), null, indent) would, except that number tokens are kept as
// written (JSON.stringify would print 1.0 as 1). With indent "  " this is the way OpenClaw
// writes sessions.json (store.md §7.1): one member per line, `"key": value`, `{}` and `[]` for
// empty containers, integer-like keys first in ascending order then the others in source order,
// a repeated key keeping its first position and its last value, JS string escaping, and no
// trailing newline. An empty indent gives the compact form.
func Stringify(data []byte, indent string) ([]byte, error) {
	n, err := parseDocument(data, treeFull)
	if err != nil {
		return nil, err
	}
	w := &stringifier{indent: indent, out: make([]byte, 0, len(data)+len(data)/4)}
	w.node(&n, 0)
	return w.out, nil
}

// Canonical is exactly JSON.stringify(JSON.parse(data)): Stringify with no indent and numbers
// written as JavaScript prints them (1.0 → 1, 1e21 → 1e+21, 1e400 → null). data must be valid
// UTF-8 (decode it as Node would first when it may not be).
func Canonical(data []byte) ([]byte, error) {
	n, err := parseDocument(data, treeFull)
	if err != nil {
		return nil, err
	}
	w := &stringifier{jsNumbers: true, out: make([]byte, 0, len(data))}
	w.node(&n, 0)
	return w.out, nil
}

type stringifier struct {
	indent    string
	jsNumbers bool // numbers as Number.prototype.toString writes them, not as written
	out       []byte
	scratch   []uint16
}

func (w *stringifier) newline(depth int) {
	if w.indent == "" {
		return
	}
	w.out = append(w.out, '\n')
	for range depth {
		w.out = append(w.out, w.indent...)
	}
}

func (w *stringifier) node(n *node, depth int) {
	switch n.kind {
	case '"':
		w.out = appendStringToken(w.out, n.raw, &w.scratch)
	case '[':
		if len(n.kids) == 0 {
			w.out = append(w.out, '[', ']')
			return
		}
		w.out = append(w.out, '[')
		for i := range n.kids {
			if i > 0 {
				w.out = append(w.out, ',')
			}
			w.newline(depth + 1)
			w.node(&n.kids[i], depth+1)
		}
		w.newline(depth)
		w.out = append(w.out, ']')
	case '{':
		members := orderMembers(n.keys, &w.scratch)
		if len(members) == 0 {
			w.out = append(w.out, '{', '}')
			return
		}
		w.out = append(w.out, '{')
		for i, m := range members {
			if i > 0 {
				w.out = append(w.out, ',')
			}
			w.newline(depth + 1)
			w.out = append(w.out, m.quoted...)
			w.out = append(w.out, ':')
			if w.indent != "" {
				w.out = append(w.out, ' ')
			}
			w.node(&n.kids[m.value], depth+1)
		}
		w.newline(depth)
		w.out = append(w.out, '}')
	case '0':
		if w.jsNumbers {
			f, _ := strconv.ParseFloat(string(n.raw), 64) // out of range: ±Inf or 0, as in JavaScript
			w.out = append(w.out, FormatNumber(f)...)
			return
		}
		w.out = append(w.out, n.raw...)
	default: // literals: the token as written
		w.out = append(w.out, n.raw...)
	}
}

// orderedMember is one distinct key of an object in JS own-property order.
type orderedMember struct {
	quoted []byte // the key as JSON.stringify writes it; also its identity
	value  int    // index of the (last) value among the object's children
	index  uint64 // array index value when isIndex
	first  int    // position of the first occurrence
	isIdx  bool
}

// orderMembers applies JSON.parse + own-property-key semantics to an object's raw keys.
func orderMembers(keys [][]byte, scratch *[]uint16) []orderedMember {
	out := make([]orderedMember, 0, len(keys))
	var seen map[string]int
	if len(keys) > 8 {
		seen = make(map[string]int, len(keys))
	}
	for i, k := range keys {
		q := k // a token without escapes and with valid UTF-8 is already in JS form
		if !plainToken(k) {
			q = appendStringToken(nil, k, scratch)
		}
		idx, isIdx := arrayIndex(q)
		j := -1
		if seen != nil {
			if p, ok := seen[string(q)]; ok {
				j = p
			}
		} else {
			for p := range out {
				if bytes.Equal(out[p].quoted, q) {
					j = p
					break
				}
			}
		}
		if j >= 0 {
			out[j].value = i
			continue
		}
		if seen != nil {
			seen[string(q)] = len(out)
		}
		out = append(out, orderedMember{quoted: q, value: i, index: idx, first: i, isIdx: isIdx})
	}
	if slices.ContainsFunc(out, func(m orderedMember) bool { return m.isIdx }) {
		slices.SortStableFunc(out, func(a, b orderedMember) int {
			switch {
			case a.isIdx && b.isIdx:
				return cmp.Compare(a.index, b.index)
			case a.isIdx:
				return -1
			case b.isIdx:
				return 1
			}
			return 0
		})
	}
	return out
}

// Compact appends src, a valid JSON text, to dst without insignificant whitespace. Tokens are
// kept byte for byte (unlike encoding/json's Compact, nothing is re-escaped).
func Compact(dst, src []byte) []byte {
	inStr, esc := false, false
	for _, c := range src {
		if inStr {
			dst = append(dst, c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		if isSpace(c) {
			continue
		}
		if c == '"' {
			inStr = true
		}
		dst = append(dst, c)
	}
	return dst
}

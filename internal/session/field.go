package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
)

// This file is a small byte-level JSON editor for one entry line. It finds the byte span of a
// value by path and rewrites only that span, so every other byte of the line (key order,
// spacing, number spelling, escapes) stays as it was. It is also the fast path the tree index
// uses to read a few top-level fields without decoding a whole (possibly huge) line.

// ErrSyntax reports a line that is not well-formed JSON where the editor needed to walk it.
var ErrSyntax = errors.New("malformed JSON")

// ErrNotContainer is returned when a path goes through a value that is not an object or array.
var ErrNotContainer = errors.New("path goes through a value that is not an object or array")

// span is the byte range [start, end) of a JSON value inside a line.
type span struct{ start, end int }

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipWS(b []byte, i int) int {
	for i < len(b) && isWS(b[i]) {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts with the quote at b[i].
func skipString(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, ErrSyntax
		}
		q := j + k
		n := 0 // backslashes right before the quote
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
}

// skipValue returns the index just past the value that starts at b[i] (i at its first byte).
// It checks nesting and string ends but not every detail of the grammar; callers that need a
// strict answer validate the line first.
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, ErrSyntax
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); {
			switch b[j] {
			case '"':
				e, err := skipString(b, j)
				if err != nil {
					return 0, err
				}
				j = e
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
			j++
		}
		return 0, ErrSyntax
	default: // number, true, false, null
		j := i
		for j < len(b) && !isWS(b[j]) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
			j++
		}
		if j == i {
			return 0, ErrSyntax
		}
		return j, nil
	}
}

// member is one "key": value pair of an object.
type member struct {
	keyStart int  // index of the key's opening quote
	key      span // the key including quotes
	val      span
}

// keyEquals reports whether the raw key (with quotes) names k, decoding escapes if present.
func keyEquals(raw []byte, k string) bool {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner) == k
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return false
	}
	return s == k
}

// eachMember calls fn for each member of the object that starts at b[i] (after spaces) and
// returns the index of the object's closing brace. fn returns false to stop early.
func eachMember(b []byte, i int, fn func(m member) bool) (closing int, err error) {
	i = skipWS(b, i)
	if i >= len(b) || b[i] != '{' {
		return 0, ErrNotContainer
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, ErrSyntax
		}
		ke, err := skipString(b, i)
		if err != nil {
			return 0, err
		}
		m := member{keyStart: i, key: span{i, ke}}
		i = skipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return 0, ErrSyntax
		}
		i = skipWS(b, i+1)
		ve, err := skipValue(b, i)
		if err != nil {
			return 0, err
		}
		m.val = span{i, ve}
		if fn != nil && !fn(m) {
			return -1, nil
		}
		i = skipWS(b, ve)
		if i >= len(b) {
			return 0, ErrSyntax
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return i, nil
		default:
			return 0, ErrSyntax
		}
	}
}

// eachElement calls fn for each element of the array that starts at b[i].
func eachElement(b []byte, i int, fn func(idx int, v span) bool) (closing int, err error) {
	i = skipWS(b, i)
	if i >= len(b) || b[i] != '[' {
		return 0, ErrNotContainer
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i, nil
	}
	for n := 0; ; n++ {
		ve, err := skipValue(b, i)
		if err != nil {
			return 0, err
		}
		if fn != nil && !fn(n, span{i, ve}) {
			return -1, nil
		}
		i = skipWS(b, ve)
		if i >= len(b) {
			return 0, ErrSyntax
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case ']':
			return i, nil
		default:
			return 0, ErrSyntax
		}
	}
}

// lookup finds the value of key k in the object at b[i]. Like JSON.parse, the last of
// duplicate keys wins. found is false when the key is absent.
func lookup(b []byte, i int, k string) (v span, found bool, err error) {
	_, err = eachMember(b, i, func(m member) bool {
		if keyEquals(b[m.key.start:m.key.end], k) {
			v, found = m.val, true
		}
		return true
	})
	return v, found, err
}

// find walks path from the value at b[i] and returns the span of the value it names.
func find(b []byte, i int, path []string) (span, bool, error) {
	i = skipWS(b, i)
	end, err := skipValue(b, i)
	if err != nil {
		return span{}, false, err
	}
	cur := span{i, end}
	for _, seg := range path {
		switch b[cur.start] {
		case '{':
			v, ok, err := lookup(b, cur.start, seg)
			if err != nil || !ok {
				return span{}, false, err
			}
			cur = v
		case '[':
			n, err := strconv.Atoi(seg)
			if err != nil || n < 0 {
				return span{}, false, nil
			}
			var v span
			ok := false
			if _, err := eachElement(b, cur.start, func(idx int, s span) bool {
				if idx == n {
					v, ok = s, true
					return false
				}
				return true
			}); err != nil {
				return span{}, false, err
			}
			if !ok {
				return span{}, false, nil
			}
			cur = v
		default:
			return span{}, false, ErrNotContainer
		}
	}
	return cur, true, nil
}

func splitPath(path string) []string {
	if path == "" {
		return nil
	}
	return strings.Split(path, ".")
}

// GetField returns the raw bytes of the value at path (dot-separated keys; a decimal segment
// indexes an array) in line, or ok=false when it is absent. The bytes alias line.
func GetField(line []byte, path string) (raw []byte, ok bool, err error) {
	return GetFieldPath(line, splitPath(path))
}

// GetFieldPath is GetField with the path given as separate keys (for keys holding dots).
func GetFieldPath(line []byte, path []string) ([]byte, bool, error) {
	s, ok, err := find(line, 0, path)
	if err != nil || !ok {
		return nil, false, err
	}
	return line[s.start:s.end], true, nil
}

// SetField returns a copy of line with the value at path replaced by value (raw JSON). Only the
// bytes of that value change: every other key keeps its position and spelling. A missing key is
// appended at the end of its object (as JavaScript does when a new property is assigned), and
// missing intermediate objects are created. With duplicate keys the last one (the one
// JSON.parse keeps) is replaced.
func SetField(line []byte, path string, value []byte) ([]byte, error) {
	return SetFieldPath(line, splitPath(path), value)
}

// SetFieldPath is SetField with the path given as separate keys.
func SetFieldPath(line []byte, path []string, value []byte) ([]byte, error) {
	if len(path) == 0 {
		return nil, fmt.Errorf("set field: empty path")
	}
	if !json.Valid(value) {
		return nil, fmt.Errorf("set field %s: value is not valid JSON", strings.Join(path, "."))
	}
	value = bytes.TrimSpace(value)
	start := skipWS(line, 0)
	cur := span{start, 0}
	var err error
	if cur.end, err = skipValue(line, start); err != nil {
		return nil, fmt.Errorf("set field %s: %w", strings.Join(path, "."), err)
	}
	for n, seg := range path {
		if line[cur.start] == '[' {
			idx, aerr := strconv.Atoi(seg)
			var v span
			ok := false
			if aerr == nil {
				_, err = eachElement(line, cur.start, func(i int, s span) bool {
					if i == idx {
						v, ok = s, true
						return false
					}
					return true
				})
				if err != nil {
					return nil, fmt.Errorf("set field %s: %w", strings.Join(path, "."), err)
				}
			}
			if !ok {
				return nil, fmt.Errorf("set field %s: no array element %q", strings.Join(path, "."), seg)
			}
			cur = v
			continue
		}
		if line[cur.start] != '{' {
			return nil, fmt.Errorf("set field %s: %w", strings.Join(path[:n], "."), ErrNotContainer)
		}
		v, ok, err := lookup(line, cur.start, seg)
		if err != nil {
			return nil, fmt.Errorf("set field %s: %w", strings.Join(path, "."), err)
		}
		if !ok {
			// Append "seg": <rest> at the end of this object.
			closing, err := eachMember(line, cur.start, nil)
			if err != nil {
				return nil, fmt.Errorf("set field %s: %w", strings.Join(path, "."), err)
			}
			var ins bytes.Buffer
			if skipWS(line, cur.start+1) != closing {
				ins.WriteByte(',')
			}
			ins.Write(jsonobj.Quote(seg))
			ins.WriteByte(':')
			for _, k := range path[n+1:] {
				ins.WriteByte('{')
				ins.Write(jsonobj.Quote(k))
				ins.WriteByte(':')
			}
			ins.Write(value)
			for range path[n+1:] {
				ins.WriteByte('}')
			}
			return splice(line, closing, closing, ins.Bytes()), nil
		}
		cur = v
	}
	return splice(line, cur.start, cur.end, value), nil
}

// DeleteField returns a copy of line without the member at path (every duplicate of it). The
// separator next to it goes too; all other bytes stay. A missing member is not an error:
// deleted is false and line is returned unchanged.
func DeleteField(line []byte, path string) (out []byte, deleted bool, err error) {
	return DeleteFieldPath(line, splitPath(path))
}

// DeleteFieldPath is DeleteField with the path given as separate keys.
func DeleteFieldPath(line []byte, path []string) ([]byte, bool, error) {
	if len(path) == 0 {
		return nil, false, fmt.Errorf("delete field: empty path")
	}
	parent, ok, err := find(line, 0, path[:len(path)-1])
	if err != nil {
		return nil, false, fmt.Errorf("delete field %s: %w", strings.Join(path, "."), err)
	}
	if !ok || line[parent.start] != '{' {
		return line, false, nil
	}
	k := path[len(path)-1]
	out := line
	deleted := false
	for {
		var members []member
		if _, err := eachMember(out, parent.start, func(m member) bool {
			members = append(members, m)
			return true
		}); err != nil {
			return nil, false, fmt.Errorf("delete field %s: %w", strings.Join(path, "."), err)
		}
		i := -1
		for j, m := range members {
			if keyEquals(out[m.key.start:m.key.end], k) {
				i = j
				break
			}
		}
		if i < 0 {
			return out, deleted, nil
		}
		m := members[i]
		var c span
		switch {
		case i+1 < len(members): // up to the next member's key
			c = span{m.keyStart, members[i+1].keyStart}
		case i > 0: // last member: from the end of the previous value
			c = span{members[i-1].val.end, m.val.end}
		default: // the only member
			c = span{m.keyStart, m.val.end}
		}
		out = splice(out, c.start, c.end, nil)
		deleted = true
	}
}

func splice(line []byte, start, end int, repl []byte) []byte {
	out := make([]byte, 0, len(line)-(end-start)+len(repl))
	out = append(out, line[:start]...)
	out = append(out, repl...)
	return append(out, line[end:]...)
}

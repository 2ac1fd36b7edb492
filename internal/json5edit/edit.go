package json5edit

import (
	"bytes"
	"fmt"
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"strings"
)

// lookup walks path through nested objects. It returns the object holding the last key, the
// member (nil when missing), and an error when an intermediate key is missing or not an object.
func lookup(root *node, path []string) (*node, *member, error) {
	if root.kind != '{' {
		return nil, nil, fmt.Errorf("document is not an object")
	}
	obj := root
	for i, key := range path {
		m, err := find(obj, key)
		if err != nil {
			return nil, nil, err
		}
		if i == len(path)-1 {
			return obj, m, nil
		}
		if m == nil {
			return nil, nil, fmt.Errorf("%s: %w", strings.Join(path[:i+1], "."), ErrNotFound)
		}
		if m.value.kind != '{' {
			return nil, nil, fmt.Errorf("%s is not an object", strings.Join(path[:i+1], "."))
		}
		obj = m.value
	}
	return nil, nil, fmt.Errorf("empty path")
}

// find returns the member named key. A key written twice is refused: which one wins depends on
// the parser, so an automatic edit would not be safe.
func find(obj *node, key string) (*member, error) {
	var found *member
	for _, m := range obj.members {
		if m.key == key {
			if found != nil {
				return nil, fmt.Errorf("key %q appears twice", key)
			}
			found = m
		}
	}
	return found, nil
}

// Get returns the raw text of the value at path.
func Get(src []byte, path ...string) (string, bool, error) {
	root, err := parse(src)
	if err != nil {
		return "", false, err
	}
	_, m, err := lookup(root, path)
	if err != nil || m == nil {
		return "", false, ignoreNotFound(err)
	}
	return string(src[m.value.start:m.value.end]), true, nil
}

func ignoreNotFound(err error) error {
	if err != nil && strings.Contains(err.Error(), ErrNotFound.Error()) {
		return nil
	}
	return err
}

// Delete removes the member at path and returns the new document. Comments stay.
func Delete(src []byte, path ...string) ([]byte, error) {
	root, err := parse(src)
	if err != nil {
		return nil, err
	}
	obj, m, err := lookup(root, path)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("%s: %w", strings.Join(path, "."), ErrNotFound)
	}
	idx := 0
	for i, x := range obj.members {
		if x == m {
			idx = i
		}
	}
	var from, to int
	switch {
	case len(obj.members) == 1 && !hasComment(src[obj.start+1:obj.closeAt]):
		// The only member and nothing else inside: leave "{}" as OpenClaw's doctor does.
		from, to = obj.start+1, obj.closeAt
	case m.commaAt >= 0:
		from, to = m.leadStart, m.commaAt+1
		to = skipBlankToEOL(src, to, from != m.keyStart)
	case idx == 0:
		// The only member, with comments around it that must stay.
		from, to = m.keyStart, m.value.end
	default:
		// Last member without a trailing comma: also remove the previous member's comma.
		prev := obj.members[idx-1]
		from, to = prev.commaAt, m.value.end
		if prev.commaAt < 0 {
			from = prev.value.end
		}
	}
	out := append(append([]byte(nil), src[:from]...), src[to:]...)
	if _, err := parse(out); err != nil {
		return nil, fmt.Errorf("edit would break the document: %w", err)
	}
	return out, nil
}

func hasComment(b []byte) bool {
	return bytes.Contains(b, []byte("//")) || bytes.Contains(b, []byte("/*"))
}

// skipBlankToEOL extends a deletion over trailing blanks and the newline when the deleted text
// started at a line start, so no empty line is left behind.
func skipBlankToEOL(src []byte, i int, lineStart bool) int {
	if !lineStart {
		return i
	}
	j := i
	for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\r') {
		j++
	}
	if j < len(src) && src[j] == '\n' {
		return j + 1
	}
	return i
}

var identRE = lazyre.New(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// Set replaces the value at path with raw (JSON5 text), or inserts the member at the end of its
// parent object in the style of its siblings (quoting, indentation, trailing comma). Missing
// parent objects are an error: callers create them one level at a time.
func Set(src []byte, raw string, path ...string) ([]byte, error) {
	root, err := parse(src)
	if err != nil {
		return nil, err
	}
	if _, err := parse([]byte(raw)); err != nil {
		return nil, fmt.Errorf("value %q: %w", raw, err)
	}
	obj, m, err := lookup(root, path)
	if err != nil {
		return nil, err
	}
	var out []byte
	if m != nil {
		out = splice(src, m.value.start, m.value.end, raw)
	} else {
		out = insert(src, obj, path[len(path)-1], raw)
	}
	if _, err := parse(out); err != nil {
		return nil, fmt.Errorf("edit would break the document: %w", err)
	}
	return out, nil
}

func splice(src []byte, from, to int, text string) []byte {
	out := make([]byte, 0, len(src)+len(text))
	out = append(out, src[:from]...)
	out = append(out, text...)
	return append(out, src[to:]...)
}

func insert(src []byte, obj *node, key, raw string) []byte {
	quote := `"`
	if len(obj.members) > 0 {
		switch src[obj.members[0].keyStart] {
		case '\'':
			quote = "'"
		case '"':
		default:
			quote = ""
		}
	}
	k := key
	if quote == "" && !identRE.MatchString(key) {
		quote = `"`
	}
	if quote != "" {
		k = quote + strings.ReplaceAll(key, quote, `\`+quote) + quote
	}
	if len(obj.members) == 0 {
		indent := lineIndent(src, obj.start)
		return splice(src, obj.start, obj.end, "{\n"+indent+"  "+k+": "+raw+",\n"+indent+"}")
	}
	last := obj.members[len(obj.members)-1]
	indent := string(src[last.leadStart:last.keyStart])
	if last.leadStart == last.keyStart { // same line as something else: one-line object
		if last.commaAt >= 0 {
			return splice(src, last.commaAt+1, last.commaAt+1, " "+k+": "+raw+",")
		}
		return splice(src, last.value.end, last.value.end, ", "+k+": "+raw)
	}
	if last.commaAt >= 0 {
		at := skipBlankToEOL(src, last.commaAt+1, true)
		if at == last.commaAt+1 { // something (a comment) follows the comma on its line
			at = endOfLine(src, at)
		}
		return splice(src, at, at, indent+k+": "+raw+",\n")
	}
	return splice(src, last.value.end, last.value.end, ",\n"+indent+k+": "+raw)
}

func endOfLine(src []byte, i int) int {
	for i < len(src) && src[i] != '\n' {
		i++
	}
	if i < len(src) {
		i++
	}
	return i
}

func lineIndent(src []byte, pos int) string {
	start := pos
	for start > 0 && src[start-1] != '\n' {
		start--
	}
	end := start
	for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

// Valid reports whether src parses as JSON5, with the error when not.
func Valid(src []byte) error {
	_, err := parse(src)
	return err
}

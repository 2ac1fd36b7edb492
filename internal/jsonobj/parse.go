package jsonobj

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/clawdoctor/clawdoctor/jsonl"
)

// maxDepth bounds nesting so hostile input cannot exhaust the stack: jsonl.MaxDepth, the one
// limit of every parser of the project.
const maxDepth = jsonl.MaxDepth

// SyntaxError reports where a JSON text is malformed.
type SyntaxError struct {
	Offset int64 // byte offset of the problem
	Line   int   // 1-based line
	Col    int   // 1-based column in bytes
	Msg    string
	Deep   bool // nested deeper than jsonl.MaxDepth: not corrupt (JSON.parse reads it), not examined
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// Unwrap gives jsonl.ErrTooDeep for input nested too deep.
func (e *SyntaxError) Unwrap() error {
	if e.Deep {
		return jsonl.ErrTooDeep
	}
	return nil
}

func syntaxErr(data []byte, off int, format string, args ...any) error {
	if off > len(data) {
		off = len(data)
	}
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return &SyntaxError{Offset: int64(off), Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// node is one parsed JSON value. Scalars keep their token; containers keep their children.
type node struct {
	kind byte   // '{', '[', '"', '0' (number), 't', 'f', 'n'
	raw  []byte // the value's bytes in the source (container spans include inner whitespace)
	keys [][]byte
	kids []node
}

type parser struct {
	data  []byte
	pos   int
	depth int
	tree  int // build children for containers down to this depth (0: none, maxDepth: all)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (p *parser) skip() {
	for p.pos < len(p.data) && isSpace(p.data[p.pos]) {
		p.pos++
	}
}

func (p *parser) errf(format string, args ...any) error {
	return syntaxErr(p.data, p.pos, format, args...)
}

func describe(c byte) string {
	if c < 0x20 || c >= 0x7f {
		return fmt.Sprintf("byte 0x%02x", c)
	}
	return fmt.Sprintf("character %q", c)
}

// Tree depths for parseDocument.
const (
	treeNone = 0
	treeTop  = 1 // the top-level container's children only (Object members)
	treeFull = maxDepth
)

// parseDocument parses one JSON value surrounded by optional whitespace, building children
// of containers down to depth tree.
func parseDocument(data []byte, tree int) (node, error) {
	p := &parser{data: data, tree: tree}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return node{}, p.errf("byte order mark before the JSON text (JSON.parse rejects it)")
	}
	p.skip()
	n, err := p.value()
	if err != nil {
		return node{}, err
	}
	p.skip()
	if p.pos < len(p.data) {
		return node{}, p.errf("unexpected %s after the JSON value", describe(p.data[p.pos]))
	}
	return n, nil
}

func (p *parser) value() (node, error) {
	if p.pos >= len(p.data) {
		return node{}, p.errf("unexpected end of input, expected a value")
	}
	start := p.pos
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		if err := p.str(); err != nil {
			return node{}, err
		}
		return node{kind: '"', raw: p.data[start:p.pos]}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		if err := p.number(); err != nil {
			return node{}, err
		}
		return node{kind: '0', raw: p.data[start:p.pos]}, nil
	case c == 't':
		return p.literal("true", 't')
	case c == 'f':
		return p.literal("false", 'f')
	case c == 'n':
		return p.literal("null", 'n')
	default:
		return node{}, p.errf("unexpected %s, expected a value", describe(c))
	}
}

func (p *parser) literal(word string, kind byte) (node, error) {
	if !bytes.HasPrefix(p.data[p.pos:], []byte(word)) {
		return node{}, p.errf("invalid literal, expected %s", word)
	}
	start := p.pos
	p.pos += len(word)
	return node{kind: kind, raw: p.data[start:p.pos]}, nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		err := p.errf("nesting deeper than %d", maxDepth)
		var se *SyntaxError
		if errors.As(err, &se) {
			se.Deep = true
		}
		return err
	}
	return nil
}

func (p *parser) object() (node, error) {
	if err := p.enter(); err != nil {
		return node{}, err
	}
	defer func() { p.depth-- }()
	start := p.pos
	p.pos++ // {
	n := node{kind: '{'}
	p.skip()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		n.raw = p.data[start:p.pos]
		return n, nil
	}
	for {
		p.skip()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			if p.pos >= len(p.data) {
				return node{}, p.errf("unexpected end of input in object, expected a key")
			}
			return node{}, p.errf("unexpected %s in object, expected a string key", describe(p.data[p.pos]))
		}
		ks := p.pos
		if err := p.str(); err != nil {
			return node{}, err
		}
		key := p.data[ks:p.pos]
		p.skip()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return node{}, p.errf("expected ':' after object key")
		}
		p.pos++
		p.skip()
		v, err := p.value()
		if err != nil {
			return node{}, err
		}
		if p.depth <= p.tree {
			n.keys = append(n.keys, key)
			n.kids = append(n.kids, v)
		}
		p.skip()
		if p.pos >= len(p.data) {
			return node{}, p.errf("unexpected end of input in object, expected ',' or '}'")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			n.raw = p.data[start:p.pos]
			return n, nil
		default:
			return node{}, p.errf("unexpected %s in object, expected ',' or '}'", describe(p.data[p.pos]))
		}
	}
}

func (p *parser) array() (node, error) {
	if err := p.enter(); err != nil {
		return node{}, err
	}
	defer func() { p.depth-- }()
	start := p.pos
	p.pos++ // [
	n := node{kind: '['}
	p.skip()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		n.raw = p.data[start:p.pos]
		return n, nil
	}
	for {
		p.skip()
		v, err := p.value()
		if err != nil {
			return node{}, err
		}
		if p.depth <= p.tree {
			n.kids = append(n.kids, v)
		}
		p.skip()
		if p.pos >= len(p.data) {
			return node{}, p.errf("unexpected end of input in array, expected ',' or ']'")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			n.raw = p.data[start:p.pos]
			return n, nil
		default:
			return node{}, p.errf("unexpected %s in array, expected ',' or ']'", describe(p.data[p.pos]))
		}
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// str scans a string token starting at the opening quote. Raw bytes ≥ 0x80 are accepted
// whatever their UTF-8 validity (they are decoded to U+FFFD as Node's utf8 reader does).
func (p *parser) str() error {
	p.pos++ // opening quote
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return nil
		case c == '\\':
			if p.pos+1 >= len(p.data) {
				return p.errf("unexpected end of input in string escape")
			}
			switch p.data[p.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.pos += 2
			case 'u':
				if p.pos+6 > len(p.data) || !isHex(p.data[p.pos+2]) || !isHex(p.data[p.pos+3]) ||
					!isHex(p.data[p.pos+4]) || !isHex(p.data[p.pos+5]) {
					return p.errf("invalid \\u escape in string")
				}
				p.pos += 6
			default:
				return p.errf("invalid escape %s in string", describe(p.data[p.pos+1]))
			}
		case c < 0x20:
			return p.errf("control %s in string (must be escaped)", describe(c))
		default:
			p.pos++
		}
	}
	return p.errf("unexpected end of input in string")
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *parser) number() error {
	d := p.data
	if d[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(d) && d[p.pos] == '0':
		p.pos++
	case p.pos < len(d) && isDigit(d[p.pos]):
		for p.pos < len(d) && isDigit(d[p.pos]) {
			p.pos++
		}
	default:
		return p.errf("invalid number")
	}
	if p.pos < len(d) && d[p.pos] == '.' {
		p.pos++
		if p.pos >= len(d) || !isDigit(d[p.pos]) {
			return p.errf("invalid number: digit expected after '.'")
		}
		for p.pos < len(d) && isDigit(d[p.pos]) {
			p.pos++
		}
	}
	if p.pos < len(d) && (d[p.pos] == 'e' || d[p.pos] == 'E') {
		p.pos++
		if p.pos < len(d) && (d[p.pos] == '+' || d[p.pos] == '-') {
			p.pos++
		}
		if p.pos >= len(d) || !isDigit(d[p.pos]) {
			return p.errf("invalid number: digit expected in exponent")
		}
		for p.pos < len(d) && isDigit(d[p.pos]) {
			p.pos++
		}
	}
	return nil
}

// Valid reports whether data is exactly one JSON value (with optional surrounding whitespace)
// under the same grammar Parse uses.
func Valid(data []byte) bool {
	_, err := parseDocument(data, treeNone)
	return err == nil
}

// decodeString decodes a validated string token (with quotes) into UTF-16 code units, the way
// JSON.parse sees it. Raw invalid UTF-8 becomes U+FFFD.
func decodeUnits(tok []byte, dst []uint16) []uint16 {
	s := tok[1 : len(tok)-1]
	for i := 0; i < len(s); {
		c := s[i]
		if c == '\\' {
			if e, ok := shortEscape(s[i+1]); ok {
				dst = append(dst, uint16(e))
				i += 2
				continue
			}
			u, _ := hex4(s, i+2) // \u, as the token is valid
			dst = append(dst, uint16(u))
			i += 6
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, uint16(c))
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			size = invalidLen(s[i:]) // one U+FFFD per maximal subpart, as Node decodes
		}
		i += size
		if r >= 0x10000 {
			r -= 0x10000
			dst = append(dst, uint16(0xd800+(r>>10)), uint16(0xdc00+(r&0x3ff)))
		} else {
			dst = append(dst, uint16(r))
		}
	}
	return dst
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	default:
		return int(c-'A') + 10
	}
}

// Package json5edit edits a JSON5 document (OpenClaw's openclaw.json) as text: it deletes,
// replaces or inserts one member and leaves every other byte — comments, quoting style,
// trailing commas, indentation — exactly as the user wrote it. When the document cannot be
// parsed it refuses, so callers can print the edit instead of guessing.
package json5edit

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// node is a parsed JSON5 value with the byte spans an edit needs.
type node struct {
	start, end int       // value span
	kind       byte      // '{', '[', 's' string, 'n' number/literal
	members    []*member // objects
	closeAt    int       // offset of the closing '}' for objects
	items      []*node   // arrays
}

// member is one "key: value" of an object.
type member struct {
	key       string
	keyStart  int
	value     *node
	commaAt   int // offset of the comma after the value, or -1
	leadStart int // start of the line the key is on when only blanks precede it, else keyStart
}

// SyntaxError reports where the document stops being JSON5.
type SyntaxError struct {
	Offset int
	Line   int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// ErrNotFound is returned when a path does not exist in the document.
var ErrNotFound = errors.New("key not found")

type parser struct {
	src []byte
	pos int
}

func parse(src []byte) (*node, error) {
	p := &parser{src: src}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos < len(p.src) && p.src[p.pos] == 0xEF { // BOM
		p.pos += 3
	}
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos != len(p.src) {
		return nil, p.errorf("unexpected text after the document")
	}
	return n, nil
}

func (p *parser) errorf(format string, args ...any) error {
	line := 1 + strings.Count(string(p.src[:min(p.pos, len(p.src))]), "\n")
	return &SyntaxError{Offset: p.pos, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// skip moves past whitespace and comments.
func (p *parser) skip() error {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			p.pos++
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
			end := strings.Index(string(p.src[p.pos+2:]), "*/")
			if end < 0 {
				return p.errorf("unterminated comment")
			}
			p.pos += end + 4
		case c >= 0x80:
			r, size := utf8.DecodeRune(p.src[p.pos:])
			if r == '\u00a0' || r == '\u2028' || r == '\u2029' || r == '\ufeff' || unicode.Is(unicode.Zs, r) {
				p.pos += size
				continue
			}
			return nil
		default:
			return nil
		}
	}
	return nil
}

func (p *parser) value() (*node, error) {
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos >= len(p.src) {
		return nil, p.errorf("unexpected end of document")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"' || c == '\'':
		start := p.pos
		if _, err := p.str(); err != nil {
			return nil, err
		}
		return &node{start: start, end: p.pos, kind: 's'}, nil
	default:
		start := p.pos
		for p.pos < len(p.src) && isLiteralByte(p.src[p.pos]) {
			p.pos++
		}
		if p.pos == start {
			return nil, p.errorf("unexpected %q", c)
		}
		return &node{start: start, end: p.pos, kind: 'n'}, nil
	}
}

func isLiteralByte(c byte) bool {
	return c == '+' || c == '-' || c == '.' || c == '_' || c == '$' ||
		(c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// str reads a quoted string and returns its decoded value.
func (p *parser) str() (string, error) {
	q := p.src[p.pos]
	p.pos++
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == q:
			p.pos++
			return b.String(), nil
		case c == '\\':
			if p.pos+1 >= len(p.src) {
				return "", p.errorf("unterminated string")
			}
			e := p.src[p.pos+1]
			p.pos += 2
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'v':
				b.WriteByte('\v')
			case '0':
				b.WriteByte(0)
			case '\n':
			case '\r':
				if p.pos < len(p.src) && p.src[p.pos] == '\n' {
					p.pos++
				}
			case 'x', 'u':
				n := 2
				if e == 'u' {
					n = 4
				}
				if p.pos+n > len(p.src) {
					return "", p.errorf("bad escape")
				}
				var r rune
				for _, h := range p.src[p.pos : p.pos+n] {
					r <<= 4
					switch {
					case h >= '0' && h <= '9':
						r |= rune(h - '0')
					case h >= 'a' && h <= 'f':
						r |= rune(h-'a') + 10
					case h >= 'A' && h <= 'F':
						r |= rune(h-'A') + 10
					default:
						return "", p.errorf("bad escape")
					}
				}
				p.pos += n
				b.WriteRune(r)
			default:
				b.WriteByte(e)
			}
		case c == '\n':
			return "", p.errorf("newline in string")
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	return "", p.errorf("unterminated string")
}

func (p *parser) object() (*node, error) {
	n := &node{start: p.pos, kind: '{'}
	p.pos++
	for {
		lineStart := p.pos
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) {
			return nil, p.errorf("unterminated object")
		}
		if p.src[p.pos] == '}' {
			n.closeAt = p.pos
			p.pos++
			n.end = p.pos
			return n, nil
		}
		m := &member{keyStart: p.pos, commaAt: -1}
		m.leadStart = leadingLineStart(p.src, lineStart, p.pos)
		switch c := p.src[p.pos]; {
		case c == '"' || c == '\'':
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			m.key = k
		default:
			start := p.pos
			for p.pos < len(p.src) && (isLiteralByte(p.src[p.pos]) || p.src[p.pos] >= 0x80) {
				p.pos++
			}
			if p.pos == start {
				return nil, p.errorf("expected a key")
			}
			m.key = string(p.src[start:p.pos])
		}
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.errorf("expected ':' after key %q", m.key)
		}
		p.pos++
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		m.value = v
		n.members = append(n.members, m)
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			m.commaAt = p.pos
			p.pos++
			continue
		}
		if p.pos < len(p.src) && p.src[p.pos] == '}' {
			continue
		}
		return nil, p.errorf("expected ',' or '}'")
	}
}

func (p *parser) array() (*node, error) {
	n := &node{start: p.pos, kind: '['}
	p.pos++
	for {
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) {
			return nil, p.errorf("unterminated array")
		}
		if p.src[p.pos] == ']' {
			p.pos++
			n.end = p.pos
			return n, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, v)
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.src) && p.src[p.pos] == ']' {
			continue
		}
		return nil, p.errorf("expected ',' or ']'")
	}
}

// leadingLineStart returns the start of the line holding pos when only blanks precede pos on
// that line (and that line start is not before from), else pos.
func leadingLineStart(src []byte, from, pos int) int {
	i := pos
	for i > from && (src[i-1] == ' ' || src[i-1] == '\t') {
		i--
	}
	if i == 0 || src[i-1] == '\n' {
		return i
	}
	return pos
}

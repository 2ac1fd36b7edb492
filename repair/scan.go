package repair

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/bits"

	"github.com/clawdoctor/clawdoctor/jsonl"
)

// maxDepth bounds nesting: jsonl.MaxDepth, the one limit of every parser. A deeper line is
// not unparseable (JSON.parse reads any depth): the planner keeps it unexamined.
const maxDepth = jsonl.MaxDepth

// member is one object member seen by the scanner: key and value as byte ranges of the line.
type member struct {
	depth      int // 1 for members of the line's top-level object, 2 one level down
	k0, k1     int // key token, quotes included
	v0, v1     int // value token
	parentKey0 int // for depth 2: key token range of the depth-1 member holding this object
	parentKey1 int
}

// scanner validates JSON with the grammar JSON.parse accepts, and reports the members of the
// top two object levels so the planner reads an entry in the same pass that validates it.
// Bytes ≥ 0x80 inside strings are accepted unchecked: Node decodes a file as UTF-8 with
// replacement characters, so a line with invalid UTF-8 in a string still parses there.
type scanner struct {
	b       []byte
	depth   int
	members []member // collected when collect is true
	collect bool
	topKey  [2]int
	work    int  // bytes examined, to bound salvage searches
	far     int  // furthest value start reached (a failed scan got at least this far)
	tooDeep bool // a scan failed only because of nesting deeper than maxDepth
	// image is set by a string token "image", or by a \u006x escape (the only way to escape
	// one of its letters): only then can the value hold an image block, for the image rule.
	image bool
}

// value scans one JSON value starting at i (no leading space) and returns its end, or -1.
func (s *scanner) value(i int) int {
	b := s.b
	if i > s.far {
		s.far = i
	}
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '{':
		return s.object(i)
	case c == '[':
		return s.array(i)
	case c == '"':
		return s.str(i)
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number(i)
	case c == 't':
		return s.lit(i, "true")
	case c == 'f':
		return s.lit(i, "false")
	case c == 'n':
		return s.lit(i, "null")
	}
	return -1
}

func (s *scanner) lit(i int, w string) int {
	if len(s.b)-i >= len(w) && string(s.b[i:i+len(w)]) == w {
		return i + len(w)
	}
	return -1
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (s *scanner) object(i int) int {
	s.depth++
	if s.depth > maxDepth {
		s.tooDeep = true
		return -1
	}
	b := s.b
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		s.depth--
		return i + 1
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return -1
		}
		k0 := i
		i = s.str(i)
		if i < 0 {
			return -1
		}
		k1 := i
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != ':' {
			return -1
		}
		i = skipSpace(b, i+1)
		d := s.depth
		if d == 1 {
			s.topKey = [2]int{k0, k1}
		}
		v0 := i
		i = s.value(i)
		if i < 0 {
			return -1
		}
		if s.collect && d <= 2 {
			m := member{depth: d, k0: k0, k1: k1, v0: v0, v1: i}
			if d == 2 {
				m.parentKey0, m.parentKey1 = s.topKey[0], s.topKey[1]
			}
			s.members = append(s.members, m)
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return -1
		}
		if b[i] == '}' {
			s.depth--
			return i + 1
		}
		if b[i] != ',' {
			return -1
		}
		i = skipSpace(b, i+1)
	}
}

func (s *scanner) array(i int) int {
	s.depth++
	if s.depth > maxDepth {
		s.tooDeep = true
		return -1
	}
	b := s.b
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		s.depth--
		return i + 1
	}
	for {
		i = s.value(i)
		if i < 0 {
			return -1
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return -1
		}
		if b[i] == ']' {
			s.depth--
			return i + 1
		}
		if b[i] != ',' {
			return -1
		}
		i = skipSpace(b, i+1)
	}
}

const (
	lo7 = 0x0101010101010101
	hi7 = 0x8080808080808080
)

// special marks the bytes of x that end a plain run inside a string: '"', '\\' or < 0x20.
// The lowest marked byte is exact (borrows only propagate upward).
func special(x uint64) uint64 {
	q := x ^ (lo7 * '"')
	bs := x ^ (lo7 * '\\')
	return ((q-lo7)&^q | (bs-lo7)&^bs | (x-lo7*0x20)&^x) & hi7
}

func (s *scanner) str(i int) int {
	b := s.b
	start := i
	i++
	for {
		for i+8 <= len(b) {
			m := special(binary.LittleEndian.Uint64(b[i:]))
			if m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(b) {
			s.work += i - start
			return -1
		}
		c := b[i]
		switch {
		case c == '"':
			s.work += i - start
			if i-start == 6 && string(b[start+1:i]) == "image" {
				s.image = true
			}
			return i + 1
		case c == '\\':
			if i+1 >= len(b) {
				return -1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return -1
				}
				if b[i+2] == '0' && b[i+3] == '0' && b[i+4] == '6' {
					s.image = true
				}
				i += 6
			default:
				return -1
			}
		case c < 0x20:
			return -1
		default:
			i++
		}
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (s *scanner) number(i int) int {
	b := s.b
	if b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return -1
	}
	if b[i] == '0' {
		i++
	} else if isDigit(b[i]) {
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	} else {
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i
}

// validJSON reports whether b is exactly one JSON value with optional surrounding space.
func validJSON(b []byte) bool { return Verdict(b) == nil }

// ErrInvalid is Verdict's answer for bytes that are not one JSON value.
var ErrInvalid = errors.New("not valid JSON")

// Verdict is the reading of repair's own scanner: nil for exactly one JSON value with
// optional surrounding space, jsonl.ErrTooDeep for one nested deeper than jsonl.MaxDepth,
// else ErrInvalid. The grammar test checks it against every other parser of the project.
func Verdict(b []byte) error {
	s := scanner{b: b}
	i := skipSpace(b, 0)
	e := s.value(i)
	switch {
	case e >= 0 && skipSpace(b, e) == len(b):
		return nil
	case s.tooDeep:
		return jsonl.ErrTooDeep
	}
	return ErrInvalid
}

// strValue decodes a JSON string token. ok is false when tok is not a string.
func strValue(tok []byte) (string, bool) {
	if len(tok) < 2 || tok[0] != '"' {
		return "", false
	}
	inner := tok[1 : len(tok)-1]
	plain := true
	for _, c := range inner {
		if c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return string(inner), true
	}
	var v string
	if err := json.Unmarshal(tok, &v); err != nil {
		return "", false
	}
	return v, true
}

// tokIs reports whether the string token tok decodes to want.
func tokIs(tok []byte, want string) bool {
	if len(tok) == len(want)+2 && tok[0] == '"' && string(tok[1:len(tok)-1]) == want {
		return true
	}
	for _, c := range tok {
		if c == '\\' {
			v, ok := strValue(tok)
			return ok && v == want
		}
	}
	return false
}

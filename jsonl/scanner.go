package jsonl

import "bytes"

// Member is one object member of the top two levels of a scanned value, as byte ranges of the
// scanned bytes (tokens as written, quotes included), so a caller can rewrite one member and
// copy every other byte unchanged.
type Member struct {
	Depth              int // 1 for members of the top-level object; 2 one level down (inside an object or array member)
	K0, K1             int // key token
	V0, V1             int // value token
	ParentK0, ParentK1 int // depth 2: the key token of the depth-1 member that holds this one
}

// Scanner reads one JSON value with the grammar of Check (the same code: scanValue) and
// reports, in the same pass, what repair's planner needs to decide about an entry without
// parsing it again: the members of its top two object levels, and whether any string could
// name an image block. The zero value is ready; reuse one across lines to reuse Members.
type Scanner struct {
	Collect bool     // append the top two levels' members to Members
	Members []Member // appended to by Value when Collect is set; the caller resets it
	// Image is set by a string token "image" or by a \u006X escape (the only way to escape one
	// of its letters): only then can the value hold an image block.
	Image bool
	// Work counts the bytes Value examined, failed scans included, so a caller that searches
	// for values (repair's salvage of torn lines) can bound its cost.
	Work    int
	TooDeep bool // the last Value failed only because of nesting deeper than MaxDepth

	open [3]Member // the member being read at depth 1 and 2 (index = depth)
}

// Value scans the one JSON value at b[i:] (after optional whitespace) and returns the offset
// just past it, or -1 with TooDeep saying whether the only fault was nesting deeper than
// MaxDepth. What follows the value is not looked at.
func (s *Scanner) Value(b []byte, i int) int {
	end, msg := scanValue(b, i, s)
	if msg != "" {
		s.Work += end - i + 1
		s.TooDeep = msg == msgTooDeep
		return -1
	}
	s.Work += end - i
	s.TooDeep = false
	return end
}

// sawString notes a string token (quotes included) for Image; esc is scanString's.
func (s *Scanner) sawString(tok []byte, esc uint8) {
	switch {
	case s.Image:
	case esc == 0:
		s.Image = len(tok) == 7 && string(tok[1:6]) == "image"
	case esc&escU != 0: // rare: only then can an escape spell a letter of "image"
		s.Image = bytes.Contains(tok, []byte(`\u006`))
	}
}

// closeMember appends the member open at depth d, whose value ends at end.
func (s *Scanner) closeMember(d, end int) {
	m := s.open[d]
	m.V1 = end
	if d == 2 {
		m.ParentK0, m.ParentK1 = s.open[1].K0, s.open[1].K1
	}
	s.Members = append(s.Members, m)
}

// StringEnd returns the offset just past the JSON string token that starts at b[i] (a quote),
// or -1 when b[i:] does not start a valid string.
func StringEnd(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	end, _, msg := scanString(b, i+1)
	if msg != "" {
		return -1
	}
	return end
}

// SkipSpace returns the offset of the first byte at or after i that is not JSON whitespace.
func SkipSpace(b []byte, i int) int { return skipSpace(b, i) }

// Line is Classify and Value in one pass over a line's content (a Line's Bytes, read with
// Options.Unclassified): it returns the flags Classify would and, when b is one valid value
// with only whitespace around it, the end of the value, with the members collected and Image
// set for it alone; else -1, and what was collected is to be dropped. The UTF-8 of the value
// is checked as its strings are scanned, where Classify reads the line once more for it.
func (s *Scanner) Line(b []byte) (f Flag, end int) {
	s.Image, s.TooDeep = false, false
	s.Work += len(b)
	return classifyWalk(b, s)
}

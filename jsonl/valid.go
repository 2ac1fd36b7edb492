package jsonl

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// MaxDepth is the deepest nesting Valid accepts, the same limit as encoding/json, so the two
// always agree. Every parser of the project uses it (docs/safety.md, "one grammar").
const MaxDepth = 10000

// ErrTooDeep marks JSON nested deeper than MaxDepth. It is a verdict of its own, not
// "corrupt": OpenClaw's JSON.parse reads any depth, so such a line or store is never dropped
// or rewritten, only reported as not examined.
var ErrTooDeep = errors.New("nested deeper than 10000 levels")

// SyntaxError says where a line stops being valid JSON.
type SyntaxError struct {
	Offset int    // byte offset in the line of the first byte that cannot belong to valid JSON
	Msg    string // what was expected there
	Deep   bool   // the line is not invalid but nested deeper than MaxDepth (ErrTooDeep)
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg) }

// Unwrap gives ErrTooDeep for a line nested too deep.
func (e *SyntaxError) Unwrap() error {
	if e.Deep {
		return ErrTooDeep
	}
	return nil
}

// Valid reports whether b is exactly one JSON value, optionally surrounded by JSON
// whitespace. It accepts exactly what encoding/json.Valid accepts (invalid UTF-8 inside
// strings included; the Reader flags that separately) and is several times faster: see
// docs/validate.md for the measurements that chose it.
func Valid(b []byte) bool {
	end, err := ValueEnd(b)
	return err == nil && skipSpace(b, end) == len(b)
}

// Check is Valid with the reason: nil, or a *SyntaxError with the offset of the first byte
// that cannot belong to one valid JSON value (len(b) when the line is cut short).
func Check(b []byte) error {
	end, err := ValueEnd(b)
	if err != nil {
		return err
	}
	if i := skipSpace(b, end); i != len(b) {
		return &SyntaxError{Offset: i, Msg: "data after the JSON value"}
	}
	return nil
}

// ValueEnd parses the one JSON value at the start of b (after optional whitespace) and returns
// the offset just past it; what follows is not looked at. An error is a *SyntaxError.
//
// It lets a caller split values glued on one line ({...}{...}) and find where a torn line
// stops: call it again on b[end:] while bytes remain.
func ValueEnd(b []byte) (int, error) {
	end, msg := scanValue(b, 0, nil)
	if msg != "" {
		return 0, &SyntaxError{Offset: end, Msg: msg, Deep: msg == msgTooDeep}
	}
	return end, nil
}

// Values returns the end offsets of the complete JSON values glued one after another in b,
// separated by optional whitespace. A line holding one value gives one end; "{..}{..}" gives
// two. err is not nil when bytes after the last complete value do not start a valid one; its
// Offset is relative to b.
func Values(b []byte) (ends []int, err error) {
	i := 0
	for {
		i = skipSpace(b, i)
		if i == len(b) && len(ends) > 0 {
			return ends, nil
		}
		end, msg := scanValue(b, i, nil)
		if msg != "" {
			return ends, &SyntaxError{Offset: end, Msg: msg}
		}
		ends = append(ends, end)
		i = end
	}
}

func skipSpace(b []byte, i int) int {
	// a byte above ' ' is never whitespace: one test for compact JSON, where most calls end at
	// once (the switch's four tests were a twentieth of Doc.Parse on small entries)
	for i < len(b) && b[i] <= ' ' {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// spaceCR skips the whitespace from b[i] like skipSpace and sets outCR in out when a '\r' is
// among it. A valid line can hold a '\r' nowhere else (a raw one in a string is invalid), so
// walk knows a line's lone CRs without a second pass over it; the callers test b[i] <= ' '
// first, so compact JSON never calls it.
func spaceCR(b []byte, i int, out uint8) (int, uint8) {
	for ; i < len(b) && b[i] <= ' '; i++ {
		switch b[i] {
		case ' ', '\t', '\n':
		case '\r':
			out |= outCR
		default:
			return i, out
		}
	}
	return i, out
}

// scanValue scans one value starting at or after i. It returns the offset after the value, or
// the offset of the offending byte and a message. Check, Values and the Reader call it with sc
// nil; repair's planner calls it through a Scanner (scanner.go), which sc makes it report to.
func scanValue(b []byte, i int, sc *Scanner) (int, string) {
	end, msg, _, _ := walk(b, i, sc, nil, 0)
	return end, msg
}

// The modes of walk, and what it reports besides the end offset.
const (
	modeTape uint8 = 1 << iota // write a token per value and key (Doc.Parse)
	modeUTF8                   // check that strings hold valid UTF-8 (validate's one pass, without AVX2)

	outBig     uint8 = 1 << 0 // the tape reached its limit: refused for its size
	outBadUTF8 uint8 = 1 << 1 // modeUTF8: a string holds bytes that are not valid UTF-8
	outCR      uint8 = 1 << 2 // a '\r' was skipped as whitespace (only valid JSON's value is kept)
)

// walk is the one JSON grammar of the project: an explicit-stack state machine (nesting costs
// no recursion; strings are skipped eight bytes at a time) that scans one value starting at or
// after i and returns the offset after it, or the offset of the offending byte and a message.
// Its callers differ only in what it notes on the way:
//   - nothing (sc nil, mode 0): Check, Values, the Reader's verdicts;
//   - sc: the members of the top two object levels and an image hint (repair's planner);
//   - modeTape: a token per value and key appended to toks (Doc.Parse, the audit's reader), at
//     most docMaxDepth levels and DocMaxValues tokens (outBig: refused for its size);
//   - modeUTF8: the UTF-8 of every string checked on the same pass (outBadUTF8), which is all
//     the UTF-8 of a valid line since JSON outside strings is ASCII (validate, classifyJSON,
//     where AVX2 is absent; with it classifyWalk checks the line's UTF-8 after the walk).
//
// A stack entry is the open container's token index << 1 (tape only), | 1 for an array.
func walk(b []byte, i int, sc *Scanner, toks []tok, mode uint8) (_ int, _ string, _ []tok, out uint8) {
	tape := mode&modeTape != 0
	utf8 := mode&modeUTF8 != 0 // strings are scanned by scanStringUTF8
	var escs uint8             // the escape bits of every string, for escBadUTF8
	var small [32]int32        // deeper lines grow it on the heap (rare: entries nest a few levels)
	stack := small[:0]
	n := len(b)
	limit := MaxDepth
	if tape {
		limit = docMaxDepth
	}
	noted := tape || sc != nil // one test on the bare path (Check) where a value may be noted
	member := false            // the key just read opens a member to collect
value:
	if tape && cap(toks)-len(toks) < 2 {
		var ok bool
		if toks, ok = grow(toks); !ok {
			return i, msgTooMany, toks, outBig
		}
	}
	if i < n && b[i] <= ' ' {
		i, out = spaceCR(b, i, out)
	}
	if i >= n {
		return n, "unexpected end of line, want a value", toks, 0
	}
	switch c := b[i]; c {
	case '"':
		s := i
		var msg string
		var esc uint8
		if utf8 {
			i, esc, msg = scanStringUTF8(b, i+1)
		} else {
			i, esc, msg = scanString(b, i+1)
		}
		if msg != "" {
			return i, msg, toks, 0
		}
		escs |= esc
		if noted {
			if tape {
				toks = push(toks, TypeString, esc != 0, s+1, i-1)
			}
			if sc != nil {
				sc.sawString(b[s:i], esc)
			}
		}
	case '{', '[':
		if len(stack) >= limit {
			return i, msgTooDeep, toks, 0
		}
		var e int32
		if c == '[' {
			e = 1
		}
		if tape {
			e |= int32(len(toks)) << 1
			kind := TypeObject
			if c == '[' {
				kind = TypeArray
			}
			toks = push(toks, kind, false, 0, 0) // next is set when it closes
		}
		stack = append(stack, e)
		i++
		if i < n && b[i] <= ' ' {
			i, out = spaceCR(b, i, out)
		}
		if i < n && b[i] == c+2 { // '}' is '{'+2, ']' is '['+2
			stack = stack[:len(stack)-1] // empty: push already set next past it
			i++
			break
		}
		if c == '{' {
			goto key
		}
		goto value
	case 't':
		if n-i < 4 || string(b[i:i+4]) != "true" {
			end, msg := literalError(b, i, "true")
			return end, msg, toks, 0
		}
		if tape {
			toks = push(toks, TypeTrue, false, 0, 0)
		}
		i += 4
	case 'f':
		if n-i < 5 || string(b[i:i+5]) != "false" {
			end, msg := literalError(b, i, "false")
			return end, msg, toks, 0
		}
		if tape {
			toks = push(toks, TypeFalse, false, 0, 0)
		}
		i += 5
	case 'n':
		if n-i < 4 || string(b[i:i+4]) != "null" {
			end, msg := literalError(b, i, "null")
			return end, msg, toks, 0
		}
		if tape {
			toks = push(toks, TypeNull, false, 0, 0)
		}
		i += 4
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			s := i
			var msg string
			if i, msg = scanNumber(b, i); msg != "" {
				return i, msg, toks, 0
			}
			if tape {
				toks = push(toks, TypeNumber, false, s, i)
			}
			break
		}
		return i, fmt.Sprintf("invalid character %s, want a value", quoteByte(c)), toks, 0
	}
after:
	if len(stack) == 0 {
		if escs&escBadUTF8 != 0 {
			out |= outBadUTF8
		}
		return i, "", toks, out
	}
	if sc != nil && sc.Collect && len(stack) <= 2 && stack[len(stack)-1]&1 == 0 {
		sc.closeMember(len(stack), i) // the value just ended is a member of that object
	}
	if i < n && b[i] <= ' ' {
		i, out = spaceCR(b, i, out)
	}
	if i >= n {
		return n, "unexpected end of line inside " + containerName(stack[len(stack)-1]), toks, 0
	}
	{
		top := stack[len(stack)-1]
		switch c := b[i]; {
		case c == ',':
			i++
			if top&1 == 1 {
				goto value
			}
			if i < n && b[i] <= ' ' {
				i, out = spaceCR(b, i, out)
			}
			goto key
		case c == '}' && top&1 == 0, c == ']' && top&1 == 1:
			if tape {
				toks[top>>1].next = int32(len(toks))
			}
			stack = stack[:len(stack)-1]
			i++
			goto after
		default:
			if top&1 == 0 {
				return i, fmt.Sprintf("invalid character %s after object value, want ',' or '}'", quoteByte(c)), toks, 0
			}
			return i, fmt.Sprintf("invalid character %s after array element, want ',' or ']'", quoteByte(c)), toks, 0
		}
	}
key:
	if tape && cap(toks)-len(toks) < 2 {
		var ok bool
		if toks, ok = grow(toks); !ok {
			return i, msgTooMany, toks, outBig
		}
	}
	if i >= n {
		return n, "unexpected end of line, want an object key", toks, 0
	}
	if b[i] != '"' {
		return i, fmt.Sprintf("invalid character %s, want an object key string", quoteByte(b[i])), toks, 0
	}
	{
		k0 := i
		var msg string
		var esc uint8
		if utf8 {
			i, esc, msg = scanStringUTF8(b, i+1)
		} else {
			i, esc, msg = scanString(b, i+1)
		}
		if msg != "" {
			return i, msg, toks, 0
		}
		escs |= esc
		if noted {
			if tape {
				toks = push(toks, typeKey, esc != 0, k0+1, i-1)
			}
			if sc != nil {
				sc.sawString(b[k0:i], esc)
				if sc.Collect && len(stack) <= 2 {
					member = true
					sc.open[len(stack)] = Member{Depth: len(stack), K0: k0, K1: i}
				}
			}
		}
	}
	if i < n && b[i] <= ' ' {
		i, out = spaceCR(b, i, out)
	}
	if i >= n {
		return n, "unexpected end of line, want ':' after object key", toks, 0
	}
	if b[i] != ':' {
		return i, fmt.Sprintf("invalid character %s after object key, want ':'", quoteByte(b[i])), toks, 0
	}
	i++
	if member { // the member's value starts after the space that follows ':'
		member = false
		sc.open[len(stack)].V0 = skipSpace(b, i)
	}
	goto value
}

const (
	msgTooDeep = "nesting deeper than 10000"
	msgTooMany = "more values than a Doc holds"
)

// The escapes scanString reports.
const (
	escAny     uint8 = 1 << iota // any escape
	escU                         // a \u escape
	escBadUTF8                   // scanStringUTF8: bytes that are not valid UTF-8
)

func containerName(e int32) string {
	if e&1 == 0 {
		return "object"
	}
	return "array"
}

func literalError(b []byte, i int, want string) (int, string) {
	for k := 0; k < len(want); k++ {
		if i+k >= len(b) {
			return len(b), "unexpected end of line in literal " + want
		}
		if b[i+k] != want[k] {
			return i + k, fmt.Sprintf("invalid character %s in literal %s", quoteByte(b[i+k]), want)
		}
	}
	return i, "bad literal"
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f && c != '\'' {
		return "'" + string(rune(c)) + "'"
	}
	return fmt.Sprintf("%#02x", c)
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// special has the high bit set in the byte of x that is a '"', a '\\' or a control character
// (< 0x20); the lowest set bit marks the first such byte exactly (later ones may be false
// positives, which the caller never looks at). x^0x02 maps '"' to 0x20 and keeps control bytes
// below 0x20, so one "less than 0x21" test finds both; a zero-byte test finds the backslash.
func special(x uint64) uint64 {
	y := x ^ (lsb * 0x02)
	s := x ^ (lsb * '\\')
	return ((y-lsb*0x21)&^y | (s-lsb)&^s) & msb
}

// scanString scans string contents from i (just after the opening quote) and returns the
// offset after the closing quote, and its escapes: escAny if it holds one, with escU too if one
// of them is a \u escape (jsonl.Scanner's image hint looks into those only). Short strings are
// scanned two words at a time; once a string runs past 1 KiB without an escape it is skipped by
// skipLong (measured: a lower threshold slows text with frequent escapes, a higher one loses the
// gain on base64 images). Bytes >= 0x80 are not looked at: scanStringUTF8 checks them.
func scanString(b []byte, i int) (int, uint8, string) {
	n := len(b)
	var esc uint8
	for {
		var run int
		// most strings of an entry are short (keys, ids, roles): one word first
		if i+8 <= n {
			if m := special(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto found
			}
			i += 8
		}
		if haveStopAVX2 && i+32 <= n {
			i += indexStopAVX2(b[i:])
			goto found
		}
		for i+16 <= n {
			mx := special(binary.LittleEndian.Uint64(b[i:]))
			my := special(binary.LittleEndian.Uint64(b[i+8:]))
			if mx|my != 0 {
				i += firstBit(mx, my)
				goto found
			}
			i += 16
			if run++; run == 64 {
				i = skipLong(b, i, 0)
				goto found
			}
		}
		for i < n && b[i] >= 0x20 && b[i] != '"' && b[i] != '\\' {
			i++
		}
	found:
		if i >= n {
			return n, esc, "unexpected end of line in string"
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, esc, ""
		case c == '\\':
			var e uint8
			var msg string
			if i, e, msg = scanEscape(b, i); msg != "" {
				return i, esc | e, msg
			}
			esc |= e
		default:
			return i, esc, fmt.Sprintf("control character %s in string", quoteByte(c))
		}
	}
}

// scanEscape checks the escape at b[i] (a backslash) and returns the offset after it and
// escAny, with escU for a \u escape; or the offset of the offending byte and a message.
func scanEscape(b []byte, i int) (int, uint8, string) {
	n := len(b)
	if i+1 >= n {
		return n, escAny, "unexpected end of line in string escape"
	}
	switch b[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 2, escAny, ""
	case 'u':
		for k := 2; k < 6; k++ {
			if i+k >= n {
				return n, escAny | escU, "unexpected end of line in \\u escape"
			}
			if !isHex(b[i+k]) {
				return i + k, escAny | escU, fmt.Sprintf("invalid character %s in \\u escape", quoteByte(b[i+k]))
			}
		}
		return i + 6, escAny | escU, ""
	default:
		return i + 1, escAny, fmt.Sprintf("invalid escape %s in string", quoteByte(b[i+1]))
	}
}

// skipRunes decodes the UTF-8 runes from b[i] (a byte >= 0x80) and returns the offset of the
// first ASCII byte after them; ok is false at the first invalid sequence, whose offset it
// returns. The rules are unicode/utf8.Valid's (its tables, copied in utf8tables.go).
func skipRunes(b []byte, i int) (int, bool) {
	n := len(b)
	// while four bytes remain, one rune is checked without a branch per byte: the sizes mix
	// (é, 日, 🚀 in one text) and a switch on them mispredicted most of the time
	for i+4 <= n && b[i] >= 0x80 {
		x := utf8First[b[i]]
		size := int(x & 7)
		accept := utf8Accept[x>>4]
		c1, c2, c3 := b[i+1], b[i+2], b[i+3]
		bad := b2u(c1 < accept.lo) | b2u(accept.hi < c1) | b2u(size < 2)
		bad |= b2u(size >= 3) & (b2u(c2 < locb) | b2u(hicb < c2))
		bad |= b2u(size == 4) & (b2u(c3 < locb) | b2u(hicb < c3))
		if bad != 0 {
			return i, false
		}
		i += size
	}
	for i < n && b[i] >= 0x80 {
		x := utf8First[b[i]]
		size := int(x & 7)
		accept := utf8Accept[x>>4]
		switch size {
		case 2:
			if i+2 > n || b[i+1] < accept.lo || accept.hi < b[i+1] {
				return i, false
			}
		case 3:
			if i+3 > n || b[i+1] < accept.lo || accept.hi < b[i+1] || b[i+2] < locb || hicb < b[i+2] {
				return i, false
			}
		case 4:
			if i+4 > n || b[i+1] < accept.lo || accept.hi < b[i+1] || b[i+2] < locb || hicb < b[i+2] ||
				b[i+3] < locb || hicb < b[i+3] {
				return i, false
			}
		default:
			return i, false
		}
		i += size
	}
	return i, true
}

// firstBit returns the byte index of the lowest set bit of the 16 bytes x, y (little endian),
// 16 when both are 0. Without a branch: whether the stop is in the first word or the second is
// a coin toss in text, and the mispredicted test was a tenth of scanStringUTF8. tx is 8 exactly
// when x is 0 (TrailingZeros64(0) is 64), and then -(tx>>3) keeps all of ty.
func firstBit(x, y uint64) int {
	tx := bits.TrailingZeros64(x) >> 3
	ty := bits.TrailingZeros64(y) >> 3
	return tx + ty&-(tx>>3)
}

// b2u is 1 for true: the compiler makes it a SETcc, no branch.
func b2u(c bool) uint8 {
	var u uint8
	if c {
		u = 1
	}
	return u
}

// skipLong returns the offset of the first '"', '\\' or control byte at or after i, or len(b)
// (or of a byte >= 0x80, with hi set as for scanString). It works in windows of 1 KiB: the
// assembly bytes.IndexByte finds the next quote and backslash, and only the span before them
// is checked for control bytes, 32 bytes a step. Long strings (base64 images, tool output) go
// several times faster than a word loop.
func skipLong(b []byte, i int, hi uint64) int {
	const window = 1024
	for i < len(b) {
		w := b[i:min(i+window, len(b))]
		cut := len(w)
		if q := bytes.IndexByte(w, '"'); q >= 0 {
			cut = q
		}
		if k := bytes.IndexByte(w[:cut], '\\'); k >= 0 {
			cut = k
		}
		if j := indexControl(w[:cut], hi); j < cut {
			return i + j
		}
		if cut < len(w) {
			return i + cut
		}
		i += len(w)
	}
	return len(b)
}

// indexControl returns the index of the first byte < 0x20 in w (or >= 0x80 with hi = msb), or
// len(w).
func indexControl(w []byte, hi uint64) int {
	j := 0
	for ; j+32 <= len(w); j += 32 {
		x0 := binary.LittleEndian.Uint64(w[j:])
		x1 := binary.LittleEndian.Uint64(w[j+8:])
		x2 := binary.LittleEndian.Uint64(w[j+16:])
		x3 := binary.LittleEndian.Uint64(w[j+24:])
		if ((x0-lsb*0x20)&^x0|(x1-lsb*0x20)&^x1|(x2-lsb*0x20)&^x2|(x3-lsb*0x20)&^x3|(x0|x1|x2|x3)&hi)&msb != 0 {
			break
		}
	}
	for ; j < len(w); j++ {
		if w[j] < 0x20 || w[j]&byte(hi) != 0 {
			return j
		}
	}
	return j
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// scanNumber scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? from i.
func scanNumber(b []byte, i int) (int, string) {
	n := len(b)
	if b[i] == '-' {
		i++
		if i >= n {
			return n, "unexpected end of line in number"
		}
	}
	switch {
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i++
		for i < n && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return i, fmt.Sprintf("invalid character %s in number", quoteByte(b[i]))
	}
	if i < n && b[i] == '.' {
		i++
		if i >= n {
			return n, "unexpected end of line in number"
		}
		if b[i] < '0' || b[i] > '9' {
			return i, fmt.Sprintf("invalid character %s after decimal point", quoteByte(b[i]))
		}
		for i < n && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < n && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= n {
			return n, "unexpected end of line in number"
		}
		if b[i] < '0' || b[i] > '9' {
			return i, fmt.Sprintf("invalid character %s in exponent", quoteByte(b[i]))
		}
		for i < n && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	return i, ""
}

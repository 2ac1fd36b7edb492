package jsonl

import (
	"bytes"
	"iter"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/valyala/fastjson"
	"github.com/valyala/fastjson/fastfloat"
)

// A Doc is one JSON value read in a single pass that checks the grammar (as Check) and notes
// where every value lies (a tape), so that the audit reads an entry's fields without a second
// parse. Checking with Check and then parsing with fastjson read every byte twice: two fifths
// of the audit's CPU on small entries.
//
// What a Doc gives is what fastjson gives for the same text (Get, GetStringBytes, Members,
// GetFloat64 and array indexes in Get, with fastjson's rules for escaped keys and strings):
// FuzzDocMatchesFastjson holds the two together.
type Doc struct {
	b     []byte // the text (for a converted value, own)
	own   []byte // the unescaped strings and number texts of a converted value
	toks  []tok  // the tape of the line read: tape, or the tape of its shape
	tape  []tok  // the tape of a line parsed byte by byte
	arena []byte // unescaped strings and keys
	big   bool   // the last Parse refused a value too big to hold (TooBig)
	// shapes of lines read before (shape.go); nil until the first Parse
	shapes *shapeCache
	shape  uint32 // Shape
}

// DocMaxValues is the most values (and keys) a Doc holds: 4M tokens are 64 MiB. A line of
// millions of tiny values ([1,1,1,...] up to the line cap) would otherwise take 16 bytes of
// tape a byte of line; fastjson, which read such lines before, took more.
var DocMaxValues = 1 << 22

// tok is one value (or object key) of a Doc.
type tok struct {
	kind  Type
	esc   bool  // a string or key that holds an escape (never in a converted value)
	start int32 // raw bytes: a string's content between the quotes, a number's text
	end   int32
	next  int32 // the token after this value and everything inside it
}

// Type is the type of a Value, named as fastjson names its types.
type Type uint8

const (
	TypeNone Type = iota // a missing value
	TypeNull
	TypeObject
	TypeArray
	TypeString
	TypeNumber
	TypeTrue
	TypeFalse
	typeKey
)

func (t Type) String() string {
	switch t {
	case TypeNull:
		return "null"
	case TypeObject:
		return "object"
	case TypeArray:
		return "array"
	case TypeString:
		return "string"
	case TypeNumber:
		return "number"
	case TypeTrue:
		return "true"
	case TypeFalse:
		return "false"
	}
	return "none"
}

// docMaxDepth is where Parse gives up and leaves the line to Check and fastjson, which stops at
// 300 levels (the audit reports a deeper line as not checked).
const docMaxDepth = 256

// Parse reads b, which must be exactly one JSON value with optional whitespace around it. It
// reports false for anything Check would refuse and for values nested deeper than 256 levels;
// the caller then asks Check and fastjson, whose verdicts and messages are the reference. The
// Doc keeps b: b must not change while the Doc is used.
func (d *Doc) Parse(b []byte) bool {
	d.b, d.own, d.arena, d.big, d.shape = b, d.own[:0], d.arena[:0], false, 0
	if len(b) > math.MaxInt32 { // offsets are int32 (a line over 2 GiB needs --max-line)
		d.toks, d.big = d.tape[:0], true
		return false
	}
	if d.shapes == nil {
		d.shapes = newShapeCache()
	}
	c := d.shapes
	short := len(b) <= maxShapeLine
	if short && c.try() {
		hit := d.parseShaped(b)
		c.tried(hit)
		if hit {
			return true
		}
	}
	var ok bool
	d.tape, ok, d.big = parse(b, d.tape[:0])
	d.toks = d.tape
	if ok && short && c.rest == 0 {
		d.learn(b)
	}
	return ok
}

// Shape identifies the shape of the line the last Parse read (shape.go): two lines of one
// Doc with the same non-zero Shape have the same tokens, keys and nesting, so a Value found in
// one by keys (its place in the tape) is at the same place in the other, and what a caller
// found by key in one line it may take over for the next of the shape. 0: the line has no
// shape (not read by one, nor learned as one). Ids are never reused within a Doc.
func (d *Doc) Shape() uint32 { return d.shape }

// Reset makes the Doc forget the line it read last (a Doc kept for later lines must not hold
// on to a reader's buffer) and reports how many bytes it keeps for the next lines: its tape,
// its arenas and its shapes, which a Doc kept for the next file of a state dir saves learning
// again. A caller that keeps Docs drops one that grew big on a big line.
func (d *Doc) Reset() (held int) {
	d.b, d.own, d.arena, d.big, d.shape = nil, d.own[:0], d.arena[:0], false, 0
	d.toks = d.tape[:0]
	held = cap(d.own) + cap(d.arena) + cap(d.tape)*int(unsafe.Sizeof(tok{}))
	if c := d.shapes; c != nil {
		for _, s := range c.list[:] {
			if s != nil {
				held += cap(s.toks)*int(unsafe.Sizeof(tok{})) + cap(s.glue) + cap(s.segs)*int(unsafe.Sizeof(segment{})) + 4*cap(s.keys)
			}
		}
	}
	return held
}

// TooBig reports whether the last Parse refused b for its size (over 2 GiB, or more than
// DocMaxValues values), not for its grammar: a reader should not hand it to a parser that
// builds a tree either.
func (d *Doc) TooBig() bool { return d.big }

// parse appends b's tokens to toks: walk (valid.go), the grammar of Check, writing the tape.
// big is set when it stops at DocMaxValues.
func parse(b []byte, toks []tok) (_ []tok, ok, big bool) {
	end, msg, toks, out := walk(b, 0, nil, toks, modeTape)
	return toks, msg == "" && skipSpace(b, end) == len(b), out&outBig != 0
}

// grow makes room for at least two more tokens, never past DocMaxValues+2 in all (doubling
// past the limit would let one line's tape reach twice it); ok is false at the limit.
func grow(toks []tok) (_ []tok, ok bool) {
	if len(toks) >= DocMaxValues {
		return toks, false
	}
	t := make([]tok, len(toks), min(max(2*cap(toks), 64), DocMaxValues+2))
	copy(t, toks)
	return t, true
}

// push appends a token whose value ends with it (next is the token after it); the caller made
// room. It writes the fields into the slice one by one: a tok literal appended was built
// on the stack with narrow stores and copied with one 16-byte load that waited for them.
func push(toks []tok, kind Type, esc bool, start, end int) []tok {
	k := len(toks)
	toks = toks[:k+1]
	t := &toks[k]
	t.kind, t.esc, t.start, t.end, t.next = kind, esc, int32(start), int32(end), int32(k+1)
	return toks
}

// FromFastjson makes the Doc hold v (a value fastjson read of a line that Parse refuses: NUL
// bytes taken out, invalid UTF-8, glued objects), so that one reader serves every line. It
// reports false, and the Doc is empty, when v's strings and numbers pass 2 GiB (offsets are
// int32; only a --max-line over 2 GiB lets such a line through).
func (d *Doc) FromFastjson(v *fastjson.Value) bool {
	d.own, d.toks, d.arena, d.shape = d.own[:0], d.tape[:0], d.arena[:0], 0
	defer func() { d.tape = d.toks[:0] }() // keep what convert grew
	d.convert(v)
	if len(d.own) > math.MaxInt32 {
		d.own, d.toks = d.own[:0], d.toks[:0]
		d.b = nil
		return false
	}
	d.b = d.own
	return true
}

func (d *Doc) convert(v *fastjson.Value) {
	at := len(d.toks)
	d.toks = append(d.toks, tok{})
	var t tok
	switch v.Type() {
	case fastjson.TypeNull:
		t.kind = TypeNull
	case fastjson.TypeTrue:
		t.kind = TypeTrue
	case fastjson.TypeFalse:
		t.kind = TypeFalse
	case fastjson.TypeNumber:
		t.kind = TypeNumber
		t.start, t.end = d.put(v.MarshalTo(nil)) // a number marshals as its text
	case fastjson.TypeString:
		t.kind = TypeString
		t.start, t.end = d.put(v.GetStringBytes())
	case fastjson.TypeArray:
		t.kind = TypeArray
		for _, e := range v.GetArray() {
			d.convert(e)
		}
	case fastjson.TypeObject:
		t.kind = TypeObject
		o, _ := v.Object()
		o.Visit(func(k []byte, e *fastjson.Value) {
			s, en := d.put(k)
			d.toks = append(d.toks, tok{kind: typeKey, start: s, end: en, next: int32(len(d.toks) + 1)})
			d.convert(e)
		})
	}
	t.next = int32(len(d.toks))
	d.toks[at] = t
}

func (d *Doc) put(b []byte) (int32, int32) {
	s := len(d.own)
	d.own = append(d.own, b...)
	return int32(s), int32(len(d.own))
}

// Root is the Doc's value.
func (d *Doc) Root() Value {
	if len(d.toks) == 0 {
		return Value{}
	}
	return Value{d: d}
}

// Value is a value in a Doc, valid until the Doc reads another line. The zero Value is a
// missing one: every method works on it (GetStringBytes gives nil, Type gives TypeNone).
type Value struct {
	d *Doc
	i int32
}

// Exists reports whether v is a value (not missing).
func (v Value) Exists() bool { return v.d != nil }

// Type is v's type; TypeNone for a missing value.
func (v Value) Type() Type {
	if v.d == nil {
		return TypeNone
	}
	return v.d.toks[v.i].kind
}

func (v Value) raw(t *tok) []byte { return v.d.b[t.start:t.end:t.end] }

// text is a string token's (or key's) unescaped bytes, as fastjson's best-effort unescaping
// gives them.
func (v Value) text(t *tok) []byte {
	r := v.raw(t)
	if !t.esc {
		return r
	}
	s := len(v.d.arena)
	v.d.arena = unescape(v.d.arena, r)
	return v.d.arena[s:len(v.d.arena):len(v.d.arena)]
}

// StringBytes is a string's bytes, nil for anything else.
func (v Value) StringBytes() []byte {
	if v.d == nil || v.d.toks[v.i].kind != TypeString {
		return nil
	}
	return v.text(&v.d.toks[v.i])
}

// Get follows keys (object keys, or decimal indexes in arrays) from v, as fastjson's Get.
func (v Value) Get(keys ...string) Value {
	for _, k := range keys {
		if v = v.member(k); v.d == nil {
			return v
		}
	}
	return v
}

// member is Get of one key. As fastjson's Object.Get, the first key written exactly as k wins;
// only when there is none are escaped keys compared once unescaped.
func (v Value) member(k string) Value {
	if v.d == nil {
		return v
	}
	toks := v.d.toks
	switch toks[v.i].kind {
	case TypeObject:
		escaped := false
		for j := v.i + 1; j < toks[v.i].next; j = toks[j+1].next {
			r := v.raw(&toks[j])
			if string(r) == k {
				return Value{v.d, j + 1}
			}
			escaped = escaped || toks[j].esc
		}
		if escaped {
			for j := v.i + 1; j < toks[v.i].next; j = toks[j+1].next {
				if string(v.text(&toks[j])) == k {
					return Value{v.d, j + 1}
				}
			}
		}
	case TypeArray:
		n, err := strconv.Atoi(k)
		if err != nil || n < 0 {
			return Value{}
		}
		for j := v.i + 1; j < toks[v.i].next; j = toks[j].next {
			if n == 0 {
				return Value{v.d, j}
			}
			n--
		}
	}
	return Value{}
}

// GetStringBytes is Get(keys...).StringBytes().
func (v Value) GetStringBytes(keys ...string) []byte { return v.Get(keys...).StringBytes() }

// GetFloat64 is the number at keys, 0 when it is missing or not a number (fastjson's rule).
func (v Value) GetFloat64(keys ...string) float64 {
	v = v.Get(keys...)
	if v.Type() != TypeNumber {
		return 0
	}
	r := v.raw(&v.d.toks[v.i])
	if f, ok := smallInt(r); ok {
		return f
	}
	return fastfloat.ParseBestEffort(unsafe.String(unsafe.SliceData(r), len(r)))
}

// smallInt reads a number text of at most 15 digits and no fraction or exponent (timestamps in
// milliseconds, counts): exact in a float64, so it is what ParseBestEffort gives, without its
// general path (a number an entry; 2% of the audit of small entries).
func smallInt(r []byte) (float64, bool) {
	neg := len(r) > 0 && r[0] == '-'
	if neg {
		r = r[1:]
	}
	if len(r) == 0 || len(r) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range r {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		return -float64(n), true
	}
	return float64(n), true
}

// Len is the number of an array's elements, 0 for anything else.
func (v Value) Len() int {
	n := 0
	for range v.Elems() {
		n++
	}
	return n
}

// Elems yields an array's elements with their indexes (nothing for anything else).
func (v Value) Elems() iter.Seq2[int, Value] {
	return func(yield func(int, Value) bool) {
		if v.d == nil || v.d.toks[v.i].kind != TypeArray {
			return
		}
		toks := v.d.toks
		k := 0
		for j := v.i + 1; j < toks[v.i].next; j = toks[j].next {
			if !yield(k, Value{v.d, j}) {
				return
			}
			k++
		}
	}
}

// Members yields each key (unescaped) and value of an object, in order, as fastjson's
// Object.Visit visits them.
// A loop over it costs no call a member where the loop's body is inlined (the audit reads the
// few members it needs of every entry this way).
func (v Value) Members() iter.Seq2[[]byte, Value] {
	return func(yield func([]byte, Value) bool) {
		if v.d == nil || v.d.toks[v.i].kind != TypeObject {
			return
		}
		toks := v.d.toks
		for j := v.i + 1; j < toks[v.i].next; j = toks[j+1].next {
			if !yield(v.text(&toks[j]), Value{v.d, j + 1}) {
				return
			}
		}
	}
}

// unescape appends s with its escapes replaced, as fastjson's unescapeStringBestEffort does
// (github.com/valyala/fastjson, MIT): an escape that cannot be read is kept as written, a lone
// surrogate stays a \u escape.
func unescape(dst, s []byte) []byte {
	for len(s) > 0 {
		k := bytes.IndexByte(s, '\\')
		if k < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:k]...)
		s = s[k+1:]
		if len(s) == 0 {
			return dst // fastjson drops a trailing lone backslash
		}
		ch := s[0]
		s = s[1:]
		switch ch {
		case '"', '\\', '/':
			dst = append(dst, ch)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			x, ok := hex4(s)
			if !ok {
				dst = append(dst, `\u`...)
				break
			}
			xs := s[:4]
			s = s[4:]
			if !utf16.IsSurrogate(rune(x)) {
				dst = utf8.AppendRune(dst, rune(x))
				break
			}
			if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
				dst = append(append(dst, `\u`...), xs...)
				break
			}
			x1, ok := hex4(s[2:])
			if !ok {
				dst = append(append(dst, `\u`...), xs...)
				break
			}
			// two escapes that are no pair become one U+FFFD, as in fastjson
			dst = utf8.AppendRune(dst, utf16.DecodeRune(rune(x), rune(x1)))
			s = s[6:]
		default:
			dst = append(dst, '\\', ch) // an unknown escape is kept as written
		}
	}
	return dst
}

// hex4 reads four hex digits, as strconv.ParseUint(s[:4], 16, 16) does.
func hex4(s []byte) (uint16, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var x uint16
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		x = x<<4 | uint16(c)
	}
	return x, true
}

package jsonl

import (
	"encoding/binary"
	"unsafe"
)

// Shapes. The lines of a transcript come in a few shapes: the same keys in the same order, the
// same nesting and literals, only the strings and numbers differ ({"type":"message","id":"…",
// "parentId":"…",…}). A line of a shape seen before is its shape's "glue" (everything but the
// strings and numbers: braces, keys, colons, commas, literals, whitespace) with values between:
// Parse checks that each glue is there byte for byte and scans only the values, and its tape is
// the shape's tape with the values' offsets put in. Keys are not scanned and no byte is
// dispatched on: 200,000 lines of the tiny-entries bench transcript took 167-177 ns a line
// instead of 217-233 (thread CPU, best of three, alternated), and its audit 0.82-0.95x the wall
// time. Only lines of up to maxShapeLine bytes are read so.
//
// Why it is the same tape: the glue is a valid line's text minus its strings and numbers; put
// back other valid strings and numbers of the same kinds (scanString and scanNumber accept
// exactly what parse accepts, and a number ends where the glue's next byte is, as in the shape's
// line) and the line is valid with the same tokens, in the same order, with the same links, at
// offsets moved by what the values before them grew or shrank. FuzzShapeMatchesParse holds the
// two ways together.

// maxShapes is how many shapes a Doc keeps (the most recently used ones).
const maxShapes = 8

// Lines with more tokens or glue bytes than these are never learned as shapes.
const (
	maxShapeToks = 512
	maxShapeGlue = 8 << 10
)

// maxShapeLine is the longest line read by shape: in a longer line the strings' bytes outweigh
// the glue, and a line read by shape took as long as one read byte by byte (the generated
// transcripts' lines of 1-2 KB), while the lines that fit no shape cost a try and a learning.
const maxShapeLine = 512

// shape is a learned line: its tape and its glue, cut in segments.
type shape struct {
	id   uint32 // Doc.Shape of its lines: unique in the Doc, never reused
	toks []tok
	segs []segment // one per string or number, then one for the glue after the last value
	glue []byte    // the segments' glue, one after the other
	keys []int32   // the key tokens, by segment (segment.k0, k1)
}

// segment is a value of a shape and the glue before it.
type segment struct {
	glue   string    // the glue (a view of shape.glue)
	w, m   [2]uint64 // a glue of up to 16 bytes as two words, and the masks of its bytes
	short  bool      // the glue is compared as w and m (up to 16 bytes, not the last glue)
	at     int32     // where the glue starts in the shape's line
	kind   Type      // TypeString or TypeNumber; TypeNone for the last glue
	tok    int32     // the value's token
	k0, k1 int32     // the keys inside the glue: shape.keys[k0:k1]
}

// shapeVal is where a segment's glue and value lie in the line being read.
type shapeVal struct {
	at, start, end int32
	esc            bool
}

// shapeCache is a Doc's shapes, and when trying them pays.
type shapeCache struct {
	list   [maxShapes]*shape
	order  [maxShapes]uint8 // every slot: the n in use first, most recently used first
	n      int
	common [maxShapes][maxShapes]int32 // how many leading segments two shapes share
	vals   []shapeVal
	// Lines of few repeated shapes are read by shape; lines that rarely repeat one are not tried
	// (a failed try and learning the line cost more than the Parse they come with: 0.6 and
	// 0.9 µs beside 0.9 on the generated transcript's lines): every shapeWindow tries, if fewer
	// than half found their shape, the next shapeRest lines are parsed only.
	tries, hits, rest int
	ids               uint32 // shape ids given so far
}

func newShapeCache() *shapeCache {
	c := &shapeCache{}
	for k := range c.order {
		c.order[k] = uint8(k)
	}
	return c
}

const (
	shapeWindow = 64
	shapeRest   = 1024
)

// parseShaped reads b by one of the Doc's shapes; false when none fits b (b may still be valid:
// Parse then reads it byte by byte). The shape's own tape becomes the line's: it always holds
// the last line read by the shape, so only what moved is written (copying the tape for every
// line was 7% of the audit of small entries).
func (d *Doc) parseShaped(b []byte) bool {
	c := d.shapes
	if c.n == 0 {
		return false
	}
	slot := c.order[0]
	s := c.list[slot]
	if len(s.toks) >= DocMaxValues { // as many tokens as parse refuses: leave it the line
		return false
	}
	vals := c.vals[:0]
	defer func() { c.vals = vals }()
	pos := 0
	for i := 0; ; i++ {
		sg := &s.segs[i]
		var fits bool
		if sg.short && pos+16 <= len(b) { // sg.fits, inlined by hand (it costs more than the inliner's budget)
			fits = binary.LittleEndian.Uint64(b[pos:pos+8])&sg.m[0] == sg.w[0] &&
				binary.LittleEndian.Uint64(b[pos+8:pos+16])&sg.m[1] == sg.w[1]
		} else {
			fits = sg.fitsLong(b, pos)
		}
		if !fits {
			// another shape that shares the first i segments and fits here
			t := c.other(slot, i, b, pos)
			if t < 0 || len(c.list[t].toks) >= DocMaxValues {
				return false
			}
			slot, s = uint8(t), c.list[t]
			sg = &s.segs[i]
		}
		v := shapeVal{at: int32(pos)}
		pos += len(sg.glue)
		v.start = int32(pos)
		switch sg.kind {
		case TypeString:
			end, esc, msg := scanString(b, pos)
			if msg != "" {
				return false
			}
			v.end, v.esc = int32(end-1), esc != 0
			pos = end
		case TypeNumber:
			if pos >= len(b) {
				return false
			}
			end, msg := scanNumber(b, pos)
			if msg != "" {
				return false
			}
			v.end = int32(end)
			pos = end
		}
		vals = append(vals, v)
		if sg.kind == TypeNone {
			s.take(vals)
			d.toks = s.toks
			c.use(slot)
			d.shape = s.id
			return true
		}
	}
}

// fits reports whether the segment's glue is at b[pos:] (and, for the last glue, ends b). Glue
// of up to 16 bytes is compared as two masked words (inlined: most glue is a key or two).
func (sg *segment) fits(b []byte, pos int) bool {
	if sg.short && pos+16 <= len(b) {
		return binary.LittleEndian.Uint64(b[pos:pos+8])&sg.m[0] == sg.w[0] &&
			binary.LittleEndian.Uint64(b[pos+8:pos+16])&sg.m[1] == sg.w[1]
	}
	return sg.fitsLong(b, pos)
}

//go:noinline
func (sg *segment) fitsLong(b []byte, pos int) bool {
	n := len(sg.glue)
	if sg.kind == TypeNone {
		return len(b)-pos == n && string(b[pos:]) == sg.glue
	}
	return len(b)-pos >= n && string(b[pos:pos+n]) == sg.glue
}

// other is the most recently used shape besides slot that shares slot's first i segments and
// whose segment i fits b at pos, or -1.
func (c *shapeCache) other(slot uint8, i int, b []byte, pos int) int {
	for _, o := range c.order[:c.n] {
		if o != slot && c.common[slot][o] >= int32(i) && c.list[o].segs[i].fits(b, pos) {
			return int(o)
		}
	}
	return -1
}

// take makes the shape's tape and segments the line's, whose glue and values lie at vals: the
// keys move with their glue, the values get their offsets.
func (s *shape) take(vals []shapeVal) {
	toks := s.toks
	for i := range s.segs {
		sg, v := &s.segs[i], vals[i]
		if delta := v.at - sg.at; delta != 0 {
			for _, k := range s.keys[sg.k0:sg.k1] {
				toks[k].start += delta
				toks[k].end += delta
			}
			sg.at = v.at
		}
		if sg.kind != TypeNone {
			t := &toks[sg.tok]
			t.start, t.end, t.esc = v.start, v.end, v.esc
		}
	}
}

// use makes slot the most recently used shape.
func (c *shapeCache) use(slot uint8) {
	k := 0
	for c.order[k] != slot {
		k++
	}
	copy(c.order[1:k+1], c.order[:k])
	c.order[0] = slot
}

// try reports whether the next line is to be read by shape, and counts it.
func (c *shapeCache) try() bool {
	if c.rest > 0 {
		c.rest--
		return false
	}
	return true
}

// tried counts the outcome of a try.
func (c *shapeCache) tried(hit bool) {
	c.tries++
	if hit {
		c.hits++
	}
	if c.tries == shapeWindow {
		if c.hits < shapeWindow/2 {
			c.rest = shapeRest
		}
		c.tries, c.hits = 0, 0
	}
}

// learn makes the line the Doc just parsed (b, d.toks) a shape, in place of the least recently
// used one.
func (d *Doc) learn(b []byte) {
	c := d.shapes
	if len(d.toks) > maxShapeToks || len(d.toks) == 0 || d.toks[0].kind != TypeObject {
		return
	}
	slot := c.order[min(c.n, maxShapes-1)] // a free slot, else the least recently used one
	c.n = min(c.n+1, maxShapes)
	if c.list[slot] == nil {
		c.list[slot] = &shape{}
	}
	s := c.list[slot]
	c.ids++
	s.id = c.ids
	s.toks = append(s.toks[:0], d.toks...)
	s.segs, s.glue, s.keys = s.segs[:0], s.glue[:0], s.keys[:0]
	gstart, k0 := 0, 0
	cut := func(end int, kind Type, tok int) {
		s.glue = append(s.glue, b[gstart:end]...)
		s.segs = append(s.segs, segment{at: int32(gstart), kind: kind, tok: int32(tok), k0: int32(k0), k1: int32(len(s.keys))})
		k0 = len(s.keys)
	}
	for j, t := range d.toks {
		switch t.kind {
		case typeKey:
			s.keys = append(s.keys, int32(j))
		case TypeString:
			cut(int(t.start), TypeString, j)
			gstart = int(t.end) + 1 // after the closing quote
		case TypeNumber:
			cut(int(t.start), TypeNumber, j)
			gstart = int(t.end)
		}
	}
	cut(len(b), TypeNone, 0)
	if len(s.glue) > maxShapeGlue {
		c.forget(slot) // too much to compare; the slot is reused first
		return
	}
	// each segment's glue: from its start in the line to the value's start (the next token
	// kept in s.toks), as strings over s.glue, which no longer moves
	all := unsafe.String(unsafe.SliceData(s.glue), len(s.glue))
	off := 0
	for i := range s.segs {
		sg := &s.segs[i]
		n := len(s.glue) - off
		if sg.kind != TypeNone {
			n = int(s.toks[sg.tok].start) - int(sg.at)
		}
		sg.glue = all[off : off+n]
		off += n
		sg.short = n <= 16 && sg.kind != TypeNone
		var w [16]byte
		copy(w[:], sg.glue)
		sg.w = [2]uint64{binary.LittleEndian.Uint64(w[:8]), binary.LittleEndian.Uint64(w[8:])}
		sg.m = [2]uint64{byteMask(n), byteMask(n - 8)}
	}
	for _, o := range c.order[:c.n] {
		n := int32(0)
		if o != slot {
			n = sharedSegments(s, c.list[o])
		}
		c.common[slot][o], c.common[o][slot] = n, n
	}
	c.use(slot)
	d.shape = s.id
}

// byteMask has the low n bytes set (none for n <= 0, all for n >= 8).
func byteMask(n int) uint64 {
	switch {
	case n <= 0:
		return 0
	case n >= 8:
		return ^uint64(0)
	}
	return 1<<(8*n) - 1
}

// forget takes slot out of the cache's order (it is reused by the next learn).
func (c *shapeCache) forget(slot uint8) {
	k := 0
	for c.order[k] != slot {
		k++
	}
	copy(c.order[k:c.n-1], c.order[k+1:c.n])
	c.n--
	c.order[c.n] = slot
}

// sharedSegments is how many leading segments a and b have alike: the same glue before a value
// of the same kind.
func sharedSegments(a, b *shape) int32 {
	n := int32(0)
	for i := 0; i < len(a.segs) && i < len(b.segs); i++ {
		x, y := &a.segs[i], &b.segs[i]
		if x.kind != y.kind || x.glue != y.glue {
			break
		}
		n++
	}
	return n
}

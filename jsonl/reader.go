// Package jsonl streams JSON Lines in bounded memory: lines with their number and byte offset,
// an explicit line cap, and detection of the byte-level anomalies that crashes and editors
// leave behind (BOM, CRLF, lone CR, NUL runs, invalid UTF-8, a torn final line). It also
// validates lines fast ([Valid], [ValidateFile]) and writes lines back, compressed or not
// ([Writer]).
package jsonl

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"sync"

	segutf8 "github.com/segmentio/asm/utf8"
)

// DefaultMaxLine is the default line cap: large enough for base64 images in tool results.
const DefaultMaxLine = 64 << 20

// DefaultBufferSize is the read buffer of a Reader (it starts at 64 KiB and doubles up to it
// while the stream goes on). A longer line grows it up to the line cap, and it shrinks back
// afterwards.
const DefaultBufferSize = 1 << 20

// startBufferSize is the first read buffer; it doubles up to Options.BufferSize.
const startBufferSize = 64 << 10

// ErrLineTooLong marks a line longer than Options.MaxLine; its bytes are not kept.
var ErrLineTooLong = errors.New("line too long")

// Flag records a byte-level anomaly of one line.
type Flag uint16

const (
	FlagBOM         Flag = 1 << iota // UTF-8 byte order mark at the start of the stream (stripped from Bytes)
	FlagCRLF                         // line ended in \r\n (the \r is stripped from Bytes)
	FlagLoneCR                       // a \r inside the line that is not part of the line end
	FlagNUL                          // NUL bytes in the line
	FlagInvalidUTF8                  // bytes that are not valid UTF-8
	FlagNoNewline                    // last line of the stream without a final \n (torn write)
	FlagTooLong                      // longer than Options.MaxLine; Bytes is nil
	FlagBlank                        // empty or only whitespace
)

// flagNames are the names of the flags in bit order, used by String and in reports.
var flagNames = [...]string{"bom", "crlf", "lone_cr", "nul", "invalid_utf8", "no_newline", "too_long", "blank"}

// AllFlags lists every flag in bit order.
var AllFlags = []Flag{FlagBOM, FlagCRLF, FlagLoneCR, FlagNUL, FlagInvalidUTF8, FlagNoNewline, FlagTooLong, FlagBlank}

// String names the flags set in f, joined by "|" ("" for none).
func (f Flag) String() string {
	var b []byte
	for i, name := range flagNames {
		if f&(1<<i) != 0 {
			if len(b) > 0 {
				b = append(b, '|')
			}
			b = append(b, name...)
		}
	}
	return string(b)
}

// Line is one line of a JSONL stream.
type Line struct {
	Num    int64  // 1-based line number
	Offset int64  // byte offset of the line's first byte in the (decompressed) stream; 0 for line 1 even with a BOM
	Size   int64  // bytes of the line in the stream: BOM (line 1), content and terminator
	Bytes  []byte // the line without BOM and \n / \r\n; valid until the next call to Next
	Flags  Flag
}

// Has reports whether l carries flag f.
func (l *Line) Has(f Flag) bool { return l.Flags&f != 0 }

// Terminator returns the line end that followed l in the stream: "\n", "\r\n" or "" for a
// torn final line. Writing BOM (if flagged), Bytes and Terminator for every line rebuilds
// the stream byte for byte (except lines over the cap, whose bytes are not kept).
func (l *Line) Terminator() string {
	switch {
	case l.Flags&FlagNoNewline != 0:
		return ""
	case l.Flags&FlagCRLF != 0:
		return "\r\n"
	}
	return "\n"
}

// Options tune a Reader.
type Options struct {
	MaxLine    int // longest line kept, in bytes before its \n; 0 means DefaultMaxLine
	BufferSize int // initial read buffer in bytes; 0 means DefaultBufferSize (tests use small ones)
	// Handoff, when set, lends the Reader its buffers: it is called with nil for the first
	// buffer and with each full buffer (old), which then belongs to the caller again with the
	// Bytes of every line returned from it, and returns the buffer to go on with, of at least
	// size bytes (its full capacity is used). The lines of old stay valid as long as the caller
	// keeps old: a caller that holds lines across calls to Next needs no copy of them. The
	// unfinished line at the end of old is copied to the new buffer after the call, so old must
	// not be written (nor given to anything that may write it) before the Next that called
	// Handoff returns. [Reader.Detach] takes the last buffer.
	Handoff func(old []byte, size int) []byte
	// Unclassified leaves out of Line.Flags what Classify finds inside a line (lone CR, NUL,
	// invalid UTF-8, blank): the caller classifies lines itself, on other goroutines than the
	// reading one, with Classify or, together with a scan of its JSON, [Scanner.Line].
	Unclassified bool
}

// Reader yields the lines of a stream one at a time, without bufio.Scanner: a line over the
// cap is a finding (FlagTooLong), not the end of the scan. Memory stays bounded by MaxLine
// plus the read buffer.
type Reader struct {
	src     io.Reader
	buf     []byte
	r, w    int // unread bytes are buf[r:w]
	base    int // initial buffer size, to shrink back to
	max     int
	num     int64
	pos     int64 // stream offset of buf[r]
	eof     bool  // src returned io.EOF
	err     error // sticky error to return once buffered lines are done
	done    bool  // io.EOF returned
	started bool

	noClassify bool // Validate's workers classify lines themselves, off the reading goroutine
	// buf[cleanLo:cleanHi] is known to hold no CR, no NUL and no byte above 0x7f (clean): a
	// line inside it needs no Classify but the blank test. The span is found a word at a time
	// ahead of the lines, up to the next byte that is not clean (four calls a line were a
	// twelfth of the audit of a file of small entries, on the reading goroutine); the line
	// holding that byte is classified, and the span starts over after it.
	cleanLo, cleanHi int
	// handoff, when set, takes the full buffer (and so the Bytes of every line returned from
	// it) and returns a buffer of at least size bytes to go on with, instead of compacting in
	// place. Validate hands each buffer to a worker this way, with no copy of the lines.
	handoff func(old []byte, size int) []byte
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader, opts Options) *Reader {
	max := opts.MaxLine
	if max <= 0 {
		max = DefaultMaxLine
	}
	size := opts.BufferSize
	if size <= 0 {
		size = DefaultBufferSize
	}
	if size < 16 {
		size = 16
	}
	return &Reader{src: r, base: size, max: max, handoff: opts.Handoff, noClassify: opts.Unclassified}
}

// Detach returns the Reader's buffer, which the Bytes of the lines returned since the last
// Handoff point into, and ends the Reader as [Reader.Release] does; the buffer is not kept for
// another Reader.
func (r *Reader) Detach() []byte {
	b := r.buf
	r.buf, r.r, r.w, r.done = nil, 0, 0, true
	return b
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// bufPool holds buffers of Readers that were released, for the next Reader: a state dir's
// audit reads thousands of files, and a buffer for each was most of what the collector
// had to keep up with.
var bufPool sync.Pool // *[]byte

// maxPooled is the largest buffer kept for reuse: the full buffer, not one a long line grew.
const maxPooled = 2 * DefaultBufferSize

// Release gives the Reader's buffer to the next Reader. The Bytes of every line it returned
// are invalid after it, and Next returns io.EOF.
func (r *Reader) Release() {
	if r.buf != nil && r.handoff == nil && cap(r.buf) <= maxPooled {
		b := r.buf[:cap(r.buf)]
		bufPool.Put(&b)
	}
	r.buf, r.r, r.w, r.done = nil, 0, 0, true
}

// Offset returns the number of stream bytes consumed so far (the offset of the next line).
func (r *Reader) Offset() int64 { return r.pos }

// fill reads more data into buf, compacting or growing it first. It reports false when
// nothing more can be read (end of stream or an error, kept in r.err).
func (r *Reader) fill() bool {
	if r.eof || r.err != nil {
		return false
	}
	if r.buf == nil {
		// a buffer a Reader released (it costs nothing), else start small and double up to
		// the full buffer as the stream proves long: a 2 KiB transcript must not cost a
		// zeroed 1 MiB (stats and audit open thousands)
		if r.handoff != nil {
			r.buf = r.handoff(nil, min(r.base, startBufferSize))
		} else if p, ok := bufPool.Get().(*[]byte); ok {
			r.buf = *p
		} else {
			r.buf = make([]byte, min(r.base, startBufferSize))
		}
	}
	if r.w == len(r.buf) { // no room left: move the unfinished line to the front of a buffer
		carry, size := r.w-r.r, len(r.buf)
		switch {
		case r.r == 0: // one unfinished line fills the buffer: grow it, up to the cap
			// BOM + line + \n. Once doubling would reach the cap, go straight to it: a line
			// over the cap then costs the old buffer and one of the cap's size at once, not
			// a buffer at the cap and another just over it (128 MiB for a 64 MiB cap).
			if 2*size >= r.max {
				size = max(r.max+4, size+1)
			} else {
				size = 2 * size
			}
		case size < r.base: // still ramping up to the full buffer
			size = min(2*size, r.base)
		case size > 4*r.base && carry <= r.base/2: // a long line is over: give its buffer back
			// (not only at a line end that falls on the buffer's end: with Handoff every
			// buffer after a long line would be as big as it, and each one the caller holds)
			size = r.base
		}
		nb := r.buf
		switch {
		case r.handoff != nil:
			nb = r.handoff(r.buf, size)
		case size != len(r.buf):
			nb = make([]byte, size)
		}
		copy(nb, r.buf[r.r:r.w])
		r.cleanLo, r.cleanHi = max(r.cleanLo-r.r, 0), max(r.cleanHi-r.r, 0)
		r.buf, r.r, r.w = nb, 0, carry
	}
	for range 100 {
		n, err := r.src.Read(r.buf[r.w:])
		if n < 0 || n > len(r.buf)-r.w {
			r.err = errors.New("jsonl: source returned an invalid count")
			return false
		}
		r.w += n
		if err == io.EOF {
			r.eof = true
			return n > 0
		}
		if err != nil {
			r.err = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	r.err = io.ErrNoProgress
	return false
}

// Next returns the next line, or io.EOF after the last one. A line over the cap is returned
// with FlagTooLong and no bytes, and reading goes on. A read error is returned after the
// lines read before it, and then again on every call.
func (r *Reader) Next() (Line, error) {
	if r.done {
		return Line{}, io.EOF
	}
	l := Line{Num: r.num + 1, Offset: r.pos}
	skip := 0 // bytes at buf[r:] that belong to the line but not to its content (the BOM)
	if !r.started {
		r.started = true
		for r.w-r.r < 3 && r.fill() {
		}
		if bytes.HasPrefix(r.buf[r.r:r.w], bom) {
			l.Flags |= FlagBOM
			skip = 3
		}
	}
	scanned := skip // bytes of buf[r:] already searched for '\n'
	for {
		if k := bytes.IndexByte(r.buf[r.r+scanned:r.w], '\n'); k >= 0 {
			end := r.r + scanned + k // index of the '\n'
			if end-(r.r+skip) > r.max {
				l.Flags |= FlagTooLong
				if end > r.r+skip && r.buf[end-1] == '\r' {
					l.Flags |= FlagCRLF
				}
				r.advance(end + 1 - r.r)
				l.Size = r.pos - l.Offset
				return l, nil
			}
			lo := r.r + skip
			l.Bytes = r.buf[lo:end]
			r.advance(end + 1 - r.r)
			return r.finish(l, lo), nil
		}
		scanned = r.w - r.r
		if scanned-skip > r.max {
			return r.discard(l)
		}
		if !r.fill() {
			break
		}
	}
	if r.err != nil {
		return Line{}, r.err // a line cut by a read error is not a torn line: report the error
	}
	if r.w > r.r { // torn final line
		lo := r.r + skip
		l.Bytes = r.buf[lo:r.w]
		l.Flags |= FlagNoNewline
		r.advance(r.w - r.r)
		return r.finish(l, lo), nil
	}
	return Line{}, r.end()
}

// end returns the error that stops the stream: the read error, or io.EOF.
func (r *Reader) end() error {
	if r.err != nil {
		return r.err
	}
	r.done = true
	return io.EOF
}

func (r *Reader) advance(n int) {
	r.r += n
	r.pos += int64(n)
	r.num++
}

// discard skips the rest of a line longer than the cap, counting its bytes.
func (r *Reader) discard(l Line) (Line, error) {
	l.Flags |= FlagTooLong
	last := byte(0)
	for {
		if k := bytes.IndexByte(r.buf[r.r:r.w], '\n'); k >= 0 {
			if k > 0 {
				last = r.buf[r.r+k-1]
			}
			if last == '\r' {
				l.Flags |= FlagCRLF
			}
			r.pos += int64(k + 1)
			r.r += k + 1
			break
		}
		if r.w > r.r {
			last = r.buf[r.w-1]
		}
		r.pos += int64(r.w - r.r)
		r.r = r.w
		if !r.fill() {
			if r.err != nil {
				return Line{}, r.err
			}
			if r.w == r.r {
				l.Flags |= FlagNoNewline
				break
			}
		}
	}
	r.num++
	l.Size = r.pos - l.Offset
	return l, nil
}

// cleanRun is the length of b's leading run of clean bytes (no CR, NUL or byte above 0x7f),
// 32 bytes a step while they are clean, then byte by byte.
func cleanRun(b []byte) int {
	i := 0
	for ; i+32 <= len(b); i += 32 {
		if dirty(binary.LittleEndian.Uint64(b[i:]))|dirty(binary.LittleEndian.Uint64(b[i+8:]))|
			dirty(binary.LittleEndian.Uint64(b[i+16:]))|dirty(binary.LittleEndian.Uint64(b[i+24:])) != 0 {
			break
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == 0 || c == '\r' || c >= 0x80 {
			return i
		}
	}
	return i
}

// dirty is non-zero when the word holds a byte above 0x7f, a zero byte or a CR (exact tests
// for whether it holds one; which one is found byte by byte).
func dirty(x uint64) uint64 {
	const ones, highs, crs = 0x0101010101010101, 0x8080808080808080, 0x0d0d0d0d0d0d0d0d
	cr := x ^ crs
	return (x | (x-ones)&^x | (cr-ones)&^cr) & highs
}

// finish sets Size, strips the \r of a CRLF and classifies the content, which starts at
// buf[lo] (buf as it was before the line was consumed).
func (r *Reader) finish(l Line, lo int) Line {
	l.Size = r.pos - l.Offset
	b := l.Bytes
	if l.Flags&FlagNoNewline == 0 {
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
			l.Flags |= FlagCRLF
		}
	}
	l.Bytes = b
	if !r.noClassify {
		if r.inClean(lo, len(b)) {
			if isBlank(b) {
				l.Flags |= FlagBlank
			}
		} else {
			l.Flags |= Classify(b)
		}
	}
	return l
}

// inClean reports whether the n bytes at buf[lo:] are clean, moving the clean span on: a line
// past its end starts a new one, a line that passes its end extends it over the bytes read.
func (r *Reader) inClean(lo, n int) bool {
	if lo < r.cleanLo || lo > r.cleanHi {
		r.cleanLo, r.cleanHi = lo, lo
	}
	if lo+n > r.cleanHi {
		r.cleanHi += cleanRun(r.buf[r.cleanHi:r.w])
	}
	return n > 0 && lo+n <= r.cleanHi
}

// Classify finds the anomalies inside one line's content (without its terminator): lone CR,
// NUL, invalid UTF-8, blank. (A one-pass SWAR version was measured slower than these three
// assembly-backed scans; see docs/validate.md.) The UTF-8 check is segmentio/asm's, AVX2 where
// the CPU has it and the stdlib's elsewhere: every line of a reader's that is not pure ASCII
// comes here, and the stdlib's loop was a fifth of the CPU of a JSONL audit (0.6 of 3.1 CPU-s,
// 512 MiB of generated sessions) and an eighth of the SQLite-era one.
func Classify(b []byte) Flag {
	var f Flag
	if bytes.IndexByte(b, '\r') >= 0 {
		f |= FlagLoneCR
	}
	if bytes.IndexByte(b, 0) >= 0 {
		f |= FlagNUL
	}
	if !segutf8.Valid(b) {
		f |= FlagInvalidUTF8
	}
	if isBlank(b) {
		f |= FlagBlank
	}
	return f
}

func isBlank(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\v', '\f':
		default:
			return false
		}
	}
	return true
}

// classifyJSON is Classify and Valid in one pass over most lines: walk checks the JSON and the
// UTF-8 of its strings together (modeUTF8; with AVX2, walk and then one AVX2 pass over the
// line's UTF-8), and a valid line is ASCII outside its strings, so it cannot hold a NUL or be
// blank and its UTF-8 is known, and its only place for a CR is whitespace, which walk reports
// (outCR): no second pass of Classify over the line. A line that is not valid JSON, rare, is
// classified by Classify. On the validate bench this halved the CPU time of a worker
// (utf8.Valid was 40 % of it).
func classifyJSON(b []byte) (f Flag, valid bool) {
	f, end := classifyWalk(b, nil)
	return f, end >= 0
}

// classifyWalk is classifyJSON reporting to sc (nil for none) and returning the end of the
// value, or -1 when b is not one valid value.
func classifyWalk(b []byte, sc *Scanner) (f Flag, valueEnd int) {
	mode := modeUTF8
	if haveStopAVX2 {
		// strings are scanned with AVX2 to their quotes and escapes only, and the line's UTF-8
		// checked after in one AVX2 pass: a valid line is ASCII outside its strings. Stopping
		// at every rune run instead made classifyJSON 8 % slower (64 MiB of the limits
		// transcript in memory, 2026-12-06); without AVX2 that pass would be the stdlib's
		// utf8.Valid, slower than decoding runes in the string scan.
		mode = 0
	}
	end, msg, _, out := walk(b, 0, sc, nil, mode)
	if msg != "" {
		return Classify(b), -1
	}
	if mode == 0 && !segutf8.Valid(b) {
		out |= outBadUTF8
	}
	valueEnd = end
	if end, out = spaceCR(b, end, out); end != len(b) {
		return Classify(b), -1
	}
	if out&outCR != 0 {
		f |= FlagLoneCR
	}
	if out&outBadUTF8 != 0 {
		f |= FlagInvalidUTF8
	}
	return f, valueEnd
}

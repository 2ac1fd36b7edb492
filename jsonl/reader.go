// Package jsonl streams JSON Lines in bounded memory: lines with their number and byte offset,
// an explicit line cap, and detection of the byte-level anomalies that crashes and editors
// leave behind (BOM, CRLF, lone CR, NUL runs, invalid UTF-8, a torn final line).
package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"unicode/utf8"
)

// DefaultMaxLine is the default line cap: large enough for base64 images in tool results.
const DefaultMaxLine = 64 << 20

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

// Line is one line of a JSONL stream.
type Line struct {
	Num    int64  // 1-based line number
	Offset int64  // byte offset of the line's first byte in the (decompressed) stream
	Size   int64  // bytes of the line in the stream, including its terminator
	Bytes  []byte // the line without BOM and \n / \r\n; valid until the next call to Next
	Flags  Flag
}

// Has reports whether l carries flag f.
func (l *Line) Has(f Flag) bool { return l.Flags&f != 0 }

// Options tune a Reader.
type Options struct {
	MaxLine int // longest line kept, in bytes; 0 means DefaultMaxLine
}

// Reader yields the lines of a stream one at a time. Memory stays bounded by MaxLine.
type Reader struct {
	br      *bufio.Reader
	max     int
	num     int64
	pos     int64
	buf     []byte
	err     error
	started bool
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader, opts Options) *Reader {
	max := opts.MaxLine
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &Reader{br: bufio.NewReaderSize(r, 1<<20), max: max}
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// Next returns the next line, or io.EOF after the last one. A line over the cap is returned
// with FlagTooLong and no bytes, and reading goes on. Other errors are sticky.
func (r *Reader) Next() (Line, error) {
	if r.err != nil {
		return Line{}, r.err
	}
	l := Line{Num: r.num + 1, Offset: r.pos}
	if !r.started {
		r.started = true
		if p, _ := r.br.Peek(3); bytes.Equal(p, bom) {
			r.br.Discard(3)
			r.pos += 3
			l.Flags |= FlagBOM
		}
	}
	r.buf = r.buf[:0]
	var err error
	for {
		var chunk []byte
		chunk, err = r.br.ReadSlice('\n')
		r.pos += int64(len(chunk))
		if l.Flags&FlagTooLong == 0 {
			if len(r.buf)+len(chunk) > r.max+1 { // +1: the \n itself does not count
				l.Flags |= FlagTooLong
				r.buf = r.buf[:0]
			} else {
				r.buf = append(r.buf, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			break
		}
	}
	l.Size = r.pos - l.Offset
	if err != nil && err != io.EOF {
		r.err = err
		return Line{}, err
	}
	if err == io.EOF {
		r.err = io.EOF // the next call ends the stream
		if len(r.buf) == 0 && l.Flags&FlagTooLong == 0 {
			return Line{}, io.EOF
		}
		l.Flags |= FlagNoNewline
	}
	r.num++
	if l.Flags&FlagTooLong != 0 {
		return l, nil
	}
	b := r.buf
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
			l.Flags |= FlagCRLF
		}
	}
	l.Flags |= classify(b)
	l.Bytes = b
	return l, nil
}

// classify finds the anomalies inside a line's content.
func classify(b []byte) Flag {
	var f Flag
	if bytes.IndexByte(b, '\r') >= 0 {
		f |= FlagLoneCR
	}
	if bytes.IndexByte(b, 0) >= 0 {
		f |= FlagNUL
	}
	if !utf8.Valid(b) {
		f |= FlagInvalidUTF8
	}
	if len(bytes.TrimSpace(b)) == 0 {
		f |= FlagBlank
	}
	return f
}

package jsonl

import (
	"bufio"
	"io"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Writer writes lines with buffered output (256 KiB), plain or compressed, so a repaired
// archive keeps the compression it had. Close must be called to flush the buffer and the last
// compressed frame; a write error is also returned by every later call and by Close.
type Writer struct {
	bw   *bufio.Writer
	comp io.WriteCloser
	n    int64
}

// NewWriter returns a Writer to w in compression c.
func NewWriter(w io.Writer, c Compression) (*Writer, error) {
	out := &Writer{}
	switch c {
	case Gzip:
		out.comp = gzip.NewWriter(w)
	case Zstd:
		zw, err := zstd.NewWriter(w, zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		out.comp = zw
	}
	if out.comp != nil {
		out.bw = bufio.NewWriterSize(out.comp, 256<<10)
	} else {
		out.bw = bufio.NewWriterSize(w, 256<<10)
	}
	return out, nil
}

// WriteLine writes b and a "\n".
func (w *Writer) WriteLine(b []byte) error {
	if _, err := w.bw.Write(b); err != nil {
		return err
	}
	w.n += int64(len(b)) + 1
	return w.bw.WriteByte('\n')
}

// Write writes raw bytes (for callers that keep exact line terminators).
func (w *Writer) Write(b []byte) (int, error) {
	n, err := w.bw.Write(b)
	w.n += int64(n)
	return n, err
}

// Written is the number of uncompressed bytes written so far.
func (w *Writer) Written() int64 { return w.n }

// Close flushes everything; it does not close the underlying writer.
// The compressor is closed even when flushing fails, so a zstd encoder never leaks.
func (w *Writer) Close() error {
	err := w.bw.Flush()
	if w.comp != nil {
		if cerr := w.comp.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

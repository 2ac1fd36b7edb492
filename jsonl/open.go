package jsonl

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/clawdoctor/clawdoctor/internal/safefile"
)

// Compression names how a stream is compressed.
type Compression int

const (
	Plain Compression = iota
	Gzip
	Zstd
)

func (c Compression) String() string {
	return [...]string{"plain", "gzip", "zstd"}[c]
}

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// Detect peeks at the first bytes of br and names its compression.
func Detect(br *bufio.Reader) Compression {
	p, _ := br.Peek(4)
	return detect(p)
}

// plainMagic reports whether a stream starting with p (its first 4 bytes, or all of a shorter
// one) is plain: neither gzip nor zstd.
func plainMagic(p []byte) bool { return detect(p) == Plain }

func detect(p []byte) Compression {
	switch {
	case bytes.HasPrefix(p, zstdMagic):
		return Zstd
	case bytes.HasPrefix(p, gzipMagic):
		return Gzip
	}
	return Plain
}

// Decompress returns a reader of r's content, decompressing gzip or zstd found by magic
// bytes, so "x.jsonl.reset.<ts>.zst" reads like a plain file whatever its name says.
// Close releases the decoder; it does not close r.
func Decompress(r io.Reader) (io.ReadCloser, Compression, error) {
	return decompress(r, 256<<10)
}

// decompress is Decompress with a read buffer of size bytes (Open sizes it by the file, so
// opening thousands of small transcripts does not allocate 256 KiB each).
func decompress(r io.Reader, size int) (io.ReadCloser, Compression, error) {
	br := bufio.NewReaderSize(r, size)
	switch c := Detect(br); c {
	case Gzip:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, c, fmt.Errorf("gzip: %w", err)
		}
		return zr, c, nil
	case Zstd:
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, c, fmt.Errorf("zstd: %w", err)
		}
		return zstdCloser{zr}, c, nil
	default:
		return io.NopCloser(br), c, nil
	}
}

type zstdCloser struct{ *zstd.Decoder }

func (z zstdCloser) Close() error { z.Decoder.Close(); return nil }

// File is an open JSONL file, decompressed if needed.
type File struct {
	io.Reader               // the decompressed content
	Path        string      // as given
	Compression Compression // how the file is stored
	Size        int64       // on-disk size
	raw         *os.File
	dec         io.ReadCloser
}

// Open opens path for streaming, decompressing gzip or zstd found by magic bytes. When
// counted is not nil it is fed on-disk bytes as they are read, so a progress bar tracks the
// real file. Errors, including read errors of a damaged compressed stream, name the path.
//
// Only regular files are opened (safefile.Open): a FIFO, a device or a directory is refused
// with an error naming what it is, without blocking in open(2).
func Open(path string, counted func(n int64)) (*File, error) {
	f, st, err := safefile.OpenStat(path)
	if err != nil {
		return nil, err // *fs.PathError names the path
	}
	var src io.Reader = f
	if counted != nil {
		src = &countReader{r: f, add: counted}
	}
	// A plain file (nearly all of them) is read directly: its first bytes are looked at in
	// place, so no buffered reader is allocated and copied through per file (a state dir's
	// 27,000 transcripts were 27,000 buffers of up to 256 KiB for the collector).
	var magic [4]byte
	if n, _ := f.ReadAt(magic[:], 0); plainMagic(magic[:n]) {
		return &File{Reader: &pathReader{r: src, path: path}, Path: path, Compression: Plain, Size: st.Size(), raw: f, dec: io.NopCloser(src)}, nil
	}
	dec, c, err := decompress(src, int(min(max(st.Size(), 4<<10), 256<<10)))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	limited := &inflateLimit{r: dec, path: path, size: st.Size(), left: InflateCap(st.Size())}
	return &File{Reader: &pathReader{r: limited, path: path}, Path: path, Compression: c, Size: st.Size(), raw: f, dec: dec}, nil
}

// Stdin is the path that names standard input where a command reads it ("-").
const Stdin = "-"

// OpenStream reads a JSONL stream (stdin) like Open reads a file: gzip or zstd found by magic
// bytes is decompressed, read errors name it. Size is 0 (unknown); Close does not close r.
func OpenStream(r io.Reader, name string) (*File, error) {
	dec, c, err := decompress(r, 256<<10)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &File{Reader: &pathReader{r: dec, path: name}, Path: name, Compression: c, dec: dec}, nil
}

// pathReader adds the file name to read errors (a truncated gzip or zstd stream), so a
// caller's message names the file; io.EOF passes through unchanged.
type pathReader struct {
	r    io.Reader
	path string
}

func (p *pathReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%s: %w", p.path, err)
	}
	return n, err
}

// Close closes the decoder and the file.
// ReaderAt reads a plain file's bytes at any offset (a caller that met a long line reads it
// once, at its size, instead of gathering it chunk by chunk); nil for a compressed file or a
// stream.
func (f *File) ReaderAt() io.ReaderAt {
	if f.Compression != Plain || f.raw == nil {
		return nil
	}
	return f.raw
}

func (f *File) Close() error {
	f.dec.Close()
	if f.raw == nil {
		return nil
	}
	return f.raw.Close()
}

type countReader struct {
	r   io.Reader
	add func(int64)
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.add(int64(n))
	return n, err
}

// MaxInflateRatio and MinInflateCap bound what a compressed file may inflate to: the larger of
// MinInflateCap and MaxInflateRatio times its size on disk. Transcripts compress 5 to 50
// times; a file past the cap is a decompression bomb (a 300 KB .zst of 4 GiB of lines, or of
// a terabyte, which would take an hour to read) and is refused, named, after the cap.
// commands sets MaxInflateRatio from --max-inflate-ratio.
var (
	MaxInflateRatio int64 = 1000
	MinInflateCap   int64 = 1 << 30
)

// InflateCap is the most a compressed file of size bytes may inflate to.
func InflateCap(size int64) int64 {
	if MaxInflateRatio <= 0 {
		return math.MaxInt64
	}
	if size > math.MaxInt64/MaxInflateRatio {
		return math.MaxInt64
	}
	return max(MinInflateCap, size*MaxInflateRatio)
}

// InflateError reports a compressed file that inflates past InflateCap (File's reads add the
// path, as to every read error). It wraps
// safefile.ErrTooLarge: commands skip the file as over a cap (exit 3) and go on.
type InflateError struct {
	Path  string
	Size  int64 // on disk
	Limit int64
}

func (e *InflateError) Error() string {
	return fmt.Sprintf("inflates to more than %d bytes, over %d times its %d bytes on disk: a decompression bomb? (read no further; raise --max-inflate-ratio, 0 for no cap)",
		e.Limit, MaxInflateRatio, e.Size)
}

func (e *InflateError) Unwrap() error { return safefile.ErrTooLarge }

// inflateLimit stops a decompressed stream at its cap.
type inflateLimit struct {
	r    io.Reader
	path string
	size int64
	left int64
}

func (l *inflateLimit) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var one [1]byte // a stream that ends right at the cap is not over it
		for {
			n, err := l.r.Read(one[:])
			if n > 0 {
				return 0, &InflateError{Path: l.path, Size: l.size, Limit: InflateCap(l.size)}
			}
			if err != nil {
				return 0, err
			}
		}
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

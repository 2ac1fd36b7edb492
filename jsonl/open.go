package jsonl

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
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
	return &File{Reader: &pathReader{r: dec, path: path}, Path: path, Compression: c, Size: st.Size(), raw: f, dec: dec}, nil
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

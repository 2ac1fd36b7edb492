package jsonl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/clawdoctor/clawdoctor/internal/progress"
)

// A plain file of at least chunkMinSize bytes is validated in chunks of chunkSize bytes on
// every core, each read with pread(2) into a buffer of its worker's own: no single goroutine
// reads and splits all the lines. A mapping of the file was used before (no copy at all) and
// dropped: on the project's VM of 2026-12-06 a mapped 1 GiB validate cost 1.4 CPU-s where
// pread cost 1.0 (the first touch of each mapped page is page-table work of the hypervisor,
// billed as user time; a pread copy is a fifth of that), it needed SIGBUS handling for a file
// that shrinks, and Windows streamed instead. Variables so tests can force the path on small
// inputs and tiny chunks.
var (
	chunkMinSize int64 = 4 << 20
	chunkSize          = 8 << 20
)

// chunkBuffer is a chunk reader's buffer: small enough that what pread copies into it is still
// in the core's cache when the check reads it. 1 GiB on the 2-core VM, medians of 5: 1 MiB
// 0.54 s, 256 KiB 0.49 s, 128 KiB 0.50 s, 64 KiB 0.51 s.
const chunkBuffer = 256 << 10

// chunkResult is what a worker found in one chunk: the lines that start in it, with their
// numbers counted from the chunk's first line.
type chunkResult struct {
	done  bool
	lines int64
	end   int64 // offset just past the chunk's last line
	nbad  int64
	bad   []BadLine
	flags [len(flagNames)]int64
	err   error
}

// validateChunks validates a plain file of size bytes in chunks of chunkSize bytes on every
// core, one call of chunk per chunk, as Validate does a stream: the same Summary, line numbers
// and bad lines. A line belongs to the chunk its first byte is in, so a line is read whole by
// one worker however many chunks it spans; results are merged in chunk order, so line numbers
// are exact and the first MaxBad bad lines are kept.
func validateChunks(ctx context.Context, size int64, name string, opts ValidateOptions, c progress.Counter, chunk func(k, max int, keepNone bool) chunkResult) (Summary, error) {
	c = progress.OrNoop(c)
	s := Summary{Path: name, Compression: Plain.String()}
	max := opts.MaxLine
	if max <= 0 {
		max = DefaultMaxLine
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = min(runtime.GOMAXPROCS(0), 4)
	}
	chunks := int((size + int64(chunkSize) - 1) / int64(chunkSize))
	results := make([]chunkResult, chunks)
	var (
		mu     sync.Mutex
		merged int         // results[:merged] are added to s
		full   atomic.Bool // s.Bad holds MaxBad lines: later chunks keep only counts
		stop   atomic.Bool // an error or a cancel: take no more chunks
		next   atomic.Int64
		wg     sync.WaitGroup
	)
	merge := func(k int, r chunkResult) {
		mu.Lock()
		defer mu.Unlock()
		results[k] = r
		for merged < chunks && results[merged].done {
			r := &results[merged]
			if s.Err != "" {
				break // counts cover the chunks before the one that failed
			}
			if r.err != nil {
				s.Err = r.err.Error()
				break
			}
			for _, b := range r.bad {
				if len(s.Bad) < opts.MaxBad {
					b.Line += s.Lines
					s.Bad = append(s.Bad, b)
				}
			}
			if len(s.Bad) >= opts.MaxBad {
				full.Store(true)
			}
			s.Lines += r.lines
			s.BadLines += r.nbad
			for i, n := range r.flags {
				s.flags[i] += n
			}
			if r.lines > 0 {
				s.Bytes = r.end
			}
			*r = chunkResult{done: true} // its bad lines are merged: let them go
			merged++
		}
	}
	for range min(workers, chunks) {
		wg.Go(func() {
			for !stop.Load() {
				k := int(next.Add(1) - 1)
				if k >= chunks {
					return
				}
				r := chunk(k, max, full.Load())
				r.done = true
				if r.err != nil {
					stop.Store(true)
				}
				lo := k * chunkSize
				c.Add(min(int64(lo+chunkSize), size) - int64(lo))
				merge(k, r)
			}
		})
	}
	wg.Wait()
	var err error
	if s.Err == "" {
		if err = ctx.Err(); err != nil {
			s.Err = err.Error()
		} else {
			s.Bytes = size
		}
	} else {
		err = errors.New(s.Err)
		for _, r := range results { // the error of the chunk that stopped the merge
			if r.err != nil {
				err = r.err
				break
			}
		}
	}
	s.DiskBytes = s.Bytes
	s.finish()
	return s, err
}

// validateReadAt validates the plain file name of size bytes, read through ra (pread(2) for
// an *os.File), in chunks on every core (validateChunks); each worker reads with a Reader of
// its own, whose buffers are pooled.
func validateReadAt(ctx context.Context, ra io.ReaderAt, size int64, name string, opts ValidateOptions, c progress.Counter) (Summary, error) {
	return validateChunks(ctx, size, name, opts, c, func(k, max int, keepNone bool) chunkResult {
		return validateReadAtChunk(ctx, ra, size, k, max, opts.MaxBad, keepNone, name)
	})
}

// validateReadAtChunk checks the lines that start in chunk k of the file.
func validateReadAtChunk(ctx context.Context, ra io.ReaderAt, size int64, k, maxLine, maxBad int, keepNone bool, name string) (r chunkResult) {
	if err := ctx.Err(); err != nil {
		r.err = err
		return r
	}
	lo := int64(k) * int64(chunkSize)
	hi := min(lo+int64(chunkSize), size)
	start := lo
	if k > 0 { // the first line that starts in the chunk: just after a '\n' at lo-1 or later
		j, err := findNewline(ra, lo-1, hi-1, name)
		if err != nil {
			r.err = err
			return r
		}
		if j < 0 {
			return r // every byte of the chunk is inside a line that started before it
		}
		start = j + 1
	}
	src := &sizedReader{ra: ra, off: start, size: size, name: name}
	rd := NewReader(ContextReader(ctx, src), Options{MaxLine: maxLine, BufferSize: chunkBuffer})
	defer rd.Release()
	rd.pos, rd.started, rd.noClassify = start, k > 0, true
	for rd.pos < hi {
		l, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			r.err = err
			return r
		}
		r.lines++
		r.end = rd.pos
		bad, isBad := checkLine(&l, maxLine)
		for f := l.Flags; f != 0; f &= f - 1 {
			r.flags[bits.TrailingZeros16(uint16(f))]++
		}
		if isBad {
			r.nbad++
			if !keepNone && len(r.bad) < maxBad {
				r.bad = append(r.bad, bad)
			}
		}
		if r.lines%4096 == 0 {
			if err := ctx.Err(); err != nil {
				r.err = err
				return r
			}
		}
	}
	return r
}

// findNewline returns the offset of the first '\n' in [from, to) of the file, or -1. It reads
// 4 KiB first, where a line of a transcript nearly always ends, then 64 KiB at a time. (It read
// 64 KiB every time into an array made anew, on the heap as ReadAt's argument: perf put 560 of a
// 1 GiB validate's 2,050 page faults in this read, and the 4 KiB read took 110 of them away.)
func findNewline(ra io.ReaderAt, from, to int64, name string) (int64, error) {
	buf := make([]byte, 4<<10)
	for off := from; off < to; {
		n := int(min(int64(len(buf)), to-off))
		m, err := ra.ReadAt(buf[:n], off)
		if m < n {
			if err == nil || err == io.EOF {
				err = errShrank(name)
			}
			return -1, err
		}
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return off + int64(i), nil
		}
		off += int64(n)
		if len(buf) < 64<<10 {
			buf = make([]byte, 64<<10) // a long line
		}
	}
	return -1, nil
}

func errShrank(name string) error {
	return fmt.Errorf("%s: the file shrank while it was read", name)
}

// sizedReader reads ra from off to size: an end before size is the file shrinking under the
// read, an error, never the end of a torn last line.
type sizedReader struct {
	ra        io.ReaderAt
	off, size int64
	name      string
}

func (s *sizedReader) Read(p []byte) (int, error) {
	if s.off >= s.size {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), s.size-s.off)]
	n, err := s.ra.ReadAt(p, s.off)
	s.off += int64(n)
	if n < len(p) {
		if err == nil || err == io.EOF {
			err = errShrank(s.name)
		}
		return n, err
	}
	return n, nil
}

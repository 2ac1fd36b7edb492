package jsonl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/clawdoctor/clawdoctor/internal/progress"
)

// A plain file of at least mapMinSize bytes is validated from a read-only mapping, in chunks of
// mapChunk bytes checked on every core: no read(2) copies the file into buffers and no single
// goroutine splits all the lines. Measured on a 1 GiB transcript (2 cores, warm cache): the
// copy alone cost as much as `wc -l` does, and the reading goroutine was the bound of the
// streaming pipeline. Variables so tests can force the path on small inputs and tiny chunks.
var (
	mapMinSize int64 = 4 << 20
	mapChunk         = 8 << 20 // a multiple of every page size (16 KiB on Apple silicon)
)

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

// validateMapped validates data, the mapped content of the plain file name, as Validate does a
// stream: the same Summary, line numbers and bad lines. A line belongs to the chunk its first
// byte is in, so a line is read whole by one worker however many chunks it spans; results are
// merged in chunk order, so line numbers are exact and the first MaxBad bad lines are kept.
// A file that shrinks while mapped faults on the lost pages: the worker turns that into an
// error naming the file (debug.SetPanicOnFault), never a crash.
//
// drop, when not nil, is given each finished chunk (dropPages for a real mapping: never for
// memory of the heap, whose pages MADV_DONTNEED would zero).
func validateMapped(ctx context.Context, data []byte, name string, opts ValidateOptions, c progress.Counter, drop func([]byte)) (Summary, error) {
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
	chunks := (len(data) + mapChunk - 1) / mapChunk
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
				r := validateChunk(ctx, data, k, max, opts.MaxBad, full.Load(), name, drop)
				r.done = true
				if r.err != nil {
					stop.Store(true)
				}
				lo := k * mapChunk
				c.Add(int64(min(lo+mapChunk, len(data)) - lo))
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
			s.Bytes = int64(len(data))
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

// validateChunk checks the lines that start in chunk k of data. keepNone is set once earlier
// chunks have filled the bad-line list.
func validateChunk(ctx context.Context, data []byte, k, maxLine, maxBad int, keepNone bool, name string, drop func([]byte)) (r chunkResult) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			// a fault on the mapping's pages only: any other panic is a bug and goes on up
			base := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
			if e, ok := p.(interface{ Addr() uintptr }); ok && e.Addr() >= base && e.Addr() < base+uintptr(len(data)) {
				r.err = fmt.Errorf("%s: the file shrank while it was read (a page of its mapping is gone)", name)
				return
			}
			panic(p)
		}
	}()
	if err := ctx.Err(); err != nil { // between chunks, SIGINT stops the run at once
		r.err = err
		return r
	}
	lo := k * mapChunk
	hi := min(lo+mapChunk, len(data))
	// The pages a worker touched leave the resident set when it is done with them, whoever else
	// touched them too: a page dropped by one worker and touched after by another would stay
	// (measured: one byte read in a dropped chunk mapped its whole folio back, 119 MiB kept for
	// a 1 GiB file), so each toucher drops what it touched.
	touched, end := lo, hi-1
	if drop != nil {
		defer func() {
			pg := os.Getpagesize()
			from, to := touched/pg*pg, min((end+pg-1)/pg*pg, len(data))
			if to > from {
				drop(data[from:to])
			}
		}()
	}
	start := lo
	if k > 0 { // the first line that starts in the chunk: just after a '\n' at lo-1 or later
		touched = lo - 1
		j := indexNewline(data[lo-1 : hi-1])
		if j < 0 {
			return r // every byte of the chunk is inside a line that started before it
		}
		start = lo - 1 + j
	}
	rd := &Reader{buf: data, r: start, w: hi, pos: int64(start), max: maxLine, started: k > 0,
		noClassify: true, mapped: true, stop: ctx.Err, drop: drop, dropped: lo}
	for rd.pos < int64(hi) {
		l, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil { // a cancel while a long line was scanned
			r.err = err
			return r
		}
		r.lines++
		r.end = rd.pos
		end = max(end, int(rd.pos))
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

// indexNewline is the offset in b just past its first '\n' (the next line start), or -1.
func indexNewline(b []byte) int {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return i + 1
	}
	return -1
}

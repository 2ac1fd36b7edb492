package jsonl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"runtime"
	"slices"
	"sync"

	"github.com/clawdoctor/clawdoctor/internal/hugemem"
	"github.com/clawdoctor/clawdoctor/internal/progress"
)

// ValidateOptions tune Validate.
type ValidateOptions struct {
	MaxLine int // line cap, as Options.MaxLine
	MaxBad  int // bad lines kept with their reason, the first ones by line number; 0 means 10, < 0 none
	Workers int // goroutines validating JSON; 0 means GOMAXPROCS (at most 4), 1 validates inline
	// Stdin is read for the path "-" (nil: "-" is an ordinary file name).
	Stdin io.Reader

	BufferSize int // initial read buffer, as Options.BufferSize (tests use small ones)
}

// BadLine is a line that is not one valid JSON value.
type BadLine struct {
	Line   int64  `json:"line"`
	Offset int64  `json:"offset"` // byte offset of the line in the (decompressed) stream
	Flags  string `json:"flags,omitempty"`
	Reason string `json:"reason"`
}

// Summary is the result of validating one stream.
type Summary struct {
	Path        string           `json:"path"`
	Compression string           `json:"compression"`
	DiskBytes   int64            `json:"disk_bytes"` // on-disk size (the compressed size for archives)
	Bytes       int64            `json:"bytes"`      // decompressed bytes read
	Lines       int64            `json:"lines"`
	BadLines    int64            `json:"bad_lines"` // lines that are not exactly one JSON value (blank lines are not counted here)
	Anomalies   map[string]int64 `json:"anomalies"` // lines per flag name (bom, crlf, lone_cr, nul, invalid_utf8, no_newline, too_long, blank)
	Bad         []BadLine        `json:"bad,omitempty"`
	Err         string           `json:"error,omitempty"` // why reading stopped early; the counts cover what was read

	flags    [len(flagNames)]int64
	notFound bool // the file does not exist
}

// Clean reports whether the stream had no bad line and no anomaly.
func (s *Summary) Clean() bool {
	if s.BadLines > 0 || s.Err != "" {
		return false
	}
	for _, n := range s.flags {
		if n > 0 {
			return false
		}
	}
	return true
}

// Count returns how many lines carried flag f.
func (s *Summary) Count(f Flag) int64 {
	for i := range flagNames {
		if f == 1<<i {
			return s.flags[i]
		}
	}
	return 0
}

func (s *Summary) addFlags(f Flag) {
	for f != 0 {
		i := 0
		for f&(1<<i) == 0 {
			i++
		}
		s.flags[i]++
		f &^= 1 << i
	}
}

func (s *Summary) finish() {
	s.Anomalies = make(map[string]int64, len(flagNames))
	for i, name := range flagNames {
		s.Anomalies[name] = s.flags[i]
	}
}

// ValidateFile validates the JSONL file at path (plain, gzip or zstd by magic bytes). The
// counter receives on-disk bytes. The error is for a file that cannot be opened or read to the
// end; the Summary then holds what was read before, and its Err says why.
func ValidateFile(ctx context.Context, path string, opts ValidateOptions, c progress.Counter) (Summary, error) {
	c = progress.OrNoop(c)
	var f *File
	var err error
	if path == Stdin && opts.Stdin != nil {
		f, err = OpenStream(opts.Stdin, "<stdin>")
	} else {
		f, err = Open(path, c.Add)
	}
	if err != nil {
		s := Summary{Path: path, Err: err.Error(), notFound: errors.Is(err, os.ErrNotExist)}
		s.finish()
		return s, err
	}
	defer f.Close()
	c.SetTotal(f.Size)
	defer c.Done()
	if f.Compression == Plain && f.raw != nil && f.Size >= chunkMinSize {
		s, err := validateReadAt(ctx, f.raw, f.Size, path, withDefaults(opts), c)
		s.DiskBytes = f.Size
		return s, err
	}
	s, err := Validate(ctx, f, path, opts)
	s.Compression = f.Compression.String()
	s.DiskBytes = f.Size
	return s, err
}

// Validate reads r line by line and checks that every line is exactly one JSON value, counting
// the byte-level anomalies of each line. name is used only in the Summary and messages. JSON is
// checked by Valid on Workers goroutines, in batches of lines whose numbers stay exact.
func Validate(ctx context.Context, r io.Reader, name string, opts ValidateOptions) (Summary, error) {
	opts = withDefaults(opts)
	workers := opts.Workers
	if workers <= 0 {
		workers = min(runtime.GOMAXPROCS(0), 4)
	}
	s := Summary{Path: name, Compression: Plain.String()}
	rd := NewReader(ContextReader(ctx, r), Options{MaxLine: opts.MaxLine, BufferSize: opts.BufferSize})
	var err error
	if workers == 1 {
		err = validateInline(ctx, rd, &s, opts)
	} else {
		err = validateParallel(ctx, rd, &s, opts, workers)
	}
	s.Bytes = rd.Offset()
	s.DiskBytes = s.Bytes // a plain stream; ValidateFile sets the on-disk size
	if err != nil {
		s.Err = err.Error()
	}
	s.finish()
	return s, err
}

func validateInline(ctx context.Context, rd *Reader, s *Summary, opts ValidateOptions) error {
	rd.noClassify = true // checkLine classifies and checks in one pass
	for {
		l, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		s.Lines++
		bad, isBad := checkLine(&l, rd.max)
		s.addFlags(l.Flags)
		if isBad {
			s.BadLines++
			if len(s.Bad) < opts.MaxBad {
				s.Bad = append(s.Bad, bad)
			}
		}
		if s.Lines%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
}

// checkLine adds the byte-level flags of l (read with noClassify) and returns the BadLine for
// l when l is not one valid JSON value. A blank line is only flagged: OpenClaw's loaders skip
// blank lines.
func checkLine(l *Line, maxLine int) (BadLine, bool) {
	if l.Flags&FlagTooLong != 0 {
		n := l.Size - int64(len(l.Terminator()))
		if l.Flags&FlagBOM != 0 {
			n -= int64(len(bom))
		}
		return BadLine{Line: l.Num, Offset: l.Offset, Flags: l.Flags.String(),
			Reason: fmt.Sprintf("line of %d bytes is longer than the cap of %d", n, maxLine)}, true
	}
	f, valid := classifyJSON(l.Bytes)
	if l.Flags |= f; valid || l.Flags&FlagBlank != 0 {
		return BadLine{}, false
	}
	reason := "invalid JSON"
	if err := Check(l.Bytes); errors.Is(err, ErrTooDeep) {
		reason = "JSON nested deeper than 10000 levels: not examined (JSON.parse reads it; repair keeps it)"
	} else if err != nil {
		reason = "invalid JSON at " + err.Error()
	}
	return BadLine{Line: l.Num, Offset: l.Offset, Flags: l.Flags.String(), Reason: reason}, true
}

// batch is a run of consecutive lines for a worker, with the read buffer their Bytes point into.
type batch struct {
	seq   int
	data  []byte
	lines []Line // Bytes point into data
	bad   []BadLine
	nbad  int64
	flags [len(flagNames)]int64
}

const batchBytes = DefaultBufferSize

// validateParallel splits lines on this goroutine and classifies and checks them on workers.
// The Reader hands over each full buffer with the lines in it (no copy), and gets a recycled
// one back. Counts are sums, so their order does not matter; bad lines are kept by line number.
func validateParallel(ctx context.Context, rd *Reader, s *Summary, opts ValidateOptions, workers int) error {
	rd.noClassify = true
	todo := make(chan *batch, workers)
	done := make(chan *batch, workers)
	free := make(chan *batch, 2*workers+1)
	for range cap(free) {
		free <- &batch{}
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for b := range todo {
				b.bad, b.nbad, b.flags = b.bad[:0], 0, [len(flagNames)]int64{}
				for i := range b.lines {
					l := &b.lines[i]
					bad, isBad := checkLine(l, rd.max)
					for f := l.Flags; f != 0; f &= f - 1 {
						b.flags[bits.TrailingZeros16(uint16(f))]++
					}
					if isBad {
						b.nbad++
						if len(b.bad) < opts.MaxBad {
							b.bad = append(b.bad, bad)
						}
					}
				}
				done <- b
			}
		})
	}
	merged := make(chan struct{})
	go func() { // the merger: gives each finished batch back to the free list
		defer close(merged)
		for b := range done {
			s.BadLines += b.nbad
			for i, n := range b.flags {
				s.flags[i] += n
			}
			s.Bad = append(s.Bad, b.bad...)
			if len(s.Bad) > opts.MaxBad {
				slices.SortFunc(s.Bad, func(x, y BadLine) int { return int(x.Line - y.Line) })
				s.Bad = s.Bad[:opts.MaxBad]
			}
			if cap(b.data) > 4*batchBytes {
				b.data = nil // a batch that held a huge line does not keep its memory
			}
			free <- b
		}
	}()

	var readErr error
	seq := 0
	cur := <-free
	cur.lines = cur.lines[:0]
	send := func(data []byte) {
		cur.seq, cur.data = seq, data
		seq++
		todo <- cur
		cur = <-free
		cur.lines = cur.lines[:0]
	}
	// The batches' full buffers are made at once on huge pages (hugemem) when the stream
	// outgrows the Reader's first buffer: five 1 MiB buffers in 4 KiB pages are 1,280 first
	// touches, each a page fault (11 us on the VM that measures our limits), as in repair.
	var slab []byte
	parts := 0
	rd.handoff = func(old []byte, size int) []byte {
		if old != nil {
			send(old) // every line collected so far points into old
		}
		spare := cur.data // the buffer this batch came back with, if any: its lines are done
		cur.data = nil
		switch {
		case cap(spare) >= size:
		case size > startBufferSize && size <= batchBytes && parts < cap(free):
			if slab == nil {
				slab = hugemem.Make[byte](cap(free)*batchBytes, cap(free)*batchBytes)
			}
			spare = slab[parts*batchBytes : (parts+1)*batchBytes : (parts+1)*batchBytes]
			parts++
		default:
			spare = make([]byte, size)
		}
		return spare[:cap(spare)]
	}
	var lines int64
	for {
		l, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			readErr = err
			break
		}
		lines++
		cur.lines = append(cur.lines, l)
		if lines%4096 == 0 {
			if err := ctx.Err(); err != nil {
				readErr = err
				break
			}
		}
	}
	if len(cur.lines) > 0 {
		send(rd.buf) // the last lines point into the reader's own buffer, no longer read into
	}
	close(todo)
	wg.Wait()
	close(done)
	<-merged
	s.Lines = lines
	slices.SortFunc(s.Bad, func(x, y BadLine) int { return int(x.Line - y.Line) })
	return readErr
}

// Result is the outcome of ValidateFiles.
type Result struct {
	Files   []Summary `json:"files"`
	Summary Totals    `json:"summary"`
}

// Totals add up the files of a Result.
type Totals struct {
	Files      int   `json:"files"`
	Clean      int   `json:"clean"`      // files with no bad line and no anomaly
	Findings   int   `json:"findings"`   // files read to the end with bad lines or anomalies
	Unreadable int   `json:"unreadable"` // files that could not be opened or read to the end
	NotFound   int   `json:"not_found"`  // the subset that does not exist
	Lines      int64 `json:"lines"`
	Bytes      int64 `json:"bytes"`
	DiskBytes  int64 `json:"disk_bytes"`
	BadLines   int64 `json:"bad_lines"`
}

// ValidateFiles validates each path in turn (see ValidateFile). An unreadable file is
// recorded in its Summary and the others go on; the error is only for a cancelled ctx. The
// counter gets the total on-disk size of all files.
func ValidateFiles(ctx context.Context, paths []string, opts ValidateOptions, c progress.Counter) (Result, error) {
	c = progress.OrNoop(c)
	var total int64
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			total += st.Size()
		}
	}
	c.SetTotal(total)
	defer c.Done()
	res := Result{Files: make([]Summary, 0, len(paths))}
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		s, err := ValidateFile(ctx, p, opts, addOnly{c})
		if err != nil && ctx.Err() != nil {
			return res, ctx.Err()
		}
		res.Add(s)
	}
	return res, nil
}

// Add appends the summary of one more stream and counts it in the totals.
func (res *Result) Add(s Summary) {
	res.Files = append(res.Files, s)
	t := &res.Summary
	t.Files++
	t.Lines += s.Lines
	t.Bytes += s.Bytes
	t.DiskBytes += s.DiskBytes
	t.BadLines += s.BadLines
	switch {
	case s.Err != "":
		t.Unreadable++
		if s.notFound {
			t.NotFound++
		}
	case s.Clean():
		t.Clean++
	default:
		t.Findings++
	}
}

// addOnly passes byte counts on but keeps one total and one Done for all files.
type addOnly struct{ c progress.Counter }

func (a addOnly) SetTotal(int64) {}
func (a addOnly) Add(n int64)    { a.c.Add(n) }
func (a addOnly) Done()          {}

// withDefaults sets MaxBad's default (0: 10; < 0: none kept).
func withDefaults(opts ValidateOptions) ValidateOptions {
	switch {
	case opts.MaxBad == 0:
		opts.MaxBad = 10
	case opts.MaxBad < 0:
		opts.MaxBad = 0
	}
	return opts
}

// Package repair repairs OpenClaw session transcripts and session stores as plan + apply.
//
// The planner reads a transcript as a stream and decides, line by line and with a reason,
// what to keep, drop, salvage or rewrite: the rules of the real repairSessionFileIfNeeded of the
// OpenClaw release followed (Options.Release; which release has which rule is in package
// openclaw, and internal/conformance/repaircheck compares the bytes with the real program) with the same
// texts, plus salvage of what OpenClaw drops (a BOM before the header, NUL runs, glued objects,
// a torn line followed by a complete entry). A plan is a
// sorted list of byte-range edits of the (decompressed) stream, so lines nobody changes are
// written back byte for byte, changed entries keep their key order, and memory stays bounded by
// the number of changes, not the file size. Apply streams the original through the edits; a
// dry run prints the same plan. RepairFile takes the backup and replaces the file through
// safefile.
package repair

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/clawdoctor/clawdoctor/internal/hugemem"
	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/internal/openclaw"
	"github.com/clawdoctor/clawdoctor/internal/store"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// Piece is part of an edit's replacement: literal bytes, or a byte range of the original stream.
type Piece struct {
	Lit      []byte
	Off, End int64 // used when Lit is nil
}

// Edit replaces the original bytes [Off, End) with Repl. Edits are sorted and do not overlap;
// an insertion has Off == End.
type Edit struct {
	Off, End int64
	Repl     []Piece
}

// Counts are the repair counters, named as OpenClaw's RepairReport where they match.
type Counts struct {
	DroppedLines               int `json:"droppedLines"`
	SalvagedLines              int `json:"salvagedLines"`
	RewrittenAssistantMessages int `json:"rewrittenAssistantMessages"`
	RewrittenUserMessages      int `json:"rewrittenUserMessages"`
	InsertedToolResults        int `json:"insertedToolResults"`
	RemovedCorruptImageBlocks  int `json:"removedCorruptedImageBlocks"`
	RelinkedParents            int `json:"relinkedParents"`
	SynthesizedHeaders         int `json:"synthesizedHeaders"`
	// ReplacedInvalidUTF8Lines counts lines whose invalid UTF-8 was replaced (OnlyInvalidUTF8).
	ReplacedInvalidUTF8Lines int `json:"replacedInvalidUtf8Lines,omitempty"`
}

func (c *Counts) add(o Counts) {
	c.DroppedLines += o.DroppedLines
	c.SalvagedLines += o.SalvagedLines
	c.RewrittenAssistantMessages += o.RewrittenAssistantMessages
	c.RewrittenUserMessages += o.RewrittenUserMessages
	c.InsertedToolResults += o.InsertedToolResults
	c.RemovedCorruptImageBlocks += o.RemovedCorruptImageBlocks
	c.RelinkedParents += o.RelinkedParents
	c.SynthesizedHeaders += o.SynthesizedHeaders
	c.ReplacedInvalidUTF8Lines += o.ReplacedInvalidUTF8Lines
}

// Change is one decision of a plan, with the line it is about and why.
type Change struct {
	Line   int64  `json:"line"`
	Action string `json:"action"` // drop, salvage, strip-bom, remove-nul, split, rewrite-assistant, rewrite-user, replace-image, insert-tool-result, relink, synthesize-header, add-newline
	Reason string `json:"reason"`
}

// Note is something found and reported but not changed (a fix needs an explicit flag, or none
// is safe).
type Note struct {
	Line int64  `json:"line"`
	What string `json:"what"`
}

// maxDetails caps the Changes and Notes kept per file; the counters still count everything.
const maxDetails = 200

// Plan is what repair would do to one transcript stream.
type Plan struct {
	Edits       []Edit
	Counts      Counts
	Changes     []Change
	Notes       []Note
	MoreChanges int    // changes not listed in Changes (over maxDetails)
	MoreNotes   int    // notes not listed in Notes
	Skip        string // non-empty: the file must not be written, and why
	Empty       string // non-empty: nothing to repair in an empty file, and why
	Lines       int64
	BytesBefore int64 // of the decompressed stream
	BytesAfter  int64
}

// Changed reports whether applying the plan would change the stream.
func (p *Plan) Changed() bool { return len(p.Edits) > 0 && p.Skip == "" }

// Options tune planning and repair.
type Options struct {
	// Release is the OpenClaw release whose repair rules apply (which ones differ is in
	// package openclaw); the zero value means openclaw.Default. Salvage beyond OpenClaw's
	// rules is the same for every release.
	Release openclaw.Release
	// SalvageOnly plans nothing but the salvage OpenClaw lacks (BOM, NUL bytes inside lines,
	// glued values, a torn fragment before a complete entry, a final newline) and none of
	// OpenClaw's own rules. The conformance harness gives its output to the real OpenClaw to
	// show that every remaining difference comes from that salvage.
	SalvageOnly      bool
	DryRun           bool
	Force            bool   // repair even when a live process holds the file's .lock
	BackupDir        string // backups go here instead of beside the file
	SynthesizeHeader bool   // a file whose first line is an entry gets a session header
	Relink           bool   // entries whose parentId names no entry of the file are re-parented
	RebuildStore     bool   // sessions.json gets entries for transcripts it does not reference
	MaxLine          int    // line cap of the reader; 0 means jsonl.DefaultMaxLine
	Now              time.Time
	NewID            func() string // id of synthetic entries; nil: "repair-" + a random UUID; set, Run repairs one file at a time
	PID              int           // for backup names; 0 means os.Getpid()
	// FollowSymlinks lets a sessions dir reached through a symlink out of the state dir be
	// written (--follow-symlinks).
	FollowSymlinks bool
	// LockStale is the staleness threshold of transcript locks (session.writeLock.staleMs or
	// its environment variable); 0 means OpenClaw's 30 minutes.
	LockStale time.Duration
	// OnlyInvalidUTF8 plans nothing but the replacement of bytes that are not UTF-8 by U+FFFD
	// (see planInvalidUTF8): what doctor runs before OpenClaw's SQLite import, which stops at
	// such bytes.
	OnlyInvalidUTF8 bool
	// LockWait is how long a transcript whose write lock a live writer holds is waited for
	// before it is skipped with the holder named; 0: not waited for. An honest writer (a
	// gateway appending a turn) holds it for milliseconds; OpenClaw itself waits up to 60 s.
	LockWait time.Duration
	// Temps is the run's listing of the temps killed runs left (store.Temps), shared by the
	// files it repairs; nil: each file lists its directory (Run makes one).
	Temps *store.Temps
	// Phase, when set, is called between the steps of a file repair ("planned", "backup", "renaming",
	// "replaced"); the SIGKILL crash test uses it to stop the process at each step.
	Phase func(phase string)
}

// facts are what a first planning pass learns about the whole file and a second pass needs
// to decide single lines: tool calls with no result anywhere, parents that name no entry.
type facts struct {
	inserts  map[uint64]bool // tool calls (callKey) that get a synthetic result
	dangling map[uint64]bool
}

// PlanStream plans the repair of the transcript read from r. name is used in messages and, for
// a synthesized header, as the session id source. Memory is bounded by the line cap plus a few
// bytes per entry (ids are kept as 64-bit hashes to find dangling parents and missing results).
func PlanStream(ctx context.Context, open func() (io.ReadCloser, error), name string, opts Options) (*Plan, error) {
	if opts.OnlyInvalidUTF8 {
		return planInvalidUTF8(ctx, open, name, opts)
	}
	p, _, err := planStream(ctx, open, name, opts, nil)
	return p, err
}

// planStream is PlanStream; with emit set, the first pass hands over every edit as soon as it
// is final, in order, and a plan that needs a second pass is not finished: second is true and
// the caller plans again without emit.
func planStream(ctx context.Context, open func() (io.ReadCloser, error), name string, opts Options, emit func(Edit)) (plan *Plan, second bool, err error) {
	seed := maphash.MakeSeed()
	p, err := planPass(ctx, open, name, opts, seed, nil, emit)
	if err != nil {
		return nil, false, err
	}
	f := p.collectFacts()
	if len(f.inserts) == 0 && (!opts.Relink || len(f.dangling) == 0) {
		return p.result(), false, nil
	}
	if emit != nil {
		return nil, true, nil
	}
	p2, err := planPass(ctx, open, name, opts, seed, &f, nil)
	if err != nil {
		return nil, false, err
	}
	return p2.result(), false, nil
}

// PlanBytes plans the repair of an in-memory transcript (tests, fuzzing).
func PlanBytes(data []byte, name string, opts Options) (*Plan, error) {
	return PlanStream(context.Background(), func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, name, opts)
}

func planPass(ctx context.Context, open func() (io.ReadCloser, error), name string, opts Options, seed maphash.Seed, f *facts, emit func(Edit)) (*planner, error) {
	rc, err := open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	src := jsonl.ContextReader(ctx, rc)
	p := &planner{name: name, opts: opts, seed: seed, facts: f}
	if p.opts.Now.IsZero() {
		p.opts.Now = time.Now()
	}
	if p.opts.Release == (openclaw.Release{}) {
		p.opts.Release = openclaw.Default
	}
	p.setRules()
	lines := readLines(src, opts.MaxLine)
	defer lines.stop()
	for bt := lines.next(); bt != nil; bt = lines.next() {
		num, off := bt.num, bt.off
		for _, r := range bt.recs {
			l := jsonl.Line{Num: num, Offset: off, Size: r.size, Flags: r.flags}
			num, off = num+1, off+r.size
			if !l.Has(jsonl.FlagTooLong) {
				l.Bytes = r.b
			}
			p.plan.Lines = l.Num
			p.end = l.Offset + l.Size
			p.pre = scanned{end: int(r.end), image: r.image}
			if r.end >= 0 {
				p.pre.members = bt.members[r.m0:r.m1:r.m1]
			}
			p.line(l)
			if emit != nil && (p.header || p.nValues == 0) { // a file without a header is skipped: nothing is handed over
				p.handOver(l, emit)
			}
		}
		lines.free <- bt
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	if lines.err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, p.plan.Lines+1, lines.err)
	}
	p.finish()
	for emit != nil && p.header && p.emitted < len(p.plan.Edits) {
		emit(p.plan.Edits[p.emitted])
		p.emitted++
	}
	return p, nil
}

// handOver gives emit, after line l was planned, every edit that is final and lets the writer
// copy what no edit can touch any more, so writing follows planning instead of waiting for
// it. Edits come for the line being planned, in order: one starts at or after the line's
// offset, and only an edit ending where the next one starts may still grow (addEdit
// coalesces runs of dropped lines). So an edit that ends at or before l's offset is final
// (a later edit starts past l), and the source before the offset of the last edit (or, with
// every edit final, before l's end) is copied as it is whatever comes next: a zero-width
// edit there tells the applier to copy up to it. Flushes come every flushStep bytes, so the
// kernel copy runs in large ranges.
func (p *planner) handOver(l jsonl.Line, emit func(Edit)) {
	n := len(p.plan.Edits)
	for p.emitted < n && (p.emitted < n-1 || p.plan.Edits[p.emitted].End <= l.Offset) {
		emit(p.plan.Edits[p.emitted])
		p.emitted++
	}
	if n == 0 {
		return // no change yet: nothing is written for a file that may need none
	}
	safe := l.Offset + l.Size
	if p.emitted < n {
		safe = p.plan.Edits[p.emitted].Off
	}
	if p.flushed == 0 && safe > 0 || safe-p.flushed >= flushStep { // at once from the first change, then in steps
		emit(Edit{Off: safe, End: safe})
		p.flushed = safe
	}
}

// flushStep is how far planning runs ahead before the writer is told to copy.
const flushStep = 16 << 20

// batch is the lines of one read buffer of the jsonl.Reader, which hands the buffer over
// when it is full (Options.Handoff): the lines are not copied, the planner reads them where
// the reader read them, and the buffer goes back to the reader when the planner is done. (A
// copy into a batch of its own was a seventh of the planning CPU, half of it page faults of
// the growing copies.)
//
// Between reader and planner, a scan worker classifies the batch's lines and scans their JSON
// in one pass (jsonl.Scanner.Line), on as many goroutines as there are cores, the planner
// taking the batches in order: the JSON walk and the UTF-8 check were a third of the planning
// CPU on the planner's goroutine and a sixth on the reader's.
type batch struct {
	num, off int64          // number and offset of the first line
	recs     []lineRec      // the lines, in order
	buf      []byte         // the read buffer the lines' bytes are in
	members  []jsonl.Member // the members of the valid lines (lineRec.m0, m1)
	scanned  chan struct{}  // a worker is done with the batch
}

type lineRec struct {
	b      []byte // the line's content (Line.Bytes)
	size   int64
	flags  jsonl.Flag
	image  bool  // the scan's Image
	end    int32 // the end of the line's one valid value, or -1
	m0, m1 int32 // the value's members are members[m0:m1]
}

// scan classifies every line of the batch and collects the members of each valid one.
func (b *batch) scan(sc *jsonl.Scanner) {
	sc.Collect, sc.Members = true, b.members[:0]
	for i := range b.recs {
		r := &b.recs[i]
		if r.flags&jsonl.FlagTooLong != 0 {
			r.end = -1 // no bytes: the planner notes it unexamined
			continue
		}
		m0 := len(sc.Members)
		f, end := sc.Line(r.b)
		r.flags |= f
		if end < 0 {
			sc.Members = sc.Members[:m0]
		}
		r.end, r.image, r.m0, r.m1 = int32(end), sc.Image, int32(m0), int32(len(sc.Members))
	}
	b.members, sc.Members = sc.Members, nil
}

// slab is the memory of the batches of a file longer than the Reader's first buffer: their
// read buffers and a first members array each, made at once by hugemem (page faults were a
// tenth of a 256 MiB repair's CPU on the VM that measures our limits, a quarter of them for
// the read buffers and another quarter for the growing members). A batch that needs more members than its array
// holds appends past it into an array of its own (the three-index slices end each part).
type slab struct {
	bufs    []byte
	members []jsonl.Member
	next    int // parts taken
}

// slabMembers is each batch's share of members: 1 MiB of entries of 2 KiB (the limits
// transcript) hold about 8,000.
const slabMembers = batchBytes / 64

// slabFrom is the Reader's first buffer (jsonl's startBufferSize).
const slabFrom = 64 << 10

// take gives bt its part of the slab, a full read buffer, when the Reader asks for a larger
// one than its first (the file is longer than 64 KiB: a transcript of a few turns costs no
// slab), making the slab for n batches on the first such ask; nil for the first ask, one past
// the full buffer (a long line), or with every part taken.
func (s *slab) take(n, size int, bt *batch) []byte {
	if size <= slabFrom || size > batchBytes || s.next == n {
		return nil
	}
	if s.bufs == nil {
		s.bufs = hugemem.Make[byte](n*batchBytes, n*batchBytes)
		s.members = hugemem.Make[jsonl.Member](n*slabMembers, n*slabMembers)
	}
	i := s.next
	s.next++
	if cap(bt.members) < slabMembers {
		bt.members = s.members[i*slabMembers : i*slabMembers : (i+1)*slabMembers]
	}
	return s.bufs[i*batchBytes : (i+1)*batchBytes : (i+1)*batchBytes]
}

type lineFeed struct {
	c    chan *batch // in stream order; take one when its scanned says so
	free chan *batch
	done chan struct{}
	err  error // set before c is closed
}

func (f *lineFeed) stop() {
	close(f.done)
	for range f.c { // wait for the reader goroutine
	}
}

// next returns the next batch, scanned, or nil at the end.
func (f *lineFeed) next() *batch {
	bt, ok := <-f.c
	if !ok {
		return nil
	}
	<-bt.scanned
	return bt
}

// batchBytes is the read buffer, and so the most a batch holds but for one long line.
const batchBytes = jsonl.DefaultBufferSize

// readLines runs a jsonl.Reader in its own goroutine and hands its lines over in batches,
// scanned by one worker per core. Memory: 2 + 1 per worker buffers of batchBytes (one grows
// to hold a line up to the line cap, and is dropped after it) and their members: on the
// 2-core VM two more batches made no difference to the time and cost 5-10 MiB of peak memory
// in a 1 GiB repair (62 MiB, near the 64 MiB budget).
func readLines(r io.Reader, maxLine int) *lineFeed {
	workers := runtime.GOMAXPROCS(0)
	n := 2 + workers
	f := &lineFeed{c: make(chan *batch, n), free: make(chan *batch, n), done: make(chan struct{})}
	for i := 0; i < n; i++ {
		f.free <- &batch{scanned: make(chan struct{}, 1)}
	}
	work := make(chan *batch, n)
	for range workers {
		go func() {
			var sc jsonl.Scanner
			for bt := range work {
				bt.scan(&sc)
				bt.scanned <- struct{}{}
			}
		}()
	}
	go func() {
		defer close(f.c)
		defer close(work)
		stopped := false
		var bt *batch
		get := func() {
			select {
			case bt = <-f.free:
			case <-f.done:
				stopped, bt = true, &batch{scanned: make(chan struct{}, 1)} // reading ends at the next line
			}
			bt.recs = bt.recs[:0]
			if cap(bt.members) > 4*batchBytes/int(unsafe.Sizeof(jsonl.Member{})) {
				bt.members = nil // do not keep what a long line needed
			}
		}
		send := func(buf []byte) {
			if !stopped && len(bt.recs) > 0 {
				bt.buf = buf
				f.c <- bt // never blocks: c and work hold every batch there is
				work <- bt
				get()
			}
		}
		get()
		var sl slab
		handoff := func(old []byte, size int) []byte {
			if old != nil {
				send(old) // every line taken so far is in old
			}
			spare := bt.buf // the buffer this batch came back with: its lines are done
			bt.buf = nil
			if cap(spare) < size || cap(spare) > 4*batchBytes {
				// as the Reader asks: 64 KiB first, doubling, so a small file costs no 1 MiB;
				// the full size from the slab of huge pages
				if spare = sl.take(n, size, bt); spare == nil {
					spare = make([]byte, size)
				}
			}
			return spare[:cap(spare)]
		}
		jr := jsonl.NewReader(r, jsonl.Options{MaxLine: maxLine, Unclassified: true, Handoff: handoff})
		for !stopped {
			l, err := jr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				f.err = err
				break
			}
			if len(bt.recs) == 0 {
				bt.num, bt.off = l.Num, l.Offset
			}
			bt.recs = append(bt.recs, lineRec{b: l.Bytes, size: l.Size, flags: l.Flags})
		}
		send(jr.Detach())
	}()
	return f
}

type callRef struct {
	hash uint64
	line int64
}

type planner struct {
	name    string
	opts    Options
	seed    maphash.Seed
	facts   *facts
	plan    Plan
	deep    bool  // the line being planned is nested deeper than maxDepth (kept unexamined)
	end     int64 // stream size so far
	emitted int   // edits handed to emit
	flushed int64 // the writer was told it may copy the source up to here

	sc      jsonl.Scanner // the line's value
	sc2     jsonl.Scanner // probes inside the line (headerAt, entryAt, entry fields)
	sc3     jsonl.Scanner // the members of one content block (members)
	vals    []value       // segment's result, reused line after line
	elems   [][2]int      // elements' result, reused
	clean   []byte        // line content without NULs
	segs    []seg         // clean → source mapping for NUL lines
	nul     bool
	ready   bool    // p.pre holds the members of the line's single value
	pre     scanned // the line as a scan worker saw it (readLines)
	base    int64   // source offset of the line content's first byte
	nValues int     // values kept so far (the first one must be the header)
	header  bool    // the first value was a valid header
	noHead  string

	repl          []lpiece // contentBlocks' pieces, reused
	prevID        []byte   // id token of the last entry, for --relink
	prevHash      uint64
	ids           []uint64
	parents       []callRef  // parent references not equal to the previous entry's id
	results       []uint64   // first usable id of every toolResult message
	calls         []candCall // tool calls that may get a synthetic result (see collectFacts)
	rules         []bool     // has's answers, by feature (setRules)
	dropsRoleless bool       // the release drops role-less messages (in SalvageOnly plans too)
	pending       []candCall // message tool calls of the last OpenAI Responses turn, until the next message
	lastNL        bool       // the stream ends with a newline
	lastLine      int64
}

// scanned is a line's one valid value as a scan worker found it: its end (-1 when the line
// is not one valid value) and members.
type scanned struct {
	end     int
	image   bool
	members []jsonl.Member
}

type seg struct {
	clean int   // start in clean
	src   int64 // source offset
	n     int
}

// lpiece is a replacement piece in line-content coordinates.
type lpiece struct {
	lit  []byte
	s, e int
}

type splice struct {
	s, e int
	repl []lpiece
}

type value struct {
	s, e    int
	splices []splice
	inserts [][]byte // whole lines (without newline) to insert after this value
	drop    bool
}

// resultHash is the key of a tool result's id token, trimmed as OpenClaw trims it; ok is false
// for a token that is not a string or is blank. An id of printable ASCII other than a
// backslash (nearly every one) is its own trimmed string: it is hashed where it is, without
// the string strValue would make of it.
func (p *planner) resultHash(tok []byte) (uint64, bool) {
	if len(tok) > 2 && plainPrintable(tok) {
		return maphash.Bytes(p.seed, tok[1:len(tok)-1]), true
	}
	s, ok := strValue(tok)
	if !ok || jsTrim(s) == "" {
		return 0, false
	}
	return maphash.String(p.seed, jsTrim(s)), true
}

// untrimmed returns the string of a string token that a JavaScript trim() would change; ok is
// false for any other token. A token of printable ASCII has no white space to trim and is
// answered without the string (one for every tool result).
func untrimmed(tok []byte) (string, bool) {
	if plainPrintable(tok) {
		return "", false
	}
	s, ok := strValue(tok)
	return s, ok && s != jsTrim(s)
}

// plainPrintable reports whether tok is a string token of printable ASCII but the backslash:
// its own string, which a JavaScript trim() leaves as it is.
func plainPrintable(tok []byte) bool {
	if len(tok) < 2 || tok[0] != '"' {
		return false
	}
	for _, c := range tok[1 : len(tok)-1] {
		if c <= ' ' || c >= 0x7f || c == '\\' {
			return false
		}
	}
	return true
}

// hash is the key of an entry id or parentId token: the string JSON.parse makes of it, so that
// "a" and "\u0061" name one entry, as they do to OpenClaw, and "\ud800" and "\ud801" two.
// A token without escapes or bytes >= 0x80 (nearly every id) is its own string.
func (p *planner) hash(tok []byte) uint64 {
	in := tok[1 : len(tok)-1]
	for _, c := range in {
		if c == '\\' || c >= 0x80 {
			s, _ := strValue(tok)
			return maphash.String(p.seed, s)
		}
	}
	return maphash.Bytes(p.seed, in)
}

func (p *planner) change(line int64, action, reason string) {
	if len(p.plan.Changes) >= maxDetails {
		p.plan.MoreChanges++
		return
	}
	p.plan.Changes = append(p.plan.Changes, Change{Line: line, Action: action, Reason: reason})
}

func (p *planner) note(line int64, what string) {
	if len(p.plan.Notes) >= maxDetails {
		p.plan.MoreNotes++
		return
	}
	p.plan.Notes = append(p.plan.Notes, Note{Line: line, What: what})
}

func (p *planner) addEdit(e Edit) {
	n := len(p.plan.Edits)
	if n > 0 && len(e.Repl) == 0 {
		last := &p.plan.Edits[n-1]
		if len(last.Repl) == 0 && last.End == e.Off && last.Off < last.End {
			last.End = e.End // coalesce runs of dropped lines
			return
		}
	}
	p.plan.Edits = append(p.plan.Edits, e)
}

// line plans one line of the stream.
func (p *planner) line(l jsonl.Line) {
	lineEnd := l.Offset + l.Size
	p.lastLine = l.Num
	p.lastNL = !l.Has(jsonl.FlagNoNewline)
	if l.Has(jsonl.FlagTooLong) {
		p.note(l.Num, "line longer than the line cap: kept unexamined")
		if p.nValues == 0 {
			p.noHead = "first line is longer than the line cap"
		}
		p.nValues++
		return
	}
	p.base = l.Offset
	bom := l.Has(jsonl.FlagBOM)
	if bom {
		p.base += 3
	}
	termOff := p.base + int64(len(l.Bytes))
	c := l.Bytes
	p.nul = l.Has(jsonl.FlagNUL)
	if p.nul {
		c = p.stripNUL(c)
	}
	if l.Has(jsonl.FlagInvalidUTF8) {
		p.note(l.Num, "invalid UTF-8: kept as is")
	}
	start := skipSpace(c, 0)
	if start < len(c) && c[start] >= 0x80 && jsBlank(string(c[start:])) {
		start = len(c) // only JavaScript white space (NBSP, U+FEFF, ...): OpenClaw skips it as blank
	}
	if start == len(c) { // blank line (maybe after removing NULs)
		switch {
		case p.nul && !p.opts.SalvageOnly: // OpenClaw drops it too (JSON.parse fails) and counts it
			p.plan.Counts.DroppedLines++
			p.change(l.Num, "remove-nul", "line of NUL bytes removed")
			p.addEdit(Edit{Off: l.Offset, End: lineEnd})
		case bom && !p.nul:
			p.change(l.Num, "strip-bom", "UTF-8 byte order mark removed")
			p.addEdit(Edit{Off: l.Offset, End: p.base})
		}
		return
	}

	p.deep = false
	vals, droppedFrag := p.segment(c, start)
	if p.deep {
		// JSON.parse reads any depth: dropping this line would lose what OpenClaw keeps.
		p.note(l.Num, "nested deeper than 10000 levels: kept unexamined")
		if p.nValues == 0 {
			p.noHead = "first line is nested deeper than 10000 levels"
		}
		p.nValues++
		return
	}
	if droppedFrag && len(vals) == 0 && p.opts.SalvageOnly {
		return // nothing to salvage: the unparseable line is OpenClaw's to drop
	}
	if p.nValues == 0 && len(vals) > 0 && (bom || p.nul || droppedFrag || len(vals) > 1) && !p.headerAt(c, vals[0].s) && !p.opts.SynthesizeHeader {
		// Before the header, salvage keeps only a header. Anything else on a line OpenClaw
		// cannot parse is what it is there: dropped, and the header looked for after it (else
		// a salvaged entry would become the first line and the file be refused). With
		// --synthesize-header everything is kept: the header is made, not looked for.
		if !p.opts.SalvageOnly {
			p.plan.Counts.DroppedLines++
			p.change(l.Num, "drop", "unparseable line before the session header: "+preview(c))
			p.addEdit(Edit{Off: l.Offset, End: lineEnd})
		}
		return
	}
	changed := bom || p.nul || droppedFrag || len(vals) != 1
	salvage := p.nul || bom || droppedFrag || len(vals) > 1
	for i := range vals {
		p.entry(l.Num, c, &vals[i])
		v := &vals[i]
		if v.drop || len(v.splices) > 0 || len(v.inserts) > 0 {
			changed = true
		}
	}
	kept := 0
	for _, v := range vals {
		if !v.drop {
			kept++
		}
	}
	if droppedFrag || kept < len(vals) {
		// Counted per line, as OpenClaw counts the lines it drops: a line of two glued
		// role-less messages is one dropped line there (it does not parse).
		p.plan.Counts.DroppedLines++
	}
	if droppedFrag {
		if kept == 0 {
			p.change(l.Num, "drop", "unparseable line: "+preview(c))
		} else {
			p.change(l.Num, "drop", "torn fragment dropped, complete entries kept")
		}
	}
	if salvage && kept > 0 {
		p.plan.Counts.SalvagedLines += kept
		var why []string
		if bom {
			why = append(why, "UTF-8 byte order mark removed")
		}
		if p.nul {
			why = append(why, "NUL bytes removed")
		}
		if len(vals) > 1 {
			why = append(why, fmt.Sprintf("%d glued JSON values split onto their own lines", len(vals)))
		}
		if droppedFrag {
			why = append(why, "complete entry kept after a torn fragment")
		}
		p.change(l.Num, "salvage", strings.Join(why, "; "))
	}
	addNL := !changed && !p.lastNL && kept == 1 // torn-looking end: a complete last line with no newline
	if addNL {
		p.change(l.Num, "add-newline", "final newline added so the next append starts a new line")
		p.addEdit(Edit{Off: termOff, End: termOff, Repl: []Piece{{Lit: nl}}})
		return
	}
	if !changed {
		return
	}
	// Build the replacement of the whole line [l.Offset, lineEnd).
	var out []Piece
	term := Piece{Off: termOff, End: lineEnd}
	if termOff == lineEnd {
		term = Piece{Lit: nl}
	}
	single := len(vals) == 1 && !droppedFrag
	for i, v := range vals {
		if v.drop {
			continue
		}
		if single {
			v.s, v.e = 0, len(c) // keep the space around a lone value
		}
		out = p.appendValue(out, v)
		last := true
		for _, w := range vals[i+1:] {
			if !w.drop {
				last = false
			}
		}
		if last {
			out = append(out, term)
		} else {
			out = append(out, Piece{Lit: nl})
		}
		for _, ins := range v.inserts {
			out = append(out, Piece{Lit: ins}, Piece{Lit: nl})
		}
	}
	p.addEdit(Edit{Off: l.Offset, End: lineEnd, Repl: out})
}

var nl, comma = []byte("\n"), []byte(",")

// appendValue appends the pieces of v (with its splices) to out, in source coordinates.
func (p *planner) appendValue(out []Piece, v value) []Piece {
	slices.SortFunc(v.splices, func(a, b splice) int { return a.s - b.s })
	pos := v.s
	for _, sp := range v.splices {
		out = p.mapRange(out, pos, sp.s)
		for _, r := range sp.repl {
			if r.lit != nil {
				out = append(out, Piece{Lit: r.lit})
			} else {
				out = p.mapRange(out, r.s, r.e)
			}
		}
		pos = sp.e
	}
	return p.mapRange(out, pos, v.e)
}

// mapRange appends the source ranges of line-content bytes [s, e).
func (p *planner) mapRange(out []Piece, s, e int) []Piece {
	if s >= e {
		return out
	}
	if !p.nul {
		return appendRange(out, p.base+int64(s), p.base+int64(e))
	}
	for _, g := range p.segs {
		lo, hi := max(s, g.clean), min(e, g.clean+g.n)
		if lo < hi {
			out = appendRange(out, g.src+int64(lo-g.clean), g.src+int64(hi-g.clean))
		}
	}
	return out
}

func appendRange(out []Piece, off, end int64) []Piece {
	if n := len(out); n > 0 && out[n-1].Lit == nil && out[n-1].End == off {
		out[n-1].End = end
		return out
	}
	return append(out, Piece{Off: off, End: end})
}

func (p *planner) stripNUL(b []byte) []byte {
	p.clean = p.clean[:0]
	p.segs = p.segs[:0]
	i := 0
	for i < len(b) {
		j := bytes.IndexByte(b[i:], 0)
		if j < 0 {
			j = len(b) - i
		}
		if j > 0 {
			p.segs = append(p.segs, seg{clean: len(p.clean), src: p.base + int64(i), n: j})
			p.clean = append(p.clean, b[i:i+j]...)
		}
		i += j
		for i < len(b) && b[i] == 0 {
			i++
		}
	}
	return p.clean
}

func preview(b []byte) string {
	const n = 60
	s := string(b)
	if len(s) > n {
		s = s[:n] + "…"
	}
	return strconv.Quote(s)
}

// segment splits line content into complete JSON values. A lone valid value is the common
// case. Otherwise it keeps every complete value and drops torn fragments: after a fragment
// only an object that looks like an entry (a string "type" and a "parentId", or a session
// header) is accepted, so a nested object of a torn line is never promoted to an entry.
func (p *planner) segment(c []byte, start int) (vals []value, dropped bool) {
	if p.pre.end >= 0 && !p.nul { // the common case: one valid value, scanned by a worker
		p.ready = true
		p.vals = append(p.vals[:0], value{s: start, e: p.pre.end}) // reused: a slice a line was an allocation a line
		return p.vals, false
	}
	sc := &p.sc
	*sc = jsonl.Scanner{Collect: true, Members: sc.Members[:0]}
	p.ready = false
	if e := sc.Value(c, start); e >= 0 && skipSpace(c, e) == len(c) {
		p.ready, p.pre = true, scanned{end: e, image: sc.Image, members: sc.Members} // valid once its NULs are gone
		p.vals = append(p.vals[:0], value{s: start, e: e})
		return p.vals, false
	}
	if sc.TooDeep {
		p.deep = true // not broken, only deeper than we examine: the caller keeps it
		return nil, false
	}
	sc.Collect = false
	i := start
	budget := 8*len(c) + 1<<20
	afterValue := false
	for i < len(c) {
		e := sc.Value(c, i)
		if e >= 0 && (i == start || (afterValue && c[i] == '{')) {
			vals = append(vals, value{s: i, e: e})
			i = skipSpace(c, e)
			afterValue = true
			continue
		}
		// Torn or garbage bytes at i: look for the next entry-looking object.
		dropped = true
		afterValue = false
		q := i + 1
		found := false
		for q < len(c) && sc.Work < budget {
			k := bytes.IndexByte(c[q:], '{')
			if k < 0 {
				break
			}
			q += k
			if e := p.entryAt(c, q); e >= 0 {
				found = true
				break
			}
			q++
		}
		if !found {
			return vals, true
		}
		i = q
		afterValue = true
		e = sc.Value(c, i)
		vals = append(vals, value{s: i, e: e})
		i = skipSpace(c, e)
	}
	return vals, dropped
}

// headerAt reports whether c[i:] starts with a valid session header (type "session", a
// non-empty string id).
func (p *planner) headerAt(c []byte, i int) bool {
	sc := &p.sc2
	*sc = jsonl.Scanner{Collect: true, Members: sc.Members[:0]}
	if sc.Value(c, i) < 0 {
		return false
	}
	var typ, id []byte
	for _, m := range sc.Members {
		if m.Depth != 1 {
			continue
		}
		switch keyName(c[m.K0:m.K1]) {
		case "type":
			typ = c[m.V0:m.V1]
		case "id":
			id = c[m.V0:m.V1]
		}
	}
	t, _ := strValue(typ)
	s, ok := strValue(id)
	return typ != nil && t == "session" && id != nil && ok && s != ""
}

// entryAt returns the end of an entry-looking object at c[q:], or -1.
func (p *planner) entryAt(c []byte, q int) int {
	sc := &p.sc2
	*sc = jsonl.Scanner{Collect: true, Members: sc.Members[:0]}
	e := sc.Value(c, q)
	p.sc.Work += sc.Work + 1
	if e < 0 {
		return -1
	}
	var typ []byte
	hasParent := false
	for _, m := range sc.Members {
		if m.Depth != 1 {
			continue
		}
		switch {
		case tokIs(c[m.K0:m.K1], "type"):
			typ = c[m.V0:m.V1]
		case tokIs(c[m.K0:m.K1], "parentId"):
			hasParent = true
		}
	}
	if typ == nil || typ[0] != '"' {
		return -1
	}
	if hasParent || tokIs(typ, "session") {
		return e
	}
	return -1
}

// msgFields are the members of an entry's message object the rules look at, as token ranges
// of the line ([2]int{} when absent).
type msgFields struct {
	role, content, stopReason, api, provider, model [2]int
	resultIDs                                       [len(resultIDKeys)][2]int
}

// resultIDKeys are the members a tool result names its call by, in the order OpenClaw's
// extractToolResultIds reads them: the first that is a non-blank string counts.
var resultIDKeys = [...]string{"toolCallId", "toolUseId", "tool_call_id", "tool_use_id", "callId", "call_id"}

// entryFields are the members of an entry the rules look at, as token ranges of the line.
type entryFields struct {
	typ, id, parentID, msg, timestamp [2]int
	hasType, hasMsg, hasID, hasParID  bool
	m                                 msgFields // of the last "message" member, as JSON.parse keeps it
	image                             bool      // the value may hold an image block (jsonl.Scanner.Image)
}

// keyName returns the key of a key token when it is one the rules read, else "". The switch
// on string(bytes) does not allocate; an escaped key is decoded first.
func keyName(tok []byte) string {
	if len(tok) < 2 {
		return ""
	}
	in := tok[1 : len(tok)-1]
	if k := ruleKey(in); k != "" {
		return k // no name has a backslash, so a raw match is the key
	}
	for _, c := range in { // a short loop: bytes.IndexByte's call was 3 % of a repair's CPU
		if c == '\\' {
			s, _ := strValue(tok)
			return ruleKey([]byte(s))
		}
	}
	return ""
}

// ruleKey is keyName for a key's unescaped bytes.
func ruleKey(in []byte) string {
	switch string(in) {
	case "type":
		return "type"
	case "id":
		return "id"
	case "parentId":
		return "parentId"
	case "message":
		return "message"
	case "timestamp":
		return "timestamp"
	case "role":
		return "role"
	case "content":
		return "content"
	case "stopReason":
		return "stopReason"
	case "api":
		return "api"
	case "provider":
		return "provider"
	case "model":
		return "model"
	case "toolCallId":
		return "toolCallId"
	case "toolUseId":
		return "toolUseId"
	case "tool_call_id":
		return "tool_call_id"
	case "tool_use_id":
		return "tool_use_id"
	case "callId":
		return "callId"
	case "call_id":
		return "call_id"
	}
	return ""
}

// fields collects the members of the object value v the rules look at.
func (p *planner) fields(c []byte, v *value) entryFields {
	members, image := p.pre.members, p.pre.image
	if !p.ready {
		sc := &p.sc2
		*sc = jsonl.Scanner{Collect: true, Members: sc.Members[:0]}
		sc.Value(c, v.s)
		members, image = sc.Members, sc.Image
	}
	f := entryFields{image: image}
	var cur msgFields // members of the "message" object being read
	// the depth-1 key holding the depth-2 members that follow, named once for all of them
	// (keyName of every member's parent key was a third of this function)
	parentK0, inMessage := -1, false
	for _, m := range members {
		k := keyName(c[m.K0:m.K1])
		if k == "" {
			continue
		}
		r := [2]int{m.V0, m.V1}
		if m.Depth == 1 {
			switch k {
			case "type":
				f.typ, f.hasType = r, true
			case "id":
				f.id, f.hasID = r, true
			case "parentId":
				f.parentID, f.hasParID = r, true
			case "message":
				// Members arrive when their value ends, so a message's own members came
				// just before it; a repeated "message" key replaces them all.
				f.msg, f.hasMsg, f.m, cur = r, true, cur, msgFields{}
			case "timestamp":
				f.timestamp = r
			}
			continue
		}
		if m.ParentK0 != parentK0 {
			parentK0, inMessage = m.ParentK0, keyName(c[m.ParentK0:m.ParentK1]) == "message"
		}
		if !inMessage {
			continue
		}
		switch k { // a repeated key: the last one wins, as in JSON.parse
		case "role":
			cur.role = r
		case "content":
			cur.content = r
		case "stopReason":
			cur.stopReason = r
		case "api":
			cur.api = r
		case "provider":
			cur.provider = r
		case "model":
			cur.model = r
		default:
			for i, rk := range resultIDKeys {
				if k == rk {
					cur.resultIDs[i] = r
				}
			}
		}
	}
	return f
}

// has reports whether the release's repair has rule f (never in SalvageOnly plans). The answers
// are worked out once per plan: this is asked for every message.
func (p *planner) has(f openclaw.Feature) bool {
	return int(f) < len(p.rules) && p.rules[f]
}

// setRules works out has's answers, and dropsRoleless, when a plan starts (a map, and
// Release.Has for every entry, were 3 % of a repair's CPU).
func (p *planner) setRules() {
	fs := []openclaw.Feature{openclaw.RepairDropsRolelessMessages, openclaw.RepairRewritesBlankTurns,
		openclaw.RepairInsertsCodeModeResults, openclaw.RepairReplacesCorruptImages, openclaw.RepairInsertsDeliveryMirrorResults,
		openclaw.UnpaddedBase64}
	p.rules = make([]bool, int(slices.Max(fs))+1)
	for _, g := range fs {
		p.rules[g] = !p.opts.SalvageOnly && p.opts.Release.Has(g)
	}
	p.dropsRoleless = p.opts.Release.Has(openclaw.RepairDropsRolelessMessages)
}

// entry applies the per-entry rules to one value of a line.
func (p *planner) entry(line int64, c []byte, v *value) {
	first := p.nValues == 0
	if c[v.s] != '{' {
		p.nValues++
		if first {
			p.noHead = "first line is not a session header"
		}
		return // OpenClaw keeps non-object values on later lines
	}
	f := p.fields(c, v)
	tok := func(r [2]int) []byte { return c[r[0]:r[1]] }
	typ, _ := strValue(tok(f.typ))
	if !f.hasType {
		typ = ""
	}
	isMsg := typ == "message"
	if isMsg && p.dropsRoleless { // also in SalvageOnly plans: see below
		why := ""
		if role, ok := strValue(tok(f.m.role)); !f.hasMsg || c[f.msg[0]] != '{' {
			why = "message entry without a message object"
		} else if f.m.role[1] == 0 || !ok || jsBlank(role) {
			why = "message entry without a role"
		}
		if why != "" {
			// A dropped entry is no entry at all for OpenClaw: the header check looks at the
			// first one kept. A SalvageOnly plan leaves its bytes for OpenClaw to drop.
			if !p.opts.SalvageOnly {
				v.drop = true
				p.change(line, "drop", why)
			}
			return
		}
	}
	p.nValues++
	if first {
		id, ok := strValue(tok(f.id))
		switch {
		case typ == "session" && f.hasID && ok && id != "":
			p.header = true
		case typ == "session":
			p.noHead = "invalid session header (no id)"
		default:
			p.noHead = "missing session header (the first valid line is an entry)"
			if p.opts.SynthesizeHeader {
				p.synthesizeHeader(line, c, f)
			}
		}
		if typ == "session" {
			return
		}
	} else if typ == "session" {
		p.note(line, "second session header in mid-file: kept")
		return
	}

	// Entry ids and parents, for dangling-parent detection and --relink.
	var idTok []byte
	if f.hasID && c[f.id[0]] == '"' {
		idTok = tok(f.id)
	}
	if f.hasParID && c[f.parentID[0]] == '"' {
		ph := p.hash(tok(f.parentID))
		if p.facts != nil && p.facts.dangling[ph] && p.opts.Relink {
			repl := []byte("null")
			if p.prevID != nil {
				repl = slices.Clone(p.prevID)
			}
			v.splices = append(v.splices, splice{s: f.parentID[0], e: f.parentID[1], repl: []lpiece{{lit: repl}}})
			p.plan.Counts.RelinkedParents++
			p.change(line, "relink", fmt.Sprintf("parentId %s names no entry of the file; now %s", tok(f.parentID), repl))
		} else if p.prevID == nil || ph != p.prevHash {
			p.parents = append(p.parents, callRef{hash: ph, line: line})
		}
	}
	if idTok != nil {
		p.prevID = append(p.prevID[:0], idTok...)
		p.prevHash = p.hash(idTok)
		if len(p.ids) == cap(p.ids) {
			p.ids = hugemem.Grow(p.ids, 1) // one id per entry: megabytes in a large file
		}
		p.ids = append(p.ids, p.prevHash)
	}
	if isMsg && f.hasMsg && c[f.msg[0]] == '{' && !p.opts.SalvageOnly {
		p.message(line, c, f.m, f.image, idTok, v)
	}
}

// message applies the rules for one message entry of the release (session-file-repair.ts, in
// its order: the empty error turn, corrupt images, blank user turns, then the missing results
// of OpenAI tool calls).
func (p *planner) message(line int64, c []byte, m msgFields, image bool, idTok []byte, v *value) {
	tok := func(r [2]int) []byte { return c[r[0]:r[1]] }
	role, _ := strValue(tok(m.role))
	stop, _ := strValue(tok(m.stopReason))
	if m.stopReason[1] == 0 {
		stop = ""
	}
	hasContent := m.content[1] != 0
	isArray := hasContent && c[m.content[0]] == '['
	if role == "toolResult" {
		for _, r := range m.resultIDs {
			if r[1] == 0 {
				continue
			}
			h, ok := p.resultHash(tok(r))
			if !ok {
				continue
			}
			if len(p.results) == cap(p.results) {
				p.results = hugemem.Grow(p.results, 1)
			}
			p.results = append(p.results, h)
			break
		}
		// OpenClaw trims result ids but not call ids, so a call id with surrounding white
		// space never counts as answered there and every repair adds another synthetic
		// result. Ours answers it with the synthetic result already written: repair is
		// idempotent (docs/conformance.md).
		if r := m.resultIDs[0]; r[1] != 0 {
			if s, ok := untrimmed(tok(r)); ok && bytes.Contains(c[v.s:v.e], []byte(`"openclawSyntheticMissingToolResult":true`)) {
				p.results = append(p.results, maphash.String(p.seed, s))
			}
		}
	}
	if p.has(openclaw.RepairInsertsDeliveryMirrorResults) {
		// This entry is the next message after the pending OpenAI Responses turn.
		if len(p.pending) > 0 && role == "assistant" && deliveryMirror(c, m) {
			p.calls = append(p.calls, p.pending...)
		}
		p.pending = p.pending[:0]
	}
	rewrite := p.has(openclaw.RepairRewritesBlankTurns)
	switch {
	case rewrite && role == "assistant" && isArray && skipSpace(c, m.content[0]+1) == m.content[1]-1 && stop == "error":
		v.splices = append(v.splices, splice{s: m.content[0], e: m.content[1],
			repl: []lpiece{{lit: []byte(`[{"type":"text","text":"` + StreamErrorFallbackText + `"}]`)}}})
		p.plan.Counts.RewrittenAssistantMessages++
		p.change(line, "rewrite-assistant", "empty assistant error turn gets the stream-error text")
	case isArray && (rewrite && role == "user" || p.has(openclaw.RepairReplacesCorruptImages) && image):
		p.contentBlocks(line, c, m.content, rewrite && role == "user", image, v)
	case rewrite && role == "user" && hasContent && c[m.content[0]] == '"':
		if blankStringToken(tok(m.content)) {
			v.splices = append(v.splices, splice{s: m.content[0], e: m.content[1], repl: []lpiece{{lit: []byte(`"` + BlankUserFallbackText + `"`)}}})
			p.plan.Counts.RewrittenUserMessages++
			p.change(line, "rewrite-user", "blank user text becomes "+strconv.Quote(BlankUserFallbackText))
		}
	}
	if role != "assistant" || !isArray || stop == "error" || stop == "aborted" {
		return
	}
	api, _ := strValue(tok(m.api))
	switch {
	case p.has(openclaw.RepairInsertsCodeModeResults) && m.api[1] != 0 && m.provider[1] != 0 &&
		api == "openai-chatgpt-responses" && tokIs(tok(m.provider), "openai"):
		p.toolCalls(line, c, m.content, idTok, v, false)
	case p.has(openclaw.RepairInsertsDeliveryMirrorResults) && m.api[1] != 0 && responsesAPI(jsTrim(api)):
		p.toolCalls(line, c, m.content, idTok, v, true)
	}
}

// contentBlocks applies the corrupt-image rule and, for a user turn, the blank-text rule to the
// content array r in one splice: corrupt image blocks become a text block, blank text blocks
// go, and a user turn left with nothing gets the "(continue)" text.
func (p *planner) contentBlocks(line int64, c []byte, r [2]int, user, image bool, v *value) {
	images := image && p.has(openclaw.RepairReplacesCorruptImages)
	elems := p.elements(c, r)
	// the pieces are gathered in a reused array: every user turn is read here and few change
	// (a new array each was a tenth of a repair's page faults, its garbage growing the heap)
	repl := p.repl[:0]
	defer func() { p.repl = repl[:0] }()
	kept, replaced, removed := 0, 0, 0
	for _, el := range elems {
		var piece lpiece
		switch {
		case images && corruptImage(p.members(c, el), p.has(openclaw.UnpaddedBase64)):
			piece = lpiece{lit: []byte(corruptImageBlock)}
			replaced++
		case user && p.blankTextBlock(c, el):
			removed++
			continue
		default:
			piece = lpiece{s: el[0], e: el[1]}
		}
		if kept > 0 {
			repl = append(repl, lpiece{lit: comma})
		}
		repl = append(repl, piece)
		kept++
	}
	userRewrite := user && (removed > 0 || kept == 0)
	if replaced == 0 && !userRewrite {
		return
	}
	var out []lpiece // the splice keeps it: not the reused array
	if user && kept == 0 {
		out = []lpiece{{lit: []byte(`[{"type":"text","text":"` + BlankUserFallbackText + `"}]`)}}
	} else {
		out = append(append([]lpiece{{lit: []byte("[")}}, repl...), lpiece{lit: []byte("]")})
	}
	v.splices = append(v.splices, splice{s: r[0], e: r[1], repl: out})
	if replaced > 0 {
		p.plan.Counts.RemovedCorruptImageBlocks += replaced
		p.change(line, "replace-image", fmt.Sprintf("%d image block(s) with corrupt base64 data replaced by %q", replaced, CorruptImageFallbackText))
	}
	if userRewrite {
		p.plan.Counts.RewrittenUserMessages++
		p.change(line, "rewrite-user", fmt.Sprintf("%d blank text block(s) removed from user content", removed))
	}
}

// elements returns the element token ranges of the (valid) array token r.
func (p *planner) elements(c []byte, r [2]int) [][2]int {
	out := p.elems[:0] // reused: no caller holds one while asking for another
	var sc jsonl.Scanner
	i := skipSpace(c, r[0]+1)
	for i < r[1]-1 {
		e := sc.Value(c, i)
		if e < 0 {
			break
		}
		out = append(out, [2]int{i, e})
		i = skipSpace(c, e)
		if i < len(c) && c[i] == ',' {
			i = skipSpace(c, i+1)
		}
	}
	p.elems = out
	return out
}

// objMembers are the top-level members of one object token, found by key: the last one with
// the key wins, as in JSON.parse. The zero value (not an object) has none.
type objMembers struct {
	c  []byte
	ms []jsonl.Member
}

// members returns the members of the object token r, valid until the next call (the
// scanner's member list is reused: a map per content block was a fifth of the planner's
// allocations).
func (p *planner) members(c []byte, r [2]int) objMembers {
	if c[r[0]] != '{' {
		return objMembers{}
	}
	p.sc3 = jsonl.Scanner{Collect: true, Members: p.sc3.Members[:0]}
	p.sc3.Value(c, r[0])
	return objMembers{c: c, ms: p.sc3.Members}
}

// get returns the value range of the member named k.
func (o objMembers) get(k string) ([2]int, bool) {
	for i := len(o.ms) - 1; i >= 0; i-- {
		if m := o.ms[i]; m.Depth == 1 && tokIs(o.c[m.K0:m.K1], k) {
			return [2]int{m.V0, m.V1}, true
		}
	}
	return [2]int{}, false
}

func (p *planner) blankTextBlock(c []byte, r [2]int) bool {
	ms := p.members(c, r)
	t, ok := ms.get("type")
	if !ok || !tokIs(c[t[0]:t[1]], "text") {
		return false
	}
	tx, ok := ms.get("text")
	if !ok {
		return false
	}
	return blankStringToken(c[tx[0]:tx[1]])
}

// blankStringToken reports whether a JSON string token is blank after a JS trim(). Most
// strings have a printable ASCII byte near the start, which settles it without decoding.
func blankStringToken(tok []byte) bool {
	if len(tok) < 2 || tok[0] != '"' {
		return false
	}
	in := tok[1 : len(tok)-1]
	for i := 0; i < len(in); i++ {
		switch b := in[i]; {
		case b == '\\':
			if i+1 < len(in) && in[i+1] == 'u' {
				i += 5
			} else {
				i++
			}
		case b > ' ' && b < 0x80:
			return false
		}
	}
	s, ok := strValue(tok)
	return ok && jsBlank(s)
}

func (p *planner) newID() string {
	if p.opts.NewID != nil {
		return p.opts.NewID()
	}
	return "repair-" + randomUUID()
}

// SessionIDFromName is the session id a transcript's file name carries: the name up to
// ".jsonl" (archives and checkpoints keep the id in front).
func SessionIDFromName(name string) string {
	base := name
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	if i := strings.Index(base, ".jsonl"); i > 0 {
		base = base[:i]
	}
	return base
}

// synthesizeHeader plans a session header before the first line (--synthesize-header): id from
// the file name, timestamp from the first entry, version 3, empty cwd.
func (p *planner) synthesizeHeader(line int64, c []byte, f entryFields) {
	ts := p.opts.Now.UTC().Format("2006-01-02T15:04:05.000Z")
	if f.timestamp[1] != 0 {
		if s, ok := strValue(c[f.timestamp[0]:f.timestamp[1]]); ok && s != "" {
			ts = s
		}
	}
	var b bytes.Buffer
	b.WriteString(`{"type":"session","version":3,"id":`)
	b.Write(jsonobj.Quote(SessionIDFromName(p.name)))
	b.WriteString(`,"timestamp":`)
	b.Write(jsonobj.Quote(ts))
	b.WriteString(`,"cwd":""}` + "\n")
	p.plan.Edits = append(p.plan.Edits, Edit{Off: 0, End: 0, Repl: []Piece{{Lit: b.Bytes()}}})
	p.plan.Counts.SynthesizedHeaders++
	p.header = true
	p.change(line, "synthesize-header", "session header added before the first entry (--synthesize-header)")
}

func (p *planner) finish() {
	p.plan.BytesBefore = p.end
}

// result finishes the plan: dangling-parent notes, the header verdict, sorted edits and sizes.
func (p *planner) result() *Plan {
	pl := &p.plan
	if p.facts == nil || !p.opts.Relink {
		f := p.facts
		if f == nil {
			ff := p.collectFacts()
			f = &ff
		}
		if len(f.dangling) > 0 {
			n := 0
			for _, r := range p.parents {
				if f.dangling[r.hash] {
					n++
					if n <= maxDetails/2 {
						p.note(r.line, "parentId names no entry of the file (dangling; --relink re-parents it)")
					}
				}
			}
		}
	}
	if p.nValues == 0 {
		if pl.Counts.DroppedLines > 0 {
			pl.Skip = fmt.Sprintf("no valid entries (%d unparseable line(s)); left as is", pl.Counts.DroppedLines)
		} else {
			pl.Empty = "empty session file"
			pl.Edits = nil
		}
	} else if !p.header {
		pl.Skip = p.noHead
		if pl.Skip == "" {
			pl.Skip = "invalid session header"
		}
	}
	slices.SortStableFunc(pl.Edits, func(a, b Edit) int {
		if a.Off != b.Off {
			return int(a.Off - b.Off)
		}
		return int(a.End - b.End)
	})
	pl.BytesAfter = pl.BytesBefore
	for _, e := range pl.Edits {
		pl.BytesAfter -= e.End - e.Off
		for _, r := range e.Repl {
			if r.Lit != nil {
				pl.BytesAfter += int64(len(r.Lit))
			} else {
				pl.BytesAfter += r.End - r.Off
			}
		}
	}
	return pl
}

package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fastjson"

	"github.com/clawdoctor/clawdoctor/internal/openclaw"
	"github.com/clawdoctor/clawdoctor/internal/store"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// Options tune an audit run.
type Options struct {
	MaxLine    int           // line cap in bytes; 0 means jsonl.DefaultMaxLine
	MaxPerRule int           // findings kept per rule and file; 0 means 200 (the rest are counted)
	Now        time.Time     // clock for lock ages; zero means time.Now
	BatchTail  time.Duration // a turn whose first send came this long before its end is at risk; 0 means 30s
	Logs       []string      // gateway log files (openclaw-YYYY-MM-DD.log or console/journal text)
	Agent      string        // with a state dir: only this agent
	Stdin      io.Reader     // read for the path "-" (nil: "-" is an ordinary name)
	// Release is the OpenClaw release whose behaviour the findings describe; the zero value
	// means openclaw.Default.
	Release openclaw.Release
	// Skip names rules the caller checks itself (doctor, which plans their fixes): their
	// findings are left out, and work only they need (an lstat per store row, the orphan
	// list, CLI bindings) is not done.
	Skip map[string]bool
	// Stores hands the audit sessions.json files its caller already parsed, by sessions dir
	// (doctor's own parse): the store check reads their rows instead of reading and parsing
	// the file again. A dir not in the map is read as usual.
	Stores map[string]*store.Store
}

func (o Options) release() openclaw.Release {
	if o.Release == (openclaw.Release{}) {
		return openclaw.Default
	}
	return o.Release
}

func (o Options) maxPerRule() int {
	if o.MaxPerRule <= 0 {
		return 200
	}
	return o.MaxPerRule
}

func (o Options) batchTail() int64 {
	if o.BatchTail <= 0 {
		return 30_000
	}
	return o.BatchTail.Milliseconds()
}

// RetryText is the generic prompt old OpenClaw builds sent instead of the user's prompt on a
// model fallback retry (resolveFallbackRetryPrompt before PR #66029).
const RetryText = "Continue where you left off. The previous model attempt failed or timed out."

// RetryMarker starts the fixed retry prompt, which keeps the original body after it.
const RetryMarker = "[Retry after the previous model attempt failed or timed out]"

// roles and entry kinds, kept in one byte per node.
const (
	roleNone uint8 = iota
	roleUser
	roleAssistant
	roleToolResult
	roleOther // custom, bashExecution, ...: a context message that is neither of the above
)

const (
	kindOther uint8 = iota
	kindMessage
	kindCustomMessage
	kindBranchSummary
	kindCompaction
	kindSnapshot // custom model-snapshot
	kindLeaf
)

// node flags
const (
	fRetryText  uint16 = 1 << iota // user text is exactly RetryText
	fError                         // assistant stopReason error or aborted
	fMirror                        // transcript-only delivery-mirror / gateway-injected assistant
	fHasContent                    // assistant with non-empty content
	fSide                          // appendMode "side"
	fHasParent                     // parentId is a non-empty string
	fResultErr                     // toolResult isError
	// fCalls: an assistant with tool calls. The checks after the scan read an assistant's
	// detail only when it has calls or follows an error turn: a transcript of chat without
	// tools then reads no details at all (decoding them once per check was 6 % of the audit of
	// tiny entries)
	fCalls
)

// node is the hot part of one entry, kept in memory for the walks over the tree: 12 bytes and
// no pointers, so a transcript of millions of entries costs little and the garbage collector
// has nothing to scan. The rest of what the checks need is its detail (spilled). Its id key is
// split: the low half here, the high half implied by the flags (a packed id's is always the
// same) or, for a hashed id, kept beside (nodes.key).
type node struct {
	keyLo      uint32 // the low half of the idKey of the id
	parentIdx  int32  // -1 none or dangling
	kind, role uint8
	flags      uint16
}

// detail is the rest of what the checks need of one entry, read back after the scan: 40
// bytes, packed with the details around it in a detailLog (written out to the spill file
// when the log is over budget).
// What few entries have (an id idKey cannot pack, a message-tool result's message id) is in
// a rare of its own.
type detail struct {
	line, ts int64 // ts in ms; 0 unknown
	extra    cref  // user text preview, assistant error message or mirror text, result call id, compaction firstKept, leaf target
	// extraKey is the key of extra, except in an assistant: the index in scan.calls of its
	// first call (see callStart)
	extraKey uint64
	rare     int32  // 1 + the index in scan.rares of the entry's rare facts; 0 none
	callN    uint16 // assistant: its calls
	model    uint16 // assistant or snapshot "provider/model", toolResult tool name (interned)
}

// callStart is the index in scan.calls of an assistant's first call.
func (d *detail) callStart() int { return int(d.extraKey) }

// rare is what only a few entries need beside their detail.
type rare struct {
	id     cref // the id when idKey could not pack it
	extra2 cref // toolResult: "message#<id>" of a message-tool send
}

// call is one tool call of an assistant message.
type call struct {
	key     uint64 // idKey of the call id
	id      cref
	text    cref // preview of the sent message of a message-tool send
	name    uint16
	invalid uint8
	send    bool
}

// why a tool call is invalid (spec transcript.md §4.2)
var invalidReasons = []string{"", "no input (arguments and input are missing)", "no id", "blank name",
	"name longer than 64 characters", "name has characters outside A-Z a-z 0-9 _ -"}

// Spill budgets of one scan: in-memory bytes of each log before its old chunks go to disk
// (variables so a test can make a small transcript spill). The details budget holds the
// packed details (detailLog) of ~10M tiny entries or ~5M big ones, so nearly every transcript's
// details stay in memory (a 1 GiB transcript of tiny entries: ~18 MB; writing details out and
// reading them back was a fifth of the CPU when they were 40 bytes each); a bigger one keeps
// only the budget's worth in memory, and the 16 GiB transcript stays under its RSS target.
var (
	detailBudget = 48 << 20
	callBudget   = 6 << 20
	coldBudget   = 8 << 20
)

// scan is the state of one transcript audit.
type scan struct {
	ctx     context.Context
	name    string
	opts    Options
	out     []Finding
	perRule map[string]int
	p       *fastjson.Parser // from parserPool, back in close

	seed       maphash.Seed
	nodes      nodes
	details    *detailLog
	rares      *spilled[rare]
	calls      *spilled[call]
	cold       *coldArena
	ids        *keyMap
	names      []string // interned model and tool names; index 0 is ""
	nameIdx    map[string]uint16
	pending    *spilled[pendingParent] // parents not seen yet when their child was read
	roots      int
	rootIdx    [10]int32
	forward    bool // some parent comes after its child in the file
	values     int64
	entries    int64
	header     bool
	headerLine int64
	crlf       int64
	crlfFirst  int64
	deliveries map[string]int64 // messageId → delivery time (ms) from gateway logs
	dupIDs     bool             // some id is used twice
	dupKeys    map[uint64]bool  // the keys used twice
	idq        [64]queuedID     // ids read but not yet in ids (flushIDs); idQueueLen are used
	nidq       int
	touched    uint64
	sizeHint   int64      // bytes expected, for buffer sizes; 0 unknown
	parallel   bool       // the only file of its run: a big one may extract on every core
	x          *extractor // the entries line() reads itself (from extractorPool)
	xo         extractOut // and what it read of the last one
	ident      *identKeys // a database's session: the id keys of each line (identity.go)
}

// pendingParent is an entry whose parentId named no entry read so far.
type pendingParent struct {
	node   int32
	key    uint64
	parent cref
}

// intern stores a short, often repeated string (a model or tool name) once.
func (s *scan) intern(b []byte) uint16 {
	if len(b) == 0 {
		return 0
	}
	if i, ok := s.nameIdx[string(b)]; ok {
		return i
	}
	if len(s.names) >= 1<<16-1 {
		return 1<<16 - 1 // "(other)": more distinct names than any real transcript has
	}
	s.names = append(s.names, string(b))
	s.nameIdx[string(b)] = uint16(len(s.names) - 1)
	return uint16(len(s.names) - 1)
}

func (s *scan) name16(i uint16) string {
	if int(i) < len(s.names) {
		return s.names[i]
	}
	return "(other)"
}

func (s *scan) str(r cref) string  { return s.cold.str(r) }
func (s *scan) nd(i int32) *node   { return s.nodes.at(i) }
func (s *scan) det(i int32) detail { return s.details.at(int(i)) }
func (s *scan) rareOf(d detail) rare {
	if d.rare == 0 {
		return rare{}
	}
	return s.rares.at(int(d.rare - 1))
}
func (s *scan) keyOf(i int32) uint64 { return s.nodes.key(i) }
func (s *scan) key(id []byte) uint64 { return idKey(s.seed, id) }

// idStr is the id of node i.
func (s *scan) idStr(i int32) string {
	if id, ok := packed(s.keyOf(i)); ok {
		return id
	}
	return s.str(s.rareOf(s.det(i)).id)
}

// lookup returns the node whose id has key k.
func (s *scan) lookup(k uint64) (int32, bool) {
	if k == 0 || s.ids == nil {
		return 0, false
	}
	if i, ok := s.queuedLookup(k); ok {
		return i, true
	}
	return s.ids.get(k)
}

// CheckTranscript audits one transcript stream. name is used only in findings. It returns the
// findings and the number of entries read; err is set only when the stream could not be read.
func CheckTranscript(ctx context.Context, r io.Reader, name string, opts Options) ([]Finding, int64, error) {
	return newScan(ctx, name, opts).run(r)
}

func newScan(ctx context.Context, name string, opts Options) *scan {
	s := &scan{ctx: ctx, name: name, opts: opts, perRule: map[string]int{}, seed: maphash.MakeSeed(), p: parserPool.Get().(*fastjson.Parser),
		details: newDetailLog(detailBudget), rares: newSpilled[rare](callBudget), calls: newSpilled[call](callBudget), cold: newColdArena(coldBudget),
		pending: newSpilled[pendingParent](callBudget), names: []string{""}, nameIdx: map[string]uint16{}}
	s.ids = newKeyMap(s.keyOf)
	s.x = extractorPool.Get().(*extractor)
	s.x.seed, s.x.o = s.seed, &s.xo
	s.x.unpadded = s.opts.release().Has(openclaw.UnpaddedBase64)
	return s
}

// extractorPool keeps the extractors of finished scans, with their Doc and its shapes: a state
// dir is thousands of small files of the same few shapes of line, and a Doc learning them anew
// for each file was a sixth of its audit. A Doc that grew past maxPooledDoc is not kept.
var extractorPool = sync.Pool{New: func() any { return new(extractor) }}

const maxPooledDoc = 4 << 20

// release gives x back to extractorPool; x is not used after.
func (x *extractor) release() {
	x.o = nil
	if x.doc.Reset() <= maxPooledDoc {
		extractorPool.Put(x)
	}
}

// parserPool keeps the parsers of finished scans: a parser's value cache grows to the
// transcript's entries, and a fresh one per file of a state dir was a third of what the
// audit allocated.
var parserPool = sync.Pool{New: func() any { return new(fastjson.Parser) }}

func (s *scan) close() {
	if s.p != nil {
		parserPool.Put(s.p)
		s.p = nil
	}
	if s.x != nil {
		s.x.release()
		s.x = nil
	}
	s.details.close()
	s.rares.close()
	s.calls.close()
	s.cold.b.close()
	s.pending.close()
}

func (s *scan) run(r io.Reader) ([]Finding, int64, error) {
	r = jsonl.ContextReader(s.ctx, r)
	defer s.close()
	err := s.read(r)
	s.flushIDs()
	if err != nil {
		return s.out, s.entries, err
	}
	s.tree()
	s.suppressed()
	for _, err := range []error{s.details.b.err, s.rares.err, s.calls.err, s.cold.b.err, s.pending.err} {
		if err != nil {
			return s.out, s.entries, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return s.out, s.entries, nil
}

func (s *scan) add(rule string, line int64, entryID, msg, hint string, ev map[string]any) {
	s.perRule[rule]++
	if s.perRule[rule] > s.opts.maxPerRule() {
		return
	}
	s.out = append(s.out, newFinding(rule, s.name, line, entryID, msg, hint, ev))
}

// suppressed makes the last listed finding of each rule that hit the cap stand for the
// findings that were counted but not listed.
func (s *scan) suppressed() {
	max := s.opts.maxPerRule()
	for rule, n := range s.perRule {
		if n <= max {
			continue
		}
		for i := len(s.out) - 1; i >= 0; i-- {
			if s.out[i].Rule == rule {
				s.out[i].Omitted = n - max
				break
			}
		}
	}
}

// batch is a run of lines copied out of the reader, so reading and parsing overlap.
type batch struct {
	buf   []byte
	lines []jsonl.Line // Bytes point into buf
	err   error        // set on the last batch: io.EOF or the read error
	// with extracting workers (a big stream): what they read of each line, and a token when
	// they are done with the batch
	recs  []rec
	xo    extractOut
	ready chan struct{}
}

// checkFirst reports whether line() checks l's bytes against the grammar: not for a line it
// does not read (over the cap, blank) or reads another way (NUL bytes, invalid UTF-8).
func checkFirst(l *jsonl.Line) bool {
	return l.Flags&(jsonl.FlagTooLong|jsonl.FlagBlank|jsonl.FlagNUL|jsonl.FlagInvalidUTF8) == 0
}

// batchBytes is the read buffer of a big stream, and so the bytes of a batch: 1 MiB, not 4,
// because every batch in flight is memory touched for the first time, and on the bench machine
// (a microVM) a first touch costs 10-15 µs a page: 4 MiB batches were 60 MB of it (a tenth of
// the page faults of the audit of tiny entries), with their records.
const batchBytes = 1 << 20

// maxBatchBuf is the largest buffer a batch keeps for reuse: the Reader's buffers grow past
// batchBytes for lines up to 4 MiB (images), and shrink back after longer ones.
const maxBatchBuf = 4 * batchBytes

// batchPool keeps the batches of finished scans for the next one.
var batchPool sync.Pool

// readBatches reads r in a goroutine and sends batches of lines; free returns used batches.
// sizeHint (the stream size, 0 unknown) keeps buffers small for small files.
//
// A batch is one read buffer of the Reader (jsonl.Options.Handoff): its lines point into it,
// and no line is copied (copying every line into a batch of its own was a twentieth of the
// audit of a transcript of tiny entries). A batch comes back with its buffer, which the Reader
// reads into again.
//
// With work set, every batch also goes to work, where the extracting workers check and read its
// lines; without, the scan's goroutine does.
func readBatches(r io.Reader, maxLine int, sizeHint int64, out, work chan<- *batch, free chan *batch, done <-chan struct{}) {
	bufSize := batchBytes / 4 // unknown size: start modest, the Reader doubles its buffer
	if sizeHint > 0 {
		bufSize = int(min(max(sizeHint, 4<<10), batchBytes))
	}
	get := func() *batch {
		select {
		case b := <-free:
			b.lines, b.err = b.lines[:0], nil
			if cap(b.buf) > maxBatchBuf {
				b.buf = nil // it held a long line: do not read on into its memory
			}
			return b
		default:
			// a state dir is thousands of small scans: their batches are reused, not garbage
			if b, ok := batchPool.Get().(*batch); ok {
				b.lines, b.err = b.lines[:0], nil
				return b
			}
			return &batch{ready: make(chan struct{}, 1)}
		}
	}
	b := get()
	stopped := false
	send := func(b *batch) bool {
		select {
		case out <- b:
		case <-done:
			return false
		}
		if work != nil {
			select {
			case work <- b:
			case <-done:
				return false
			}
		}
		return true
	}
	// held is a full batch not yet sent: the Reader copies the unfinished line at the end of
	// a handed-off buffer after the handoff returns, so the batch owning that buffer goes to
	// the scan only once Next has returned. Sent at once, it could be done with and put in
	// batchPool, and another scan's reader fill it, before that copy (lines of a session of a
	// database audited beside another came out garbled, 1 run in 7).
	var held *batch
	sendHeld := func() {
		if held != nil && !stopped && !send(held) {
			stopped = true // the scan has ended: Next is not called again
		}
		held = nil
	}
	handoff := func(old []byte, size int) []byte {
		if len(b.lines) > 0 && !stopped { // every line of b points into old
			sendHeld() // an earlier buffer of the same Next: its copy is done
			b.buf = old
			held = b
			b = get()
		}
		if old == nil {
			size = bufSize // the first buffer: at its full size when the stream's size is known
		}
		spare := b.buf // the buffer b came back with: its lines are done
		b.buf = nil
		if cap(spare) < size {
			spare = make([]byte, size)
		}
		return spare[:cap(spare)]
	}
	rd := jsonl.NewReader(r, jsonl.Options{MaxLine: maxLine, BufferSize: bufSize, Handoff: handoff})
	end := func() {
		close(out)
		if work != nil {
			close(work)
		}
	}
	for {
		l, err := rd.Next()
		sendHeld()
		if stopped {
			end()
			return
		}
		if err != nil {
			b.buf, b.err = rd.Detach(), err // the last lines point into the Reader's buffer
			send(b)
			end()
			return
		}
		b.lines = append(b.lines, l)
	}
}

// idEstimate is how many ids a stream of size bytes is sized for, from its first batch (lines
// taking bytes of the stream, line ends included): the id index is then made once at its
// final size. Grown by doubling, a table of millions of ids was rehashed as it filled and ran
// at its highest load before each doubling. At most maxReserve ids (past them it grows as
// before): a first batch of small lines in a file of big ones must not size a table for ids
// that never come.
func idEstimate(size, bytes int64, lines int) int {
	if size <= 0 || lines == 0 || bytes < int64(lines) {
		return 0
	}
	per := bytes / int64(lines)
	return int(min(size/per+size/per/8, maxReserve))
}

// streamBytes is what lines took of the stream (Line.Size: line ends and a BOM included, and
// the whole of a line over the cap).
func streamBytes(lines []jsonl.Line) int64 {
	var n int64
	for i := range lines {
		n += lines[i].Size
	}
	return n
}

// maxReserve is the most ids idEstimate sizes for: 12M ids, a 128 MiB table (16M slots, 3/4
// full at 12M: shards are not rounded up to a power of two), the size the 16 GiB transcript
// of 8.8M entries of issue 14 reached anyway. At 8M ids, that transcript's shards all grew
// out of their block, which was then held beside them.
const maxReserve = 12 << 20

// parallelMin is the stream size from which a scan extracts its lines on every core. Smaller
// files (a state dir's sessions) are scanned one per core instead, each with its reader.
var parallelMin int64 = 32 << 20

// parallelScans counts the scans that extracted on workers (the tests check they ran).
var parallelScans atomic.Int64

// extractBatches checks, parses and reads the lines of the batches from work (a worker of a
// big stream's scan).
func extractBatches(seed maphash.Seed, unpadded bool, work <-chan *batch) {
	x := extractor{seed: seed, unpadded: unpadded}
	for b := range work {
		b.xo.reset()
		x.o = &b.xo
		if n := len(b.lines); cap(b.recs) < n {
			b.recs = make([]rec, n+n/8) // room for the next batches' few more lines
		}
		b.recs = b.recs[:len(b.lines)]
		for i := range b.lines {
			x.line(&b.lines[i], &b.recs[i])
		}
		b.ready <- struct{}{}
	}
}

func (s *scan) read(r io.Reader) error {
	out := make(chan *batch, 2)
	free := make(chan *batch, 3)
	done := make(chan struct{})
	defer close(done)
	var work chan *batch
	if workers := runtime.GOMAXPROCS(0); s.parallel && s.sizeHint >= parallelMin && workers > 1 {
		work = make(chan *batch, 2)
		parallelScans.Add(1)
		for range workers {
			go extractBatches(s.seed, s.opts.release().Has(openclaw.UnpaddedBase64), work)
		}
	}
	go readBatches(r, s.opts.MaxLine, s.sizeHint, out, work, free, done)
	first := true
	for b := range out {
		if first {
			first = false
			s.ids.reserve(idEstimate(s.sizeHint, streamBytes(b.lines), len(b.lines)))
		}
		if work != nil {
			<-b.ready
			for i := range b.lines {
				s.lineRec(&b.lines[i], &b.recs[i], &b.xo)
			}
		} else {
			for i := range b.lines {
				s.xo.reset()
				var r rec
				s.x.line(&b.lines[i], &r)
				s.lineRec(&b.lines[i], &r, &s.xo)
			}
		}
		if b.err != nil && b.err != io.EOF {
			var num int64
			if k := len(b.lines); k > 0 {
				num = b.lines[k-1].Num + 1
			}
			return fmt.Errorf("%s:%d: %w", s.name, num, b.err)
		}
		if err := s.ctx.Err(); err != nil {
			return err
		}
		select {
		case free <- b:
		default:
			if cap(b.buf) <= maxBatchBuf {
				batchPool.Put(b)
			}
		}
	}
	for len(free) > 0 { // the reader has ended: its spare batches go to the next scan
		if b := <-free; cap(b.buf) <= maxBatchBuf {
			batchPool.Put(b)
		}
	}
	if s.crlf > 0 {
		s.add("jsonl.crlf", s.crlfFirst, "", fmt.Sprintf(
			"%d line(s) end in CRLF or hold a stray CR, first at line %d; OpenClaw reads CRLF line ends, but a stray CR between two entries or inside a string breaks the line",
			s.crlf, s.crlfFirst), "", map[string]any{"lines": s.crlf})
	}
	return nil
}

// lineFlags notes what a line's flags say before it is read: a BOM, CR line ends.
func (s *scan) lineFlags(l *jsonl.Line) {
	if l.Has(jsonl.FlagBOM) {
		s.add("jsonl.bom", l.Num, "", "the file starts with a UTF-8 byte order mark; OpenClaw's repair cannot parse the header line, finds no header and never repairs the file", s.repairHint(""), nil)
	}
	if l.Has(jsonl.FlagCRLF) || l.Has(jsonl.FlagLoneCR) {
		if s.crlf == 0 {
			s.crlfFirst = l.Num
		}
		s.crlf++
	}
}

// finalNewline reports a complete last line without a newline.
func (s *scan) finalNewline(l *jsonl.Line) {
	if l.Has(jsonl.FlagNoNewline) {
		s.add("jsonl.missing-final-newline", l.Num, "", fmt.Sprintf("line %d, the last, is complete but has no final newline (an interrupted write, or an editor); the gateway's next append is glued to it and OpenClaw then skips both entries", l.Num),
			s.repairHint(""), map[string]any{"offset": l.Offset})
	}
}

// lineRec handles one line an extracting worker read (r, its strings in o): an entry is
// applied as line() would, anything else goes to line().
func (s *scan) lineRec(l *jsonl.Line, r *rec, o *extractOut) {
	if r.slow {
		s.line(l, r.checked)
		return
	}
	s.lineFlags(l)
	if s.values++; s.values == 1 {
		s.headerMissing(r.typ, string(o.bytes(r.id)), l.Num)
	}
	s.apply(r, o)
	s.finalNewline(l)
}

// line handles one line; checked is jsonl.Check of its bytes when checkFirst(l).
func (s *scan) line(l *jsonl.Line, checked error) {
	s.lineFlags(l)
	if l.Has(jsonl.FlagTooLong) {
		s.add("jsonl.line-too-long", l.Num, "", fmt.Sprintf("line %d is %d bytes, over the line cap; it was not checked", l.Num, l.Size), "Raise --max-line to check it",
			map[string]any{"bytes": l.Size, "offset": l.Offset})
		return
	}
	if l.Has(jsonl.FlagBlank) {
		return
	}
	b := l.Bytes
	switch {
	case l.Has(jsonl.FlagNUL):
		n := bytes.Count(b, []byte{0})
		s.add("jsonl.nul-bytes", l.Num, "", fmt.Sprintf("line %d holds %d NUL byte(s) (left by a crash or disk damage); the line cannot be read as JSON", l.Num, n), s.repairHint(""),
			map[string]any{"nulBytes": n, "offset": l.Offset})
		b = bytes.ReplaceAll(b, []byte{0}, nil)
		s.lenient(b, l.Num)
		return
	case l.Has(jsonl.FlagInvalidUTF8):
		s.add("jsonl.invalid-utf8", l.Num, "", fmt.Sprintf("line %d holds bytes that are not valid UTF-8; strict loaders reject the line", l.Num), "",
			map[string]any{"offset": l.Offset})
		s.lenient(b, l.Num)
		return
	}
	// The verdict is the one grammar's (jsonl.Check, as repair and validate read it); fastjson
	// accepts some invalid lines (a raw NUL in a string, "01") and stops at 300 levels.
	err := checked
	deep := ""
	switch {
	case err == nil:
		ok := s.parse(b)
		if !ok && s.x.doc.TooBig() {
			// millions of values (or over 2 GiB) in one line: no tree of them is built
			why := fmt.Sprintf("more than the %d values the audit reads in one line", jsonl.DocMaxValues)
			if len(b) > math.MaxInt32 {
				why = "over the 2 GiB the audit reads in one line"
			}
			s.add("jsonl.line-too-long", l.Num, "", fmt.Sprintf("line %d is valid JSON of %d bytes, %s: it was not checked", l.Num, len(b), why),
				"nothing to fix: OpenClaw reads it, and repair keeps it byte for byte", map[string]any{"bytes": l.Size, "offset": l.Offset, "tooBig": true})
			return
		}
		if ok {
			s.value(s.x.doc.Root(), l.Num)
			s.finalNewline(l)
			return
		}
		deep = "deeper than the 300 levels the audit reads"
	case errors.Is(err, jsonl.ErrTooDeep):
		deep = "deeper than 10000 levels"
	}
	if deep != "" {
		s.add("jsonl.line-too-long", l.Num, "", fmt.Sprintf("line %d is JSON nested %s: it was not checked", l.Num, deep),
			"nothing to fix: OpenClaw reads it, and repair keeps it byte for byte", map[string]any{"bytes": l.Size, "offset": l.Offset, "deep": true})
		return
	}
	if parts := splitConcatenated(b); len(parts) > 1 && l.Has(jsonl.FlagLoneCR) && bytes.Contains(b, []byte("}\r{")) {
		// entries separated by a lone CR (an old Mac line end): one unreadable line for OpenClaw
		s.add("jsonl.malformed-line", l.Num, "", fmt.Sprintf("line %d holds %d entries separated by lone CR bytes instead of newlines; OpenClaw reads it as one broken line and skips all of them", l.Num, len(parts)), s.repairHint(""),
			map[string]any{"loneCR": true, "objects": len(parts), "offset": l.Offset})
		for _, p := range parts {
			s.lenient(p, l.Num)
		}
		return
	} else if len(parts) > 1 {
		s.add("jsonl.concatenated", l.Num, "", fmt.Sprintf("line %d holds %d JSON objects glued together (a newline was lost between two appends); OpenClaw skips the whole line", l.Num, len(parts)), s.repairHint(""),
			map[string]any{"objects": len(parts), "offset": l.Offset})
		for _, p := range parts {
			s.lenient(p, l.Num)
		}
		return
	}
	ev := map[string]any{"offset": l.Offset, "error": err.Error(), "bytes": l.Size}
	what := "is not valid JSON"
	if l.Has(jsonl.FlagNoNewline) {
		what = "is torn (the last line, cut off without a newline: an interrupted write)"
		ev["torn"] = true
	}
	s.add("jsonl.malformed-line", l.Num, "", fmt.Sprintf("line %d %s; OpenClaw's repair drops it, so its entry and everything hanging off it are lost from context", l.Num, what), s.repairHint(""), ev)
}

// splitConcatenated splits a line made of several JSON values written back to back. It
// returns nil when the line is not exactly that.
func splitConcatenated(b []byte) [][]byte {
	dec := json.NewDecoder(bytes.NewReader(b))
	var parts [][]byte
	var start int64
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if err == io.EOF {
				break
			}
			return nil
		}
		end := dec.InputOffset()
		parts = append(parts, bytes.TrimSpace(b[start:end]))
		start = end
	}
	if len(parts) < 2 {
		return nil
	}
	return parts
}

// isToolCall reports whether a block type is a tool call in any spelling (spec transcript.md §4.1).
func isToolCall(t []byte) bool {
	switch string(t) {
	case "toolCall", "toolUse", "functionCall", "tool_use", "tool_call", "function_call":
		return true
	}
	return false
}

// sendAction reports whether a message-tool action sends a message to the user.
func sendAction(a []byte) bool {
	switch string(a) {
	case "send", "sendWithEffect", "sendAttachment", "reply", "thread-reply", "broadcast":
		return true
	}
	return false
}

func str(v jsonl.Value, keys ...string) string {
	return string(v.GetStringBytes(keys...))
}

func preview(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}

// parse reads b into s.x.doc: what the Doc reads it reads; what the Doc refuses fastjson may
// still read (it accepts more, and nests to 300 levels where the Doc stops at 256), handed on
// as a Doc. A value too big for a Doc (doc.TooBig) is not read at all, so no tree of millions
// of values is built.
func (s *scan) parse(b []byte) bool {
	if s.x.doc.Parse(b) {
		return true
	}
	if s.x.doc.TooBig() {
		return false
	}
	v, err := s.p.ParseBytes(b)
	return err == nil && s.x.doc.FromFastjson(v)
}

// lenient reads a line (or part of one) the grammar refused as a whole (NUL bytes taken out,
// invalid UTF-8, glued objects); a value too big to read already has its line's finding.
func (s *scan) lenient(b []byte, line int64) {
	if s.parse(b) {
		s.value(s.x.doc.Root(), line)
	}
}

// value handles one parsed JSON value of the transcript.
func (s *scan) value(v jsonl.Value, line int64) {
	s.values++
	first := s.values == 1
	if v.Type() != jsonl.TypeObject {
		s.add("jsonl.malformed-line", line, "", fmt.Sprintf("line %d is valid JSON but not an object (%s); transcripts hold one object per line", line, v.Type()), "", map[string]any{"jsonType": v.Type().String()})
		return
	}
	typ := entryType(v.GetStringBytes("type"))
	if typ == "session" {
		if first {
			s.header, s.headerLine = true, line
			s.checkHeader(v, line)
			if s.ident != nil { // a database's session: its header has an identity row too
				s.ident.note(line, s.key(v.Get("id").StringBytes()), s.key(v.Get("parentId").StringBytes()))
			}
		} else {
			where := "after entries"
			if s.header {
				where = fmt.Sprintf("after the header at line %d", s.headerLine)
			}
			s.add("header.duplicate", line, str(v, "id"), fmt.Sprintf("line %d is a second session header (%s): two transcripts were appended into one file; loaders mix their entries into one tree", line, where), "",
				map[string]any{"sessionId": str(v, "id"), "firstHeaderLine": s.headerLine})
		}
		return
	}
	if first {
		s.headerMissing(typ, str(v, "id"), line)
	}
	s.entry(v, typ, line)
}

// headerMissing reports a first entry that is not a session header.
func (s *scan) headerMissing(typ, id string, line int64) {
	ev := map[string]any{"firstType": typ}
	why := "OpenClaw's repair refuses the file, and pi's loader rewrites it with a new header before the entries"
	if !s.opts.release().Has(openclaw.LoaderKeepsHeaderlessEntries) {
		why = "OpenClaw's repair refuses the file, and pi's loader rewrites it with a bare header, losing every entry"
	}
	run := "Run"
	if typ != "" && !sessionEntryType(typ) {
		why = "the file does not look like an OpenClaw transcript at all (first record type " + typ + ")"
		run = "If it is one, run"
		ev["foreign"] = true
	}
	s.add("header.missing", line, id, fmt.Sprintf("line %d is not a session header (it is a %q record); %s", line, typ, why), run+": clawdoctor repair --synthesize-header "+s.name, ev)
}

// entryType returns t as a string without allocating for the types OpenClaw writes (it was
// an allocation per entry).
func entryType(t []byte) string {
	switch string(t) {
	case "session":
		return "session"
	case "message":
		return "message"
	case "custom":
		return "custom"
	case "custom_message":
		return "custom_message"
	case "compaction":
		return "compaction"
	case "branch_summary":
		return "branch_summary"
	case "model_change":
		return "model_change"
	case "thinking_level_change":
		return "thinking_level_change"
	case "label":
		return "label"
	case "session_info":
		return "session_info"
	case "leaf":
		return "leaf"
	case "reset":
		return "reset"
	}
	return string(t)
}

func sessionEntryType(t string) bool {
	switch t {
	case "message", "custom", "custom_message", "compaction", "branch_summary", "model_change",
		"thinking_level_change", "label", "session_info", "leaf", "reset":
		return true
	}
	return false
}

func (s *scan) checkHeader(v jsonl.Value, line int64) {
	var bad []string
	id := v.Get("id")
	if id.Type() != jsonl.TypeString || strings.TrimSpace(string(id.GetStringBytes())) == "" {
		bad = append(bad, "no session id")
	}
	if ver := v.Get("version"); ver.Exists() {
		if ver.Type() != jsonl.TypeNumber {
			bad = append(bad, "version is not a number")
		} else if f := ver.GetFloat64(); f > 3 || f < 1 || f != float64(int(f)) {
			bad = append(bad, fmt.Sprintf("unsupported version %v", f))
		}
	}
	if ts := v.Get("timestamp"); ts.Type() != jsonl.TypeString {
		bad = append(bad, "no timestamp")
	} else if _, ok := parseISO(ts.GetStringBytes()); !ok {
		bad = append(bad, "timestamp is not ISO-8601")
	}
	if cwd := v.Get("cwd"); cwd.Exists() && cwd.Type() != jsonl.TypeString {
		bad = append(bad, "cwd is not a string")
	}
	if ps := v.Get("parentSession"); ps.Exists() && ps.Type() != jsonl.TypeString && ps.Type() != jsonl.TypeNull {
		bad = append(bad, "parentSession is not a string")
	}
	if len(bad) > 0 {
		s.add("header.invalid", line, str(v, "id"), fmt.Sprintf("the session header at line %d is invalid: %s; OpenClaw's strict loader refuses the file (invalid_session)", line, strings.Join(bad, ", ")), "",
			map[string]any{"problems": bad})
	}
}

// parseISO reads an ISO-8601 timestamp as epoch ms. The common "2026-05-01T08:00:00.000Z"
// shape is read by hand (time.Parse was a tenth of the audit's time on small entries).
func parseISO(b []byte) (int64, bool) {
	if ms, ok := fastISO(b); ok {
		return ms, true
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.000Z07:00", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, string(b)); err == nil {
			return t.UnixMilli(), true
		}
	}
	return 0, false
}

// fastISO reads YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z; ok is false for anything else.
func fastISO(b []byte) (int64, bool) {
	if len(b) < 20 || b[len(b)-1] != 'Z' || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	num := func(i, n int) (int, bool) {
		v := 0
		for _, c := range b[i : i+n] {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 2)
	d, ok3 := num(8, 2)
	h, ok4 := num(11, 2)
	mi, ok5 := num(14, 2)
	sec, ok6 := num(17, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 {
		return 0, false
	}
	ms := 0
	if frac := b[19 : len(b)-1]; len(frac) > 0 {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return 0, false
		}
		v, ok := num(20, len(frac)-1)
		if !ok {
			return 0, false
		}
		for k := len(frac) - 1; k < 3; k++ {
			v *= 10
		}
		for k := len(frac) - 1; k > 3; k-- {
			v /= 10
		}
		ms = v
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, 0, time.UTC)
	if t.Day() != d { // 2026-02-30 and the like: let time.Parse reject it
		return 0, false
	}
	return t.UnixMilli() + int64(ms), true
}

// msTime reads a message timestamp: epoch ms as a number or a numeric string, or an ISO string.
func msTime(v jsonl.Value) int64 {
	switch v.Type() {
	case jsonl.TypeNumber:
		f := v.GetFloat64()
		if f < 1e11 { // seconds
			f *= 1000
		}
		return int64(f)
	case jsonl.TypeString:
		b := v.GetStringBytes()
		if t, ok := parseISO(b); ok {
			return t
		}
		var f float64
		if _, err := fmt.Sscan(string(b), &f); err == nil {
			return int64(f)
		}
	}
	return 0
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func idByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == ':' || c == '-'
}

// idQueueLen is how many ids wait in scan.idq before they go into the index together (at most
// len(scan.idq); a variable so that a test can insert each id at once, as the scan did before).
var idQueueLen = 32

// queuedID is an entry whose id waits in scan.idq to go into the id index.
type queuedID struct {
	key, hash uint64
	node      int32
	line      int64
}

// queuedLookup returns the newest queued entry whose id has key k: it is the one the index
// will hold (the later of two entries with one id wins). Two different unpacked ids sharing a
// 64-bit hash (2^-63 a pair) would resolve here to the newer one, where the index keeps the
// first; the strings are not compared on this path, as parent links trust keys (see idKey).
func (s *scan) queuedLookup(k uint64) (int32, bool) {
	for j := s.nidq - 1; j >= 0; j-- {
		if s.idq[j].key == k {
			return s.idq[j].node, true
		}
	}
	return 0, false
}

// flushIDs puts the queued ids into the index, in file order. Inserting them one per entry
// as they were read cost a sixth of the audit of a transcript of tiny entries, nearly all of
// it waiting for the table's memory; touching the run's slots first lets those waits overlap.
func (s *scan) flushIDs() {
	q := s.idq[:s.nidq]
	var sink uint64
	for j := range q {
		q[j].hash = s.ids.hash(q[j].key)
		sink += s.ids.touch(q[j].hash)
	}
	s.touched += sink & 1 // keep the loads
	s.nidq = 0
	for _, e := range q {
		s.indexID(e.key, e.hash, e.node, e.line, nil)
	}
}

// indexID maps key (of hash h) to node i in the id index and reports a duplicate id. id is the
// entry's id text, or nil to take it from the index (the packed key or the cold copy, which
// is whole: longer ids are indexed at once, see entry).
func (s *scan) indexID(key, h uint64, i int32, line int64, id []byte) {
	prev, dup := s.ids.setHashed(key, h, i)
	if !dup {
		return
	}
	if id == nil {
		id = []byte(s.idStr(i))
	}
	if !s.sameID(prev, id) {
		// two different ids with one 64-bit hash: keep the first in the index (no finding)
		s.ids.setHashed(key, h, prev)
		return
	}
	s.dupIDs = true
	if s.dupKeys == nil {
		s.dupKeys = map[uint64]bool{}
	}
	s.dupKeys[key] = true
	pl, ids := s.det(prev).line, string(id)
	s.add("tree.duplicate-id", line, ids, fmt.Sprintf("entry id %s at line %d is already used at line %d; parent links to it are ambiguous and the later entry wins",
		ids, line, pl), replayHint(s.name), map[string]any{"firstLine": pl})
}

// sameID reports whether node i's id is id (keys of unpacked ids are hashes).
func (s *scan) sameID(i int32, id []byte) bool {
	if s.nd(i).flags&fKeyPacked != 0 {
		return true // packed: the key is the id
	}
	return s.str(s.rareOf(s.det(i)).id) == string(id[:min(len(id), maxCold)])
}

func modelName(provider, model string) string {
	if provider == "" && model == "" {
		return ""
	}
	return provider + "/" + model
}

func bytesTrim(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// validToolName reports whether name matches ^[A-Za-z0-9_-]+$.
func validToolName(name []byte) bool {
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return len(name) > 0
}

func hasNonTextBlocks(c jsonl.Value) bool {
	for _, b := range c.Elems() {
		if t := str(b, "type"); t != "text" && t != "" {
			return true
		}
	}
	return false
}

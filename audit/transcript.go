package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/clawdoctor/clawdoctor/jsonl"
	"github.com/clawdoctor/clawdoctor/openclaw"
)

// Options tune an audit run.
type Options struct {
	MaxLine    int           // line cap in bytes; 0 means jsonl.DefaultMaxLine
	MaxPerRule int           // findings kept per rule and file; 0 means 200 (the rest are counted)
	Now        time.Time     // clock for lock ages; zero means time.Now
	BatchTail  time.Duration // a turn whose first send came this long before its end is at risk; 0 means 30s
	Logs       []string      // gateway log files (openclaw-YYYY-MM-DD.log or console/journal text)
	Agent      string        // with a state dir: only this agent
	// Release is the OpenClaw release whose behaviour the findings describe; the zero value
	// means openclaw.Default.
	Release openclaw.Release
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
)

// node is what the audit keeps per entry: ids and a few facts, never the entry itself, so
// memory grows with the number of entries and not with their size. It holds no pointers.
type node struct {
	id, parent sref
	extra      sref  // user text preview, assistant error message or mirror text, result id, compaction firstKept, leaf target
	extra2     sref  // assistant/snapshot model "provider/model"; toolResult tool name or "message#<id>"
	line, ts   int64 // ts in ms; 0 unknown
	parentIdx  int32 // resolved after the scan; -1 none or dangling
	callStart  int32 // into scan.calls
	callN      int32
	kind, role uint8
	flags      uint16
}

// call is one tool call of an assistant message.
type call struct {
	node           int32
	id, name, text sref // text: preview of the sent message of a message-tool send
	invalid        uint8
	send           bool
}

// why a tool call is invalid (spec transcript.md §4.2)
var invalidReasons = []string{"", "no input (arguments and input are missing)", "no id", "blank name",
	"name longer than 64 characters", "name has characters outside A-Z a-z 0-9 _ -"}

// scan is the state of one transcript audit.
type scan struct {
	ctx     context.Context
	name    string
	opts    Options
	out     []Finding
	perRule map[string]int
	p       fastjson.Parser

	a          arena
	nodes      nodes
	ids        *idMap
	calls      []call
	values     int64 // parsed JSON values (header included)
	entries    int64
	header     bool
	headerLine int64
	crlf       int64
	crlfFirst  int64
	deliveries map[string]int64 // messageId → delivery time (ms) from gateway logs
	interned   map[string]sref  // model and tool names: few distinct values, stored once
	dupIDs     bool             // some id is used twice
	sizeHint   int64            // bytes expected, for buffer sizes; 0 unknown
}

// intern stores a short, often repeated string (a model or tool name) once.
func (s *scan) intern(b []byte) sref {
	if len(b) == 0 {
		return sref{}
	}
	if r, ok := s.interned[string(b)]; ok {
		return r
	}
	r := s.a.put(b)
	if len(s.interned) < 4096 {
		s.interned[string(b)] = r
	}
	return r
}

func (s *scan) str(r sref) string   { return string(s.a.bytes(r)) }
func (s *scan) nd(i int32) *node    { return s.nodes.at(i) }
func (s *scan) idOf(i int32) []byte { return s.a.bytes(s.nodes.at(i).id) }

// lookup returns the node with id.
func (s *scan) lookup(id []byte) (int32, bool) { return s.ids.get(id, s.idOf) }

// CheckTranscript audits one transcript stream. name is used only in findings. It returns the
// findings and the number of entries read; err is set only when the stream could not be read.
func CheckTranscript(ctx context.Context, r io.Reader, name string, opts Options) ([]Finding, int64, error) {
	return newScan(ctx, name, opts).run(r)
}

func newScan(ctx context.Context, name string, opts Options) *scan {
	return &scan{ctx: ctx, name: name, opts: opts, perRule: map[string]int{}, ids: newIDMap(), a: arena{cur: -1}, interned: map[string]sref{}}
}

func (s *scan) run(r io.Reader) ([]Finding, int64, error) {
	if err := s.read(r); err != nil {
		return s.out, s.entries, err
	}
	s.tree()
	s.suppressed()
	return s.out, s.entries, nil
}

func (s *scan) add(rule string, line int64, entryID, msg string, ev map[string]any) {
	s.perRule[rule]++
	if s.perRule[rule] > s.opts.maxPerRule() {
		return
	}
	s.out = append(s.out, newFinding(rule, s.name, line, entryID, msg, ev))
}

// suppressed adds a note to the last kept finding of each rule that hit the cap.
func (s *scan) suppressed() {
	max := s.opts.maxPerRule()
	for rule, n := range s.perRule {
		if n <= max {
			continue
		}
		for i := len(s.out) - 1; i >= 0; i-- {
			if s.out[i].Rule == rule {
				if s.out[i].Evidence == nil {
					s.out[i].Evidence = map[string]any{}
				}
				s.out[i].Evidence["moreNotShown"] = n - max
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
}

const batchBytes = 4 << 20

// readBatches reads r in a goroutine and sends batches of lines; free returns used batches.
// sizeHint (the stream size, 0 unknown) keeps buffers small for small files.
func readBatches(r io.Reader, maxLine int, sizeHint int64, out chan<- *batch, free chan *batch, done <-chan struct{}) {
	bufSize, batchCap := 256<<10, 256<<10 // unknown size: start modest, batches grow by append
	if sizeHint > 0 {
		bufSize = int(min(max(sizeHint, 4<<10), 1<<20))
		batchCap = int(min(max(sizeHint/2, 4<<10), batchBytes))
	}
	rd := jsonl.NewReader(r, jsonl.Options{MaxLine: maxLine, BufferSize: bufSize})
	get := func() *batch {
		select {
		case b := <-free:
			b.buf, b.lines, b.err = b.buf[:0], b.lines[:0], nil
			return b
		default:
			return &batch{buf: make([]byte, 0, batchCap)}
		}
	}
	b := get()
	send := func() bool {
		select {
		case out <- b:
			return true
		case <-done:
			return false
		}
	}
	for {
		l, err := rd.Next()
		if err != nil {
			b.err = err
			send()
			close(out)
			return
		}
		if len(b.buf)+len(l.Bytes) > cap(b.buf) && len(b.lines) > 0 {
			if !send() {
				close(out)
				return
			}
			b = get()
		}
		start := len(b.buf)
		b.buf = append(b.buf, l.Bytes...)
		l.Bytes = b.buf[start:len(b.buf):len(b.buf)]
		b.lines = append(b.lines, l)
	}
}

func (s *scan) read(r io.Reader) error {
	out := make(chan *batch, 2)
	free := make(chan *batch, 3)
	done := make(chan struct{})
	defer close(done)
	go readBatches(r, s.opts.MaxLine, s.sizeHint, out, free, done)
	for b := range out {
		for i := range b.lines {
			s.line(&b.lines[i])
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
		}
	}
	if s.crlf > 0 {
		s.add("jsonl.crlf", s.crlfFirst, "", fmt.Sprintf(
			"%d line(s) end in CRLF or hold a stray CR, first at line %d; OpenClaw reads CRLF line ends, but a stray CR between two entries or inside a string breaks the line. Run: clawdoctor repair %s",
			s.crlf, s.crlfFirst, s.name), map[string]any{"lines": s.crlf})
	}
	return nil
}

func (s *scan) line(l *jsonl.Line) {
	if l.Has(jsonl.FlagBOM) {
		s.add("jsonl.bom", l.Num, "", "the file starts with a UTF-8 byte order mark; OpenClaw's repair cannot parse the header line, finds no header and never repairs the file. Run: clawdoctor repair "+s.name, nil)
	}
	if l.Has(jsonl.FlagCRLF) || l.Has(jsonl.FlagLoneCR) {
		if s.crlf == 0 {
			s.crlfFirst = l.Num
		}
		s.crlf++
	}
	if l.Has(jsonl.FlagTooLong) {
		s.add("jsonl.line-too-long", l.Num, "", fmt.Sprintf("line %d is %d bytes, over the line cap; it was not checked (raise --max-line to check it)", l.Num, l.Size),
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
		s.add("jsonl.nul-bytes", l.Num, "", fmt.Sprintf("line %d holds %d NUL byte(s) (left by a crash or disk damage); the line cannot be read as JSON. Run: clawdoctor repair %s", l.Num, n, s.name),
			map[string]any{"nulBytes": n, "offset": l.Offset})
		b = bytes.ReplaceAll(b, []byte{0}, nil)
		if v, err := s.p.ParseBytes(b); err == nil {
			s.value(v, l.Num)
		}
		return
	case l.Has(jsonl.FlagInvalidUTF8):
		s.add("jsonl.invalid-utf8", l.Num, "", fmt.Sprintf("line %d holds bytes that are not valid UTF-8; strict loaders reject the line. Run: clawdoctor repair %s", l.Num, s.name),
			map[string]any{"offset": l.Offset})
		if v, err := s.p.ParseBytes(b); err == nil {
			s.value(v, l.Num)
		}
		return
	}
	v, err := s.p.ParseBytes(b)
	if err == nil {
		s.value(v, l.Num)
		return
	}
	if parts := splitConcatenated(b); len(parts) > 1 && l.Has(jsonl.FlagLoneCR) && bytes.Contains(b, []byte("}\r{")) {
		// entries separated by a lone CR (an old Mac line end): one unreadable line for OpenClaw
		s.add("jsonl.malformed-line", l.Num, "", fmt.Sprintf("line %d holds %d entries separated by lone CR bytes instead of newlines; OpenClaw reads it as one broken line and skips all of them. Run: clawdoctor repair %s", l.Num, len(parts), s.name),
			map[string]any{"loneCR": true, "objects": len(parts), "offset": l.Offset})
		for _, p := range parts {
			if v, err := s.p.ParseBytes(p); err == nil {
				s.value(v, l.Num)
			}
		}
		return
	} else if len(parts) > 1 {
		s.add("jsonl.concatenated", l.Num, "", fmt.Sprintf("line %d holds %d JSON objects glued together (a newline was lost between two appends); OpenClaw skips the whole line. Run: clawdoctor repair %s", l.Num, len(parts), s.name),
			map[string]any{"objects": len(parts), "offset": l.Offset})
		for _, p := range parts {
			if v, err := s.p.ParseBytes(p); err == nil {
				s.value(v, l.Num)
			}
		}
		return
	}
	ev := map[string]any{"offset": l.Offset, "error": err.Error(), "bytes": l.Size}
	what := "is not valid JSON"
	if l.Has(jsonl.FlagNoNewline) {
		what = "is torn (the last line, cut off without a newline: an interrupted write)"
		ev["torn"] = true
	}
	s.add("jsonl.malformed-line", l.Num, "", fmt.Sprintf("line %d %s; OpenClaw's repair drops it, so its entry and everything hanging off it are lost from context. Run: clawdoctor repair %s", l.Num, what, s.name), ev)
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

func str(v *fastjson.Value, keys ...string) string {
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

// value handles one parsed JSON value of the transcript.
func (s *scan) value(v *fastjson.Value, line int64) {
	s.values++
	first := s.values == 1
	if v.Type() != fastjson.TypeObject {
		s.add("jsonl.malformed-line", line, "", fmt.Sprintf("line %d is valid JSON but not an object (%s); transcripts hold one object per line", line, v.Type()), map[string]any{"jsonType": v.Type().String()})
		return
	}
	typ := string(v.GetStringBytes("type")) // a few distinct values: no allocation for short strings
	if typ == "session" {
		if first {
			s.header, s.headerLine = true, line
			s.checkHeader(v, line)
		} else {
			where := "after entries"
			if s.header {
				where = fmt.Sprintf("after the header at line %d", s.headerLine)
			}
			s.add("header.duplicate", line, str(v, "id"), fmt.Sprintf("line %d is a second session header (%s): two transcripts were appended into one file; loaders mix their entries into one tree", line, where),
				map[string]any{"sessionId": str(v, "id"), "firstHeaderLine": s.headerLine})
		}
		return
	}
	if first {
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
		s.add("header.missing", line, str(v, "id"), fmt.Sprintf("line %d is not a session header (it is a %q record); %s. %s: clawdoctor repair --synthesize-header %s", line, typ, why, run, s.name), ev)
	}
	s.entry(v, typ, line)
}

func sessionEntryType(t string) bool {
	switch t {
	case "message", "custom", "custom_message", "compaction", "branch_summary", "model_change",
		"thinking_level_change", "label", "session_info", "leaf", "reset":
		return true
	}
	return false
}

func (s *scan) checkHeader(v *fastjson.Value, line int64) {
	var bad []string
	id := v.Get("id")
	if id == nil || id.Type() != fastjson.TypeString || strings.TrimSpace(string(id.GetStringBytes())) == "" {
		bad = append(bad, "no session id")
	}
	if ver := v.Get("version"); ver != nil {
		if ver.Type() != fastjson.TypeNumber {
			bad = append(bad, "version is not a number")
		} else if f := ver.GetFloat64(); f > 3 || f < 1 || f != float64(int(f)) {
			bad = append(bad, fmt.Sprintf("unsupported version %v", f))
		}
	}
	if ts := v.Get("timestamp"); ts == nil || ts.Type() != fastjson.TypeString {
		bad = append(bad, "no timestamp")
	} else if _, ok := parseISO(string(ts.GetStringBytes())); !ok {
		bad = append(bad, "timestamp is not ISO-8601")
	}
	if cwd := v.Get("cwd"); cwd != nil && cwd.Type() != fastjson.TypeString {
		bad = append(bad, "cwd is not a string")
	}
	if ps := v.Get("parentSession"); ps != nil && ps.Type() != fastjson.TypeString && ps.Type() != fastjson.TypeNull {
		bad = append(bad, "parentSession is not a string")
	}
	if len(bad) > 0 {
		s.add("header.invalid", line, str(v, "id"), fmt.Sprintf("the session header at line %d is invalid: %s; OpenClaw's strict loader refuses the file (invalid_session)", line, strings.Join(bad, ", ")),
			map[string]any{"problems": bad})
	}
}

func parseISO(s string) (int64, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.000Z07:00", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMilli(), true
		}
	}
	return 0, false
}

// msTime reads a message timestamp: epoch ms as a number or a numeric string, or an ISO string.
func msTime(v *fastjson.Value) int64 {
	if v == nil {
		return 0
	}
	switch v.Type() {
	case fastjson.TypeNumber:
		f := v.GetFloat64()
		if f < 1e11 { // seconds
			f *= 1000
		}
		return int64(f)
	case fastjson.TypeString:
		s := string(v.GetStringBytes())
		if t, ok := parseISO(s); ok {
			return t
		}
		var f float64
		if _, err := fmt.Sscan(s, &f); err == nil {
			return int64(f)
		}
	}
	return 0
}

// textOf concatenates the text of a content value (string or text blocks); images counts the
// image blocks.
func textOf(c *fastjson.Value) (text string, images int) {
	if c == nil {
		return "", 0
	}
	switch c.Type() {
	case fastjson.TypeString:
		return string(c.GetStringBytes()), 0
	case fastjson.TypeArray:
		var sb strings.Builder
		for _, b := range c.GetArray() {
			switch str(b, "type") {
			case "text", "input_text":
				sb.Write(b.GetStringBytes("text"))
			case "image", "image_url", "input_image":
				images++
			}
		}
		return sb.String(), images
	}
	return "", 0
}

const maxImageBytes = 5 << 20 // decoded bytes; Anthropic's per-image limit

func (s *scan) images(c *fastjson.Value, line int64, id string) {
	if c == nil || c.Type() != fastjson.TypeArray {
		return
	}
	for i, b := range c.GetArray() {
		if str(b, "type") != "image" {
			continue
		}
		data := b.GetStringBytes("data")
		if data == nil {
			data = b.GetStringBytes("source", "data")
		}
		decoded := len(data) / 4 * 3
		if decoded > maxImageBytes {
			s.add("image.oversized", line, id, fmt.Sprintf("entry %s holds an inline %s image of about %.1f MB (block %d); providers reject images over 5 MB and the whole request fails. %s",
				id, str(b, "mimeType"), float64(decoded)/1e6, i, replayHint(s.name)),
				map[string]any{"decodedBytes": decoded, "block": i, "mimeType": str(b, "mimeType")})
		}
	}
}

// entry indexes one non-header entry and runs the per-entry checks.
func (s *scan) entry(v *fastjson.Value, typ string, line int64) {
	s.entries++
	n := node{line: line, parentIdx: -1}
	idb := v.GetStringBytes("id")
	n.id = s.a.put(idb)
	if p := v.Get("parentId"); p != nil && p.Type() == fastjson.TypeString {
		if ps := p.GetStringBytes(); len(ps) > 0 {
			n.parent = s.a.put(ps)
			n.flags |= fHasParent
		}
	}
	if string(v.GetStringBytes("appendMode")) == "side" {
		n.flags |= fSide
	}
	id := string(idb)
	switch typ {
	case "message":
		n.kind = kindMessage
		s.message(v, &n, id, line)
	case "custom_message":
		n.kind, n.role = kindCustomMessage, roleOther
	case "branch_summary":
		if len(v.GetStringBytes("summary")) > 0 {
			n.kind, n.role = kindBranchSummary, roleOther
		}
	case "compaction":
		n.kind = kindCompaction
		n.extra = s.a.put(v.GetStringBytes("firstKeptEntryId"))
	case "custom":
		if string(v.GetStringBytes("customType")) == "model-snapshot" {
			n.kind = kindSnapshot
			n.extra2 = s.intern([]byte(modelName(str(v, "data", "provider"), str(v, "data", "modelId"))))
			n.ts = msTime(v.Get("data", "timestamp"))
		}
	case "leaf":
		n.kind = kindLeaf
		n.extra = s.a.put(v.GetStringBytes("targetId"))
	}
	if n.ts == 0 {
		if ts, ok := parseISO(string(v.GetStringBytes("timestamp"))); ok {
			n.ts = ts
		}
	}
	i := s.nodes.add(n)
	if len(idb) > 0 {
		if prev, dup := s.ids.set(s.idOf(i), i, s.idOf); dup {
			s.dupIDs = true
			s.add("tree.duplicate-id", line, id, fmt.Sprintf("entry id %s at line %d is already used at line %d; parent links to it are ambiguous and the later entry wins. %s",
				id, line, s.nd(prev).line, replayHint(s.name)), map[string]any{"firstLine": s.nd(prev).line})
		}
	}
}

func modelName(provider, model string) string {
	if provider == "" && model == "" {
		return ""
	}
	return provider + "/" + model
}

func (s *scan) message(v *fastjson.Value, n *node, id string, line int64) {
	m := v.Get("message")
	var role []byte
	if m != nil && m.Type() == fastjson.TypeObject {
		role = m.GetStringBytes("role")
	}
	if len(role) == 0 {
		n.role = roleOther
		s.add("message.null-role", line, id, fmt.Sprintf("message entry %s at line %d has no role (null or missing); OpenClaw's replay cannot classify it and may crash or drop the turn. Run: clawdoctor repair %s", id, line, s.name), nil)
		return
	}
	if t := msTime(m.Get("timestamp")); t > 0 {
		n.ts = t
	}
	content := m.Get("content")
	switch string(role) {
	case "user":
		n.role = roleUser
		text, imgs := textOf(content)
		trimmed := strings.TrimSpace(text)
		if trimmed == RetryText {
			n.flags |= fRetryText
		}
		n.extra = s.a.putString(preview(text, 240))
		if trimmed == "" && imgs == 0 && !hasNonTextBlocks(content) {
			s.add("message.blank-user", line, id, fmt.Sprintf("user turn %s at line %d has no text; providers reject an empty user message, so every later request of this session fails. Run: clawdoctor repair %s", id, line, s.name), nil)
		}
	case "assistant":
		n.role = roleAssistant
		stop := string(m.GetStringBytes("stopReason"))
		if stop == "error" || stop == "aborted" {
			n.flags |= fError
		}
		provider, model := str(m, "provider"), str(m, "model")
		modelID := modelName(provider, model)
		n.extra2 = s.intern([]byte(modelID))
		if (provider == "openclaw" && (model == "delivery-mirror" || model == "gateway-injected")) ||
			m.Exists("openclawDeliveryMirror") || m.Exists("openclawMessageToolMirror") {
			n.flags |= fMirror
			t, _ := textOf(content)
			n.extra = s.a.putString(preview(t, 200))
		}
		arr := content.GetArray()
		if len(arr) > 0 {
			n.flags |= fHasContent
		}
		if stop == "error" {
			msg := str(m, "errorMessage")
			n.extra = s.a.putString(preview(msg, 300))
			if len(arr) == 0 {
				s.add("message.empty-error-assistant", line, id, fmt.Sprintf("assistant turn %s at line %d failed (stopReason error: %q) and has no content; some providers reject empty assistant turns on replay. Run: clawdoctor repair %s",
					id, line, preview(msg, 120), s.name), map[string]any{"errorMessage": preview(msg, 300), "model": modelID})
			}
		}
		n.callStart = int32(len(s.calls))
		for _, b := range arr {
			if !isToolCall(b.GetStringBytes("type")) {
				continue
			}
			c := call{node: int32(s.nodes.n)}
			var cid []byte
			for _, k := range []string{"id", "call_id", "toolCallId", "toolUseId", "tool_call_id", "tool_use_id"} {
				if cid = bytesTrim(b.GetStringBytes(k)); len(cid) > 0 {
					break
				}
			}
			c.id = s.a.put(cid)
			nameB := b.GetStringBytes("name")
			c.name = s.a.put(nameB)
			args := b.Get("arguments")
			if args == nil || args.Type() == fastjson.TypeNull {
				args = b.Get("input")
			}
			name := bytesTrim(nameB)
			switch {
			case args == nil || args.Type() == fastjson.TypeNull:
				c.invalid = 1
			case len(cid) == 0:
				c.invalid = 2
			case len(name) == 0:
				c.invalid = 3
			case len(name) > 64:
				c.invalid = 4
			case !validToolName(name):
				c.invalid = 5
			}
			if string(name) == "message" && args != nil && sendAction(args.GetStringBytes("action")) {
				c.send = true
				c.text = s.a.putString(preview(str(args, "message"), 120))
			}
			s.calls = append(s.calls, c)
		}
		n.callN = int32(len(s.calls)) - n.callStart
	case "toolResult", "tool":
		n.role = roleToolResult
		for _, k := range []string{"toolCallId", "toolUseId", "tool_call_id", "tool_use_id", "callId", "call_id"} {
			if rid := bytesTrim(m.GetStringBytes(k)); len(rid) > 0 {
				n.extra = s.a.put(rid)
				break
			}
		}
		if m.GetBool("isError") {
			n.flags |= fResultErr
		}
		tool := m.GetStringBytes("toolName")
		n.extra2 = s.intern(tool)
		if string(tool) == "message" {
			t, _ := textOf(content)
			if mid := messageIDRE.FindStringSubmatch(t); mid != nil {
				n.extra2 = s.a.putString("message#" + mid[1])
			}
		}
	default:
		n.role = roleOther
	}
	s.images(content, line, id)
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

var messageIDRE = regexp.MustCompile(`"?message_?[iI]d"?\s*[:=]\s*"?([A-Za-z0-9_.:-]+)`)

func hasNonTextBlocks(c *fastjson.Value) bool {
	for _, b := range c.GetArray() {
		if t := str(b, "type"); t != "text" && t != "" {
			return true
		}
	}
	return false
}

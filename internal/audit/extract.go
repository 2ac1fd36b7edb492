package audit

import (
	"bytes"
	"fmt"
	"hash/maphash"

	"github.com/clawdoctor/clawdoctor/internal/session"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// The per-entry reading of the audit is split in two: extract reads one entry's parsed value
// into a rec (its node, detail, calls and findings, strings kept in the batch's own arena),
// which depends on nothing but the line; apply then puts the rec into the scan's state (the id
// index, the logs, the findings) in file order. On a big transcript the extracting (the grammar
// check, the parse and the reading of fields: three quarters of the CPU on small entries) runs
// on every core over whole batches, and only apply stays serial.

// span is a string in an extractOut's arena.
type span struct{ off, n int32 }

// rec is what extract read of one line.
type rec struct {
	slow    bool  // not a plain entry (header, bad line, ...): line() reads it on the scan's goroutine
	checked error // jsonl.Check of the line, for a slow rec
	typ     string
	n       node   // parentIdx is set by apply
	d       detail // extra, model, rare and an assistant's callStart are set by apply
	extra   span   // becomes d.extra
	model   span   // interned into d.model
	id      span   // the entry id, whole
	rareID  bool   // keep the id's string (its key is a hash, not the packed id)
	extra2  span   // rare.extra2
	parent  span   // the parentId
	key     uint64 // idKey of the entry id; 0 none (the node holds it split, see nodes.add)
	pkey    uint64 // key of the parentId; 0 none
	calls   [2]int32
	finds   [2]int32
}

// xcall is a tool call as extract read it: the call with its strings in the arena.
type xcall struct {
	c              call
	id, text, name span
}

// pendingFinding is a finding extract made; apply adds it in order with the scan's hints.
type pendingFinding struct {
	rule, entryID, msg string
	hint               uint8 // hintNone, hintRepair, hintReplay
	line               int64
	ev                 map[string]any
}

const (
	hintNone uint8 = iota
	hintRepair
	hintReplay
)

// extractOut holds what extract read of a batch of lines besides their recs.
type extractOut struct {
	arena []byte
	calls []xcall
	finds []pendingFinding
}

func (o *extractOut) reset() {
	o.arena, o.calls = o.arena[:0], o.calls[:0]
	clear(o.finds) // the messages and evidence maps go to the garbage collector
	o.finds = o.finds[:0]
}

func (o *extractOut) put(b []byte) span {
	if len(b) == 0 {
		return span{}
	}
	off := len(o.arena)
	o.arena = append(o.arena, b...)
	return span{int32(off), int32(len(b))}
}

func (o *extractOut) bytes(sp span) []byte {
	return o.arena[sp.off : sp.off+sp.n : sp.off+sp.n]
}

// extractor reads entries; each goroutine that extracts has its own.
type extractor struct {
	seed     maphash.Seed
	doc      jsonl.Doc // the line being read
	memo     [8]fieldMemo
	memoNext int
	o        *extractOut // where the current line's strings, calls and findings go
	scratch  []byte
	// unpadded is the base64 rule of the release audited (openclaw.UnpaddedBase64).
	unpadded bool
}

func (x *extractor) key(id []byte) uint64 { return idKey(x.seed, id) }

func (x *extractor) add(rule string, line int64, entryID, msg string, hint uint8, ev map[string]any) {
	x.o.finds = append(x.o.finds, pendingFinding{rule: rule, entryID: entryID, msg: msg, hint: hint, line: line, ev: ev})
}

// line checks, parses and extracts one line of a batch into r. A line that is not a plain
// entry (not checked, not valid, not an object, a session header) comes back slow. The rec is
// written in place: built and returned, its 168 bytes were copied again for every line (2 %
// of the audit of small entries).
func (x *extractor) line(l *jsonl.Line, r *rec) {
	if !checkFirst(l) {
		*r = rec{slow: true}
		return
	}
	if !x.doc.Parse(l.Bytes) {
		*r = rec{slow: true, checked: jsonl.Check(l.Bytes)}
		return
	}
	v := x.doc.Root()
	if v.Type() != jsonl.TypeObject {
		*r = rec{slow: true}
		return
	}
	var f entryFields
	x.fields(v, &f)
	typ := entryType(f.typ.StringBytes())
	if typ == "session" {
		*r = rec{slow: true}
		return
	}
	x.entryOf(&f, typ, l.Num, r)
}

// fieldMemo is what entryFields.read and messageFields.read found in a line of one shape
// (jsonl.Doc.Shape): a line of the same shape has its fields at the same places of the tape,
// so the Values found for the first line are the next one's. Reading the keys of every entry
// and message was a tenth of the audit of small entries.
type fieldMemo struct {
	shape uint32
	f     entryFields
	m     messageFields
}

// fields reads v's entry fields into f (and, with f.pre, its message's), from the memo of the
// line's shape when there is one.
func (x *extractor) fields(v jsonl.Value, f *entryFields) {
	id := x.doc.Shape()
	if id == 0 {
		f.read(v)
		return
	}
	for k := range x.memo {
		if mm := &x.memo[k]; mm.shape == id {
			*f = mm.f
			return
		}
	}
	mm := &x.memo[x.memoNext%len(x.memo)]
	x.memoNext++
	mm.shape = 0
	mm.f, mm.m = entryFields{}, messageFields{}
	mm.f.read(v)
	if mm.f.message.Type() == jsonl.TypeObject {
		mm.m.read(mm.f.message)
		mm.f.pre = &mm.m
	}
	mm.shape = id
	*f = mm.f
}

// entryFields are the top-level fields of an entry that the checks read, each the first of
// its name as Get finds it. One pass over the object's keys reads them all: a Get per field
// was a sixth of the audit of small entries (a missing key is looked for twice).
type entryFields struct {
	typ, id, parentID, appendMode, message, summary, firstKept, customType, data, targetID, timestamp jsonl.Value
	pre                                                                                               *messageFields // message's fields, already read (fieldMemo); nil: read them
}

func (f *entryFields) read(v jsonl.Value) {
	for k, v := range v.Members() {
		var p *jsonl.Value
		switch string(k) {
		case "type":
			p = &f.typ
		case "id":
			p = &f.id
		case "parentId":
			p = &f.parentID
		case "appendMode":
			p = &f.appendMode
		case "message":
			p = &f.message
		case "summary":
			p = &f.summary
		case "firstKeptEntryId":
			p = &f.firstKept
		case "customType":
			p = &f.customType
		case "data":
			p = &f.data
		case "targetId":
			p = &f.targetID
		case "timestamp":
			p = &f.timestamp
		default:
			continue
		}
		if !p.Exists() {
			*p = v
		}
	}
}

// entry reads one non-header entry.
func (x *extractor) entry(v jsonl.Value, typ string, line int64, r *rec) {
	var f entryFields
	f.read(v)
	x.entryOf(&f, typ, line, r)
}

func (x *extractor) entryOf(f *entryFields, typ string, line int64, r *rec) {
	*r = rec{typ: typ, n: node{parentIdx: -1}, d: detail{line: line}}
	r.calls[0], r.calls[1] = int32(len(x.o.calls)), int32(len(x.o.calls))
	r.finds[0] = int32(len(x.o.finds))
	idb := f.id.StringBytes()
	r.key = x.key(idb)
	r.id = x.o.put(idb)
	r.rareID = r.key>>63 == 0 && r.key != 0 // not packed: keep the string for messages and the duplicate check
	if pb := f.parentID.StringBytes(); len(pb) > 0 {
		r.pkey = x.key(pb)
		r.parent = x.o.put(pb)
		r.n.flags |= fHasParent
	}
	if string(f.appendMode.StringBytes()) == "side" {
		r.n.flags |= fSide
	}
	switch typ {
	case "message":
		r.n.kind = kindMessage
		x.message(f.message, f.pre, r, idb, line)
	case "custom_message":
		r.n.kind, r.n.role = kindCustomMessage, roleOther
	case "branch_summary":
		if len(f.summary.StringBytes()) > 0 {
			r.n.kind, r.n.role = kindBranchSummary, roleOther
		}
	case "compaction":
		r.n.kind = kindCompaction
		fk := f.firstKept.StringBytes()
		r.extra, r.d.extraKey = x.o.put(fk), x.key(fk)
	case "custom":
		if string(f.customType.StringBytes()) == "model-snapshot" {
			r.n.kind = kindSnapshot
			r.model = x.o.put([]byte(modelName(str(f.data, "provider"), str(f.data, "modelId"))))
			r.d.ts = msTime(f.data.Get("timestamp"))
		}
	case "leaf":
		r.n.kind = kindLeaf
		t := f.targetID.StringBytes()
		r.extra, r.d.extraKey = x.o.put(t), x.key(t)
	}
	if r.d.ts == 0 {
		if ts, ok := parseISO(f.timestamp.StringBytes()); ok {
			r.d.ts = ts
		}
	}
	r.calls[1] = int32(len(x.o.calls))
	r.finds[1] = int32(len(x.o.finds))
}

// messageFields are the fields of a message the checks read, as entryFields.
type messageFields struct {
	role, timestamp, content, stopReason, provider, model, deliveryMirror, toolMirror, errorMessage, isError, toolName jsonl.Value
	resultIDs                                                                                                          [6]jsonl.Value // resultIDKeys, in that order
}

// resultIDKeys are where a tool result names its call, in the order they are read.
var resultIDKeys = [6]string{"toolCallId", "toolUseId", "tool_call_id", "tool_use_id", "callId", "call_id"}

func (f *messageFields) read(m jsonl.Value) {
	for k, v := range m.Members() {
		var p *jsonl.Value
		switch string(k) {
		case "role":
			p = &f.role
		case "timestamp":
			p = &f.timestamp
		case "content":
			p = &f.content
		case "stopReason":
			p = &f.stopReason
		case "provider":
			p = &f.provider
		case "model":
			p = &f.model
		case "openclawDeliveryMirror":
			p = &f.deliveryMirror
		case "openclawMessageToolMirror":
			p = &f.toolMirror
		case "errorMessage":
			p = &f.errorMessage
		case "isError":
			p = &f.isError
		case "toolName":
			p = &f.toolName
		case resultIDKeys[0]:
			p = &f.resultIDs[0]
		case resultIDKeys[1]:
			p = &f.resultIDs[1]
		case resultIDKeys[2]:
			p = &f.resultIDs[2]
		case resultIDKeys[3]:
			p = &f.resultIDs[3]
		case resultIDKeys[4]:
			p = &f.resultIDs[4]
		case resultIDKeys[5]:
			p = &f.resultIDs[5]
		default:
			continue
		}
		if !p.Exists() {
			*p = v
		}
	}
}

func (x *extractor) message(m jsonl.Value, pre *messageFields, r *rec, idb []byte, line int64) {
	var f messageFields
	var role []byte
	if m.Type() == jsonl.TypeObject {
		if pre != nil {
			f = *pre
		} else {
			f.read(m)
		}
		role = f.role.StringBytes()
	}
	if len(role) == 0 {
		r.n.role = roleOther
		id := string(idb)
		x.add("message.null-role", line, id, fmt.Sprintf("message entry %s at line %d has no role (null or missing); OpenClaw's replay cannot classify it and may crash or drop the turn", id, line), hintRepair, nil)
		return
	}
	if t := msTime(f.timestamp); t > 0 {
		r.d.ts = t
	}
	content := f.content
	switch string(role) {
	case "user":
		r.n.role = roleUser
		t := x.texts(content)
		if t.retry {
			r.n.flags |= fRetryText
		}
		r.extra = x.preview(&t, 240)
		if t.blank && t.images == 0 && !hasNonTextBlocks(content) {
			id := string(idb)
			x.add("message.blank-user", line, id, fmt.Sprintf("user turn %s at line %d has no text; providers reject an empty user message, so every later request of this session fails", id, line), hintRepair, nil)
		}
	case "assistant":
		r.n.role = roleAssistant
		stop := f.stopReason.StringBytes()
		if string(stop) == "error" || string(stop) == "aborted" {
			r.n.flags |= fError
		}
		provider, model := f.provider.StringBytes(), f.model.StringBytes()
		if len(provider) > 0 || len(model) > 0 {
			off := len(x.o.arena)
			x.o.arena = append(append(append(x.o.arena, provider...), '/'), model...)
			r.model = span{int32(off), int32(len(x.o.arena) - off)}
		}
		if (string(provider) == "openclaw" && (string(model) == "delivery-mirror" || string(model) == "gateway-injected")) ||
			f.deliveryMirror.Exists() || f.toolMirror.Exists() {
			r.n.flags |= fMirror
			t := x.texts(content)
			r.extra = x.preview(&t, 200)
		}
		nblocks := content.Len()
		if nblocks > 0 {
			r.n.flags |= fHasContent
		}
		if string(stop) == "error" {
			msg := string(f.errorMessage.StringBytes())
			r.extra = x.o.put([]byte(preview(msg, 300)))
			if nblocks == 0 {
				id := string(idb)
				x.add("message.empty-error-assistant", line, id, fmt.Sprintf("assistant turn %s at line %d failed (stopReason error: %q) and has no content; some providers reject empty assistant turns on replay",
					id, line, preview(msg, 120)), hintRepair, map[string]any{"errorMessage": preview(msg, 300), "model": string(x.o.bytes(r.model))})
			}
		}
		for _, b := range content.Elems() {
			if !isToolCall(b.GetStringBytes("type")) {
				continue
			}
			var c xcall
			var cid []byte
			for _, k := range []string{"id", "call_id", "toolCallId", "toolUseId", "tool_call_id", "tool_use_id"} {
				if cid = bytesTrim(b.GetStringBytes(k)); len(cid) > 0 {
					break
				}
			}
			c.c.key, c.id = x.key(cid), x.o.put(cid)
			nameB := b.GetStringBytes("name")
			c.name = x.o.put(nameB)
			args := b.Get("arguments")
			if t := args.Type(); t == jsonl.TypeNone || t == jsonl.TypeNull {
				args = b.Get("input")
			}
			name := bytesTrim(nameB)
			switch {
			case args.Type() == jsonl.TypeNone || args.Type() == jsonl.TypeNull:
				c.c.invalid = 1
			case len(cid) == 0:
				c.c.invalid = 2
			case len(name) == 0:
				c.c.invalid = 3
			case len(name) > 64:
				c.c.invalid = 4
			case !validToolName(name):
				c.c.invalid = 5
			}
			if string(name) == "message" && sendAction(args.GetStringBytes("action")) {
				c.c.send = true
				c.text = x.o.put([]byte(preview(str(args, "message"), 120)))
			}
			x.o.calls = append(x.o.calls, c)
			r.d.callN++
			r.n.flags |= fCalls
		}
	case "toolResult", "tool":
		r.n.role = roleToolResult
		for _, v := range f.resultIDs {
			if rid := bytesTrim(v.StringBytes()); len(rid) > 0 {
				r.extra, r.d.extraKey = x.o.put(rid), x.key(rid)
				break
			}
		}
		if f.isError.Type() == jsonl.TypeTrue {
			r.n.flags |= fResultErr
		}
		tool := f.toolName.StringBytes()
		r.model = x.o.put(tool)
		if string(tool) == "message" {
			if mid := messageID(content); mid != nil {
				r.extra2 = x.o.put(mid)
			}
		}
	default:
		r.n.role = roleOther
	}
	x.images(content, line, idb)
}

// preview puts t.previewN(n) into the arena.
func (x *extractor) preview(t *textInfo, n int) span {
	off := len(x.o.arena)
	x.o.arena = t.previewN(x.o.arena, n)
	return span{int32(off), int32(len(x.o.arena) - off)}
}

// textInfo is what the checks need of a message's text (string content or text blocks),
// found without copying more than the first textHead bytes of it.
type textInfo struct {
	head   []byte // the first textHead bytes of the concatenated text
	over   bool   // the text goes on after head
	tailWS bool   // and what follows head is only whitespace
	blank  bool   // only whitespace
	retry  bool   // exactly RetryText once trimmed
	images int
}

const textHead = 4 << 10

// previewN is preview(text, n) of the head, appended to dst (no string is built).
func (t *textInfo) previewN(dst []byte, n int) []byte {
	b := bytes.TrimSpace(t.head)
	if len(b) <= n && !(t.over && !t.tailWS) {
		return append(dst, b...)
	}
	if len(b) <= n {
		return append(append(dst, b...), "…"...)
	}
	cut := n
	for cut > 0 && b[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return append(append(dst, b[:cut]...), "…"...)
}

// texts reads the text of content into x.scratch (its first textHead bytes).
func (x *extractor) texts(c jsonl.Value) textInfo {
	t := textInfo{blank: true, tailWS: true}
	x.scratch = x.scratch[:0]
	piece := func(b []byte) {
		if t.blank && len(bytes.TrimSpace(b)) > 0 {
			t.blank = false
		}
		room := textHead - len(x.scratch)
		if len(b) <= room {
			x.scratch = append(x.scratch, b...)
			return
		}
		x.scratch = append(x.scratch, b[:room]...)
		t.over = true
		if t.tailWS && len(bytes.TrimSpace(b[room:])) > 0 {
			t.tailWS = false
		}
	}
	switch c.Type() {
	case jsonl.TypeString:
		piece(c.GetStringBytes())
	case jsonl.TypeArray:
		for _, b := range c.Elems() {
			switch string(b.GetStringBytes("type")) {
			case "text", "input_text":
				piece(b.GetStringBytes("text"))
			case "image", "image_url", "input_image":
				t.images++
			}
		}
	}
	t.head = x.scratch
	t.retry = (!t.over || t.tailWS) && string(bytes.TrimSpace(t.head)) == RetryText
	return t
}

// messageID finds the message id a message-tool result reports ("messageId": "…",
// message_id=…), looking only where the word "message" occurs: a long result is not scanned
// with a regexp (that was 61% of the audit's time on long message-tool results).
func messageID(c jsonl.Value) []byte {
	var out []byte
	each := func(b []byte) bool {
		for i := 0; ; {
			j := bytes.Index(b[i:], []byte("message"))
			if j < 0 {
				return false
			}
			k := i + j + len("message")
			i = k
			if k < len(b) && b[k] == '_' {
				k++
			}
			if k+1 >= len(b) || (b[k] != 'i' && b[k] != 'I') || b[k+1] != 'd' {
				continue
			}
			k += 2
			if k < len(b) && b[k] == '"' {
				k++
			}
			for k < len(b) && isSpace(b[k]) {
				k++
			}
			if k >= len(b) || (b[k] != ':' && b[k] != '=') {
				continue
			}
			k++
			for k < len(b) && isSpace(b[k]) {
				k++
			}
			if k < len(b) && b[k] == '"' {
				k++
			}
			e := k
			for e < len(b) && idByte(b[e]) {
				e++
			}
			if e > k {
				out = b[k:e]
				return true
			}
		}
	}
	switch c.Type() {
	case jsonl.TypeString:
		each(c.GetStringBytes())
	case jsonl.TypeArray:
		for _, b := range c.Elems() {
			if t := string(b.GetStringBytes("type")); (t == "text" || t == "input_text") && each(b.GetStringBytes("text")) {
				break
			}
		}
	}
	return out
}

const maxImageBytes = 5 << 20 // decoded bytes; Anthropic's per-image limit

// imageMime reports whether the first of mimeType, mediaType and media_type that names an image
// type exists, as OpenClaw's repair picks the block's mime.
func imageMime(b jsonl.Value) bool {
	for _, k := range [...]string{"mimeType", "mediaType", "media_type"} {
		if v := b.Get(k); v.Type() == jsonl.TypeString && session.ImageMime(string(v.GetStringBytes())) {
			return true
		}
	}
	return false
}

// images checks a message's image blocks. idb is the entry's id: it becomes a string only for
// a finding (one allocation an entry was a tenth of the audit's garbage).
func (x *extractor) images(c jsonl.Value, line int64, idb []byte) {
	if c.Type() != jsonl.TypeArray {
		return
	}
	for i, b := range c.Elems() {
		if str(b, "type") != "image" {
			continue
		}
		if d := b.Get("data"); d.Type() == jsonl.TypeString && imageMime(b) && session.CorruptImageBytes(d.GetStringBytes(), x.unpadded) {
			id := string(idb)
			x.add("image.corrupt", line, id, fmt.Sprintf("entry %s holds an image block (block %d) whose base64 data is not ASCII, not valid base64 or no image format OpenClaw knows; the repair of OpenClaw 2026.6.11 replaces it with the text %q, and providers reject it", id, i, session.CorruptImageText),
				hintRepair, map[string]any{"block": i})
		}
		data := b.GetStringBytes("data")
		if data == nil {
			data = b.GetStringBytes("source", "data")
		}
		decoded := len(data) / 4 * 3
		if decoded > maxImageBytes {
			id := string(idb)
			x.add("image.oversized", line, id, fmt.Sprintf("entry %s holds an inline %s image of about %.1f MB (block %d); providers reject images over 5 MB and the whole request fails",
				id, str(b, "mimeType"), float64(decoded)/1e6, i), hintReplay,
				map[string]any{"decodedBytes": decoded, "block": i, "mimeType": str(b, "mimeType")})
		}
	}
}

// entry indexes one parsed non-header entry and runs the per-entry checks (the slow path:
// the lines line() reads itself).
func (s *scan) entry(v jsonl.Value, typ string, line int64) {
	s.xo.reset()
	s.x.o = &s.xo
	var r rec
	s.x.entry(v, typ, line, &r)
	s.apply(&r, &s.xo)
}

// apply puts one extracted entry into the scan: its strings, calls and findings, then the
// tree (parent link, id index).
func (s *scan) apply(r *rec, o *extractOut) {
	s.entries++
	n, d := r.n, r.d
	line := d.line
	var rr rare
	if r.rareID {
		rr.id = s.cold.put(o.bytes(r.id))
	}
	d.extra = s.cold.put(o.bytes(r.extra))
	d.model = s.intern(o.bytes(r.model))
	if n.kind == kindMessage && n.role == roleAssistant {
		d.extraKey = uint64(s.calls.len()) // callStart
		for _, xc := range o.calls[r.calls[0]:r.calls[1]] {
			c := xc.c
			c.id, c.text = s.cold.put(o.bytes(xc.id)), s.cold.put(o.bytes(xc.text))
			c.name = s.intern(o.bytes(xc.name))
			s.calls.add(c)
		}
	}
	for _, f := range o.finds[r.finds[0]:r.finds[1]] {
		hint := ""
		switch f.hint {
		case hintRepair:
			hint = s.repairHint("")
		case hintReplay:
			hint = replayHint(s.name)
		}
		s.add(f.rule, f.line, f.entryID, f.msg, hint, f.ev)
	}
	rr.extra2 = s.cold.put(o.bytes(r.extra2))
	if rr != (rare{}) {
		d.rare = int32(s.rares.add(rr) + 1)
	}
	i := s.nodes.add(n, r.key)
	s.details.add(d)
	s.ident.note(line, r.key, r.pkey)
	if r.key == 0 {
		return // a file without ids (pi v1, or a foreign format) has no tree to check
	}
	switch {
	case r.pkey == 0:
		if s.roots < len(s.rootIdx) {
			s.rootIdx[s.roots] = i
		}
		s.roots++
	case i > 0 && s.keyOf(i-1) == r.pkey: // appends chain each entry to the one before it
		s.nd(i).parentIdx = i - 1
	default:
		if p, ok := s.lookup(r.pkey); ok {
			s.nd(i).parentIdx = p
		} else {
			s.pending.add(pendingParent{node: i, key: r.pkey, parent: s.cold.put(o.bytes(r.parent))})
		}
	}
	if idb := o.bytes(r.id); len(idb) > maxCold {
		// the cold copy of this id is cut: index it now, while its whole text is at hand
		s.flushIDs()
		s.indexID(r.key, s.ids.hash(r.key), i, line, idb)
		return
	}
	s.idq[s.nidq] = queuedID{key: r.key, node: i, line: line}
	if s.nidq++; s.nidq >= idQueueLen {
		s.flushIDs()
	}
}

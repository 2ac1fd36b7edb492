package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// LeafRule chooses how the active leaf of a transcript is found.
type LeafRule uint8

const (
	// LeafLastEntry is pi's rule (what OpenClaw's SessionManager uses on load): the leaf is the
	// last entry in file order, whatever its type (spec §2.9).
	LeafLastEntry LeafRule = iota
	// LeafAgentCore adds the newest OpenClaw agent-core rules: a "leaf" row moves the visible
	// leaf to its targetId; appendMode:"side" entries and entries of types outside the known
	// set do not move it; path walks skip leaf rows and follow the logical parent of entries
	// appended to the raw cursor while the visible leaf pointed elsewhere.
	LeafAgentCore
)

// IndexOptions tune BuildIndex.
type IndexOptions struct {
	MaxLine    int      // line cap of the jsonl.Reader; 0 means jsonl.DefaultMaxLine
	BufferSize int      // initial read buffer; 0 means jsonl.DefaultBufferSize
	Leaf       LeafRule // how ActiveLeaf is chosen
	// Valid decides whether a line is JSON. nil means jsonl.Valid (the same answers as
	// encoding/json.Valid, several times faster).
	Valid func([]byte) bool
	// TrimContent reads the first and last lines with content as OpenClaw does (trim.go,
	// content.trim()): a trimmed line is indexed with the offset and size of its bytes.
	TrimContent bool
}

// Node is what the index knows about one entry, without its body.
type Node struct {
	Index    int    // position among the entries, in file order (0-based)
	Line     int64  // 1-based line number
	Offset   int64  // byte offset of the line in the (decompressed) stream
	Size     int64  // bytes of the line including its terminator
	ID       string // "" when the entry has no string id (see HasID)
	HasID    bool
	ParentID string // "" for a root
	Parent   int    // index of the parent entry; NoParent for a root, Dangling when not found
	Type     string // the entry type ("" when missing or not a string)
	Role     string // message.role for message entries
	Side     bool   // appendMode is "side"
	// NoMessage: a message entry whose "message" is null or absent. pi's buildSessionContext
	// reads message.role of every message entry on the path, so such an entry makes it throw.
	NoMessage bool
	// NoParentKey: the entry has no parentId member at all (not even null). OpenClaw
	// 2026.6.11's SessionManager then takes the entry before it as its parent.
	NoParentKey bool
	InCycle     bool // the entry is on a parentId cycle
	// IDTruthy: the id is truthy to JavaScript (a non-empty string, a number other than 0,
	// true, an object or array). pi's SessionManager before 2026.6.11 takes the last entry's
	// id as its leaf, and its branch is empty when that id is not truthy.
	IDTruthy bool
}

// Parent values of a Node that has no resolved parent.
const (
	NoParent = -1 // parentId null, absent or "" (a root)
	Dangling = -2 // parentId names no entry in the file, or is not a string
)

// Problem is a line of the transcript that is not an entry: an invalid or too-long line, a
// valid JSON value that is not an object, or a stray "session" line after the header.
type Problem struct {
	Kind   ItemKind
	Line   int64
	Offset int64
	Size   int64
	Flags  jsonl.Flag
}

// Duplicate is an id used by more than one entry. Lookups resolve it to the last (as pi's
// Map.set does); Entries lists them all in file order.
type Duplicate struct {
	ID      string
	Entries []int
}

const (
	flagHasID uint8 = 1 << iota
	flagHasParent
	flagBadParent // parentId present but not a string
	flagSide
	flagCycle
	flagDupID      // the id is held by several entries
	flagParentPrev // parentId equals the previous entry's id (not stored again in the arena)
	flagNoMessage  // a message entry whose message is null or absent (pi's context throws on it)
)

const (
	flag2NoParentKey uint8 = 1 << iota // the entry has no parentId member at all
	flag2IDTruthy                      // the id is truthy to JavaScript
	flag2IDNull                        // the id is null
)

// node is the compact per-entry record: about 48 bytes plus the id bytes in the arena.
type node struct {
	offset int64
	line   int64
	size   uint32
	id     uint32 // offset of the id in the arena
	idLen  uint32
	pid    uint32 // offset of the parent id in the arena
	pidLen uint32
	parent int32
	typ    uint8
	role   uint8
	flags  uint8
	flags2 uint8 // flag2*: fits in the padding, costs nothing
}

// nodeList stores nodes in fixed-size chunks: growing it never copies what is there, so the
// peak memory of a big index is not twice its size, and there is no append slack to speak of.
type nodeList struct {
	chunks [][]node
	n      int
}

const chunkBits = 14

func (l *nodeList) at(i int32) *node { return &l.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }

func (l *nodeList) add(nd node) {
	switch {
	case len(l.chunks) == 0: // the first chunk grows from small, for small files
		l.chunks = append(l.chunks, make([]node, 0, 16))
	case l.n>>chunkBits == len(l.chunks):
		l.chunks = append(l.chunks, make([]node, 0, 1<<chunkBits))
	}
	c := &l.chunks[len(l.chunks)-1]
	*c = append(*c, nd)
	l.n++
}

type leafRow struct {
	target, appendParent        string
	targetNull, hasAppendParent bool
	appendParentNull            bool
}

// Index is the tree of one transcript: for every entry its line, offset, size, id, parent,
// type and role, and nothing of its body, so memory grows with the number of entries, not
// with their size. Entries themselves are loaded on demand with ReadEntry (seeking) or
// StreamEntries (one pass, for compressed files).
type Index struct {
	nodes    nodeList
	arena    []byte
	types    []string
	roles    []string
	byID     []int32 // entries with an id, sorted by id then file order
	childPos []int32 // children of entry i are children[childPos[i]:childPos[i+1]]
	children []int32
	roots    []int32
	dangling []int32
	cycles   []int32
	leafRows map[int32]leafRow
	logical  map[int32]int32 // agent-core logical parents
	rule     LeafRule
	leaf     int // -1 when none
	header   *Header
	headerAt int64
	problems []Problem
	blank    int64
	lines    int64
	bytes    int64
}

var knownTypeCodes = func() map[string]uint8 {
	m := map[string]uint8{"": 0}
	for i, t := range KnownTypes {
		m[t] = uint8(i + 1)
	}
	return m
}()

const otherCode = 255 // more distinct type or role names than a byte holds

func intern(table *[]string, s string) uint8 {
	for i, t := range *table {
		if t == s {
			return uint8(i)
		}
	}
	if len(*table) >= otherCode {
		return otherCode
	}
	*table = append(*table, s)
	return uint8(len(*table) - 1)
}

func lookupName(table []string, c uint8) string {
	if int(c) < len(table) {
		return table[c]
	}
	return "(other)"
}

// BuildIndex reads a transcript from r and indexes its entries. name is used in errors only.
// Bad lines become Problems; they never stop the index.
func BuildIndex(ctx context.Context, r io.Reader, name string, opts IndexOptions) (*Index, error) {
	r = jsonl.ContextReader(ctx, r)
	valid := opts.Valid
	if valid == nil {
		valid = jsonl.Valid
	}
	x := &Index{rule: opts.Leaf, leaf: -1, headerAt: 0}
	x.types = append([]string{""}, KnownTypes...)
	x.roles = []string{"", RoleUser, RoleAssistant, RoleToolResult}
	rd := jsonl.NewReader(r, jsonl.Options{MaxLine: opts.MaxLine, BufferSize: opts.BufferSize})
	sawParsed := false
	// TrimContent: a line with content that is JSON once its end is trimmed, kept until the
	// end of the stream shows whether it is the last line with content.
	var tail jsonl.Line
	var tailProblem, lastContent int64 = -1, 0
	seenContent := false
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		l, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		x.lines = l.Num
		x.bytes = l.Offset + l.Size
		if opts.TrimContent && !l.Has(jsonl.FlagBlank) {
			if !hasContent(&l) {
				x.blank++ // JavaScript white space only (NBSP, U+FEFF, ...): pi skips it as blank
				continue
			}
			lastContent = l.Num
			if !seenContent {
				seenContent = true
				if t, ok := startTrimmed(l); ok {
					l = t
				}
			}
		}
		if opts.TrimContent && !l.Has(jsonl.FlagBlank) && !valid(l.Bytes) {
			if t, ok := endTrimmed(l, valid); ok {
				tail = t
				tail.Bytes = append([]byte(nil), t.Bytes...)
				tailProblem = int64(len(x.problems))
			}
		}
		if err := x.addLine(l, valid, &sawParsed); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, l.Num, err)
		}
	}
	if tail.Num > 0 && tail.Num == lastContent && tailProblem == int64(len(x.problems))-1 {
		// the last line with content, read trimmed: its problem goes, its entry comes last
		x.problems = x.problems[:tailProblem]
		if err := x.addLine(tail, valid, &sawParsed); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, tail.Num, err)
		}
	}
	x.finish()
	return x, nil
}

// IndexFile opens path (plain, gzip or zstd) and indexes it. Offsets are in the decompressed
// stream: ReadEntry needs the plain file, StreamEntries works for any.
func IndexFile(ctx context.Context, path string, opts IndexOptions, counted func(int64)) (*Index, error) {
	f, err := jsonl.Open(path, counted)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return BuildIndex(ctx, f, path, opts)
}

// fields read from one entry line without decoding its body.
type lineFields struct {
	typ, id, parent, role, appendMode   []byte
	target, appendParent                []byte
	hasID, hasParent, badParent, hasTyp bool
	hasTarget, hasAppendParent          bool
	targetNull, appendParentNull        bool
	hasMessage, messageNull             bool
	hasParentKey                        bool
	idTruthy                            bool // the id is truthy to JavaScript
	idNull                              bool // the id is null
}

func readFields(b []byte) (lineFields, error) {
	var f lineFields
	_, err := eachMember(b, 0, func(m member) bool {
		k := b[m.key.start+1 : m.key.end-1]
		if bytes.IndexByte(k, '\\') >= 0 {
			var s string
			if json.Unmarshal(b[m.key.start:m.key.end], &s) != nil {
				return true
			}
			k = []byte(s)
		}
		v := b[m.val.start:m.val.end]
		switch string(k) {
		case "type":
			f.typ, f.hasTyp = jsonobj.Unquote(v)
		case "id":
			f.id, f.hasID = jsonobj.UnquoteJS(v)
			f.idTruthy, f.idNull = jsTruthy(v), string(v) == "null"
		case "parentId":
			f.hasParentKey = true
			f.parent, f.hasParent = jsonobj.UnquoteJS(v)
			f.badParent = !f.hasParent && string(v) != "null"
		case "appendMode":
			f.appendMode, _ = jsonobj.Unquote(v)
		case "targetId":
			f.target, f.hasTarget = jsonobj.UnquoteJS(v)
			f.targetNull = string(v) == "null"
		case "appendParentId":
			f.appendParent, _ = jsonobj.UnquoteJS(v)
			f.hasAppendParent = true
			f.appendParentNull = string(v) == "null"
		case "message":
			f.role = nil
			f.hasMessage, f.messageNull = true, string(v) == "null"
			if len(v) > 0 && v[0] == '{' {
				if rv, ok, _ := lookup(v, 0, "role"); ok {
					f.role, _ = jsonobj.Unquote(v[rv.start:rv.end])
				}
			}
		}
		return true
	})
	return f, err
}

func (x *Index) addLine(l jsonl.Line, valid func([]byte) bool, sawParsed *bool) error {
	problem := func(k ItemKind) {
		x.problems = append(x.problems, Problem{Kind: k, Line: l.Num, Offset: l.Offset, Size: l.Size, Flags: l.Flags})
	}
	switch {
	case l.Has(jsonl.FlagTooLong):
		problem(ItemInvalid)
		return nil
	case l.Has(jsonl.FlagBlank):
		x.blank++
		return nil
	case !valid(l.Bytes):
		problem(ItemInvalid)
		return nil
	}
	b := trimWS(l.Bytes)
	if b[0] != '{' {
		*sawParsed = true
		problem(ItemNotObject)
		return nil
	}
	f, err := readFields(b)
	if err != nil {
		problem(ItemInvalid) // a validator that disagrees with the walker: keep the line as bad
		return nil
	}
	first := !*sawParsed
	*sawParsed = true
	if f.hasTyp && string(f.typ) == TypeSession {
		if !first {
			problem(ItemStrayHeader)
			return nil
		}
		h, _, err := DecodeHeader(l.Bytes)
		if err != nil {
			return err
		}
		x.header = &h
		x.headerAt = l.Num
		return nil
	}
	if l.Size > math.MaxUint32 {
		return fmt.Errorf("line of %d bytes is too long to index", l.Size)
	}
	if x.nodes.n >= math.MaxInt32-1 {
		return errors.New("too many entries to index")
	}
	nd := node{offset: l.Offset, line: l.Num, size: uint32(l.Size), parent: NoParent}
	if f.hasTyp {
		if c, ok := knownTypeCodes[string(f.typ)]; ok {
			nd.typ = c
		} else {
			nd.typ = intern(&x.types, string(f.typ))
		}
	}
	if f.role != nil {
		nd.role = intern(&x.roles, string(f.role))
	}
	if f.hasTyp && string(f.typ) == TypeMessage && (!f.hasMessage || f.messageNull) {
		nd.flags |= flagNoMessage
	}
	var err2 error
	if f.hasID {
		nd.flags |= flagHasID
		nd.id, nd.idLen, err2 = x.store(f.id)
	}
	if f.hasParent && len(f.parent) > 0 {
		nd.flags |= flagHasParent
		if k := int32(x.nodes.n) - 1; k >= 0 && x.nodes.at(k).flags&flagHasID != 0 && bytes.Equal(x.idOf(k), f.parent) {
			nd.flags |= flagParentPrev // the usual linear chain: no second copy of the id
		} else {
			nd.pid, nd.pidLen, err2 = x.store(f.parent)
		}
	}
	if f.badParent {
		nd.flags |= flagBadParent
	}
	if !f.hasParentKey {
		nd.flags2 |= flag2NoParentKey
	}
	if f.idTruthy {
		nd.flags2 |= flag2IDTruthy
	}
	if f.idNull {
		nd.flags2 |= flag2IDNull
	}
	if string(f.appendMode) == "side" {
		nd.flags |= flagSide
	}
	if err2 != nil {
		return err2
	}
	if string(f.typ) == TypeLeaf {
		if x.leafRows == nil {
			x.leafRows = map[int32]leafRow{}
		}
		x.leafRows[int32(x.nodes.n)] = leafRow{
			target: string(f.target), targetNull: !f.hasTarget,
			appendParent: string(f.appendParent), hasAppendParent: f.hasAppendParent,
			appendParentNull: f.appendParentNull,
		}
	}
	x.nodes.add(nd)
	return nil
}

func (x *Index) store(s []byte) (off, n uint32, err error) {
	if len(x.arena)+len(s) > math.MaxUint32 {
		return 0, 0, errors.New("entry ids exceed 4 GiB")
	}
	off = uint32(len(x.arena))
	x.arena = append(x.arena, s...)
	return off, uint32(len(s)), nil
}

func (x *Index) idOf(i int32) []byte {
	nd := x.nodes.at(i)
	return x.arena[nd.id : nd.id+nd.idLen]
}

func (x *Index) pidOf(i int32) []byte {
	nd := x.nodes.at(i)
	if nd.flags&flagParentPrev != 0 {
		return x.idOf(i - 1)
	}
	return x.arena[nd.pid : nd.pid+nd.pidLen]
}

// find returns the last entry (in file order) with id, or -1.
func (x *Index) find(id []byte) int32 {
	lo, hi := 0, len(x.byID)
	for lo < hi { // first position with idOf > id
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(x.idOf(x.byID[m]), id) <= 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 || !bytes.Equal(x.idOf(x.byID[lo-1]), id) {
		return -1
	}
	return x.byID[lo-1]
}

func (x *Index) finish() {
	n := x.nodes.n
	for i := range x.nodes.n {
		if x.nodes.at(int32(i)).flags&flagHasID != 0 {
			x.byID = append(x.byID, int32(i))
		}
	}
	slices.SortFunc(x.byID, func(a, b int32) int { // by id, then file order
		if c := bytes.Compare(x.idOf(a), x.idOf(b)); c != 0 {
			return c
		}
		return int(a - b)
	})

	for k := 1; k < len(x.byID); k++ {
		if bytes.Equal(x.idOf(x.byID[k-1]), x.idOf(x.byID[k])) {
			x.nodes.at(x.byID[k-1]).flags |= flagDupID
			x.nodes.at(x.byID[k]).flags |= flagDupID
		}
	}
	counts := make([]int32, n+1)
	for i := range x.nodes.n {
		nd := x.nodes.at(int32(i))
		switch {
		case nd.flags&flagBadParent != 0:
			nd.parent = Dangling
		case nd.flags&flagHasParent != 0:
			// Fast path: the parent is usually the entry just before, with a unique id.
			if nd.flags&flagParentPrev != 0 && x.nodes.at(int32(i-1)).flags&flagDupID == 0 {
				nd.parent = int32(i - 1)
				counts[i]++
			} else if p := x.find(x.pidOf(int32(i))); p >= 0 {
				nd.parent = p
				counts[p+1]++
			} else {
				nd.parent = Dangling
			}
		}
		switch nd.parent {
		case NoParent:
			x.roots = append(x.roots, int32(i))
		case Dangling:
			x.dangling = append(x.dangling, int32(i))
		}
	}
	for i := 1; i <= n; i++ {
		counts[i] += counts[i-1]
	}
	x.childPos = counts
	x.children = make([]int32, counts[n])
	fill := make([]int32, n)
	for i := range x.nodes.n {
		if p := x.nodes.at(int32(i)).parent; p >= 0 {
			x.children[counts[p]+fill[p]] = int32(i)
			fill[p]++
		}
	}
	x.markCycles()
	if n > 0 {
		x.leaf = n - 1
	}
	if x.rule == LeafAgentCore {
		x.agentCore()
	}
}

// markCycles flags the entries whose parent chain loops. Each entry has at most one parent,
// so following parents from any entry either ends or enters exactly one cycle.
func (x *Index) markCycles() {
	state := make([]uint8, x.nodes.n) // 0 new, 1 on the current walk, 2 done
	var walk []int32
	for s := range x.nodes.n {
		walk = walk[:0]
		i := int32(s)
		for i >= 0 && state[i] == 0 {
			state[i] = 1
			walk = append(walk, i)
			i = x.nodes.at(int32(i)).parent
		}
		if i >= 0 && state[i] == 1 { // came back to this walk: i..end of walk is a cycle
			for k := len(walk) - 1; k >= 0; k-- {
				x.nodes.at(walk[k]).flags |= flagCycle
				x.cycles = append(x.cycles, walk[k])
				if walk[k] == i {
					break
				}
			}
		}
		for _, w := range walk {
			state[w] = 2
		}
	}
	slices.Sort(x.cycles)
}

// agentCore replays the agent-core leaf and append-cursor rules over the file order.
func (x *Index) agentCore() {
	known := map[uint8]bool{}
	for _, t := range []string{TypeMessage, TypeThinkingLevelChange, TypeModelChange, TypeCompaction,
		TypeBranchSummary, TypeCustom, TypeCustomMessage, TypeLabel, TypeSessionInfo} {
		known[knownTypeCodes[t]] = true
	}
	visible, cursor := int32(-1), int32(-1) // entry indexes; -1 is null
	resolve := func(id string, null bool) int32 {
		if null || id == "" {
			return -1
		}
		return x.find([]byte(id))
	}
	for i := range x.nodes.n {
		nd := x.nodes.at(int32(i))
		if lr, ok := x.leafRows[int32(i)]; ok && nd.typ == knownTypeCodes[TypeLeaf] {
			visible = resolve(lr.target, lr.targetNull)
			if lr.hasAppendParent {
				cursor = resolve(lr.appendParent, lr.appendParentNull)
			} else {
				cursor = visible
			}
			continue
		}
		moves := known[nd.typ] && nd.flags&flagSide == 0
		if moves && cursor != visible && nd.parent >= 0 && nd.parent == cursor {
			if x.logical == nil {
				x.logical = map[int32]int32{}
			}
			x.logical[int32(i)] = visible
		}
		cursor = int32(i)
		if moves {
			visible = int32(i)
		}
	}
	x.leaf = int(visible)
}

// Len returns the number of entries (the header and bad lines excluded).
func (x *Index) Len() int { return x.nodes.n }

// Node returns what the index knows about entry i.
func (x *Index) Node(i int) Node {
	nd := x.nodes.at(int32(i))
	n := Node{
		Index: i, Line: nd.line, Offset: nd.offset, Size: int64(nd.size),
		HasID: nd.flags&flagHasID != 0, Parent: int(nd.parent),
		Type: lookupName(x.types, nd.typ), Role: lookupName(x.roles, nd.role),
		Side: nd.flags&flagSide != 0, InCycle: nd.flags&flagCycle != 0, NoMessage: nd.flags&flagNoMessage != 0,
		NoParentKey: nd.flags2&flag2NoParentKey != 0, IDTruthy: nd.flags2&flag2IDTruthy != 0,
	}
	if n.HasID {
		n.ID = string(x.idOf(int32(i)))
	}
	if nd.flags&flagHasParent != 0 {
		n.ParentID = string(x.pidOf(int32(i)))
	}
	return n
}

// LastLeafEmpty reports whether pi's buildSessionContext before 2026.6.11 finds no messages
// for the file's leaf: the last JSON value that is not a "session" line is not an object (it
// is the fallback leaf, with no type and no parent), or is an entry whose id is null (an
// explicit null leaf: "navigated to before the first entry").
func (x *Index) LastLeafEmpty() bool {
	if x.nodes.n == 0 {
		return false
	}
	last := x.nodes.at(int32(x.nodes.n - 1))
	for _, p := range x.problems {
		if p.Kind == ItemNotObject && p.Line > last.line {
			return true
		}
	}
	return last.flags2&flag2IDNull != 0
}

// LastIDTruthy reports whether the last JSON value of the file that is not a "session" line
// is an entry whose id is truthy to JavaScript (Node.IDTruthy): a value that is not an object
// has no id. pi's SessionManager before 2026.6.11 makes that id its leaf; getBranch() is
// empty when it is not truthy.
func (x *Index) LastIDTruthy() bool {
	if x.nodes.n == 0 {
		return false
	}
	last := x.nodes.at(int32(x.nodes.n - 1))
	for _, p := range x.problems {
		if p.Kind == ItemNotObject && p.Line > last.line {
			return false
		}
	}
	return last.flags2&flag2IDTruthy != 0
}

// Lookup returns the entry with id (the last one when the id is duplicated, as pi resolves it).
func (x *Index) Lookup(id string) (int, bool) {
	i := x.find([]byte(id))
	return int(i), i >= 0
}

// Children returns the entries whose parent is entry i, in file order.
func (x *Index) Children(i int) []int { return ints(x.children[x.childPos[i]:x.childPos[i+1]]) }

// Roots returns the entries with no parent (parentId null, absent or ""), in file order.
func (x *Index) Roots() []int { return ints(x.roots) }

// Dangling returns the entries whose parentId names no entry of the file (or is not a
// string), in file order. pi's path walk stops at them, silently cutting the history.
func (x *Index) Dangling() []int { return ints(x.dangling) }

// Cycles returns the entries that lie on a parentId cycle, in file order. pi would loop forever
// walking such a path; Path stops when it comes back.
func (x *Index) Cycles() []int { return ints(x.cycles) }

// Duplicates returns the ids held by more than one entry, sorted by id.
func (x *Index) Duplicates() []Duplicate {
	var out []Duplicate
	for i := 0; i < len(x.byID); {
		j := i + 1
		for j < len(x.byID) && bytes.Equal(x.idOf(x.byID[i]), x.idOf(x.byID[j])) {
			j++
		}
		if j-i > 1 {
			out = append(out, Duplicate{ID: string(x.idOf(x.byID[i])), Entries: ints(x.byID[i:j])})
		}
		i = j
	}
	return out
}

// ActiveLeaf returns the active leaf under the index's LeafRule, or -1 when there is none (no
// entries, or an agent-core leaf row pointing at null or at an unknown id).
func (x *Index) ActiveLeaf() int { return x.leaf }

// ActivePath returns the path from the root to the active leaf (nil when there is no leaf).
func (x *Index) ActivePath() []int {
	if x.leaf < 0 {
		return nil
	}
	return x.Path(x.leaf)
}

// parentOf is the parent used by path walks under the index's rule.
func (x *Index) parentOf(i int32) int32 {
	p := x.nodes.at(int32(i)).parent
	if x.rule != LeafAgentCore {
		return p
	}
	if lp, ok := x.logical[i]; ok {
		p = lp
	}
	leafCode := knownTypeCodes[TypeLeaf]
	for steps := 0; p >= 0 && x.nodes.at(p).typ == leafCode && steps <= x.nodes.n; steps++ {
		lr := x.leafRows[p]
		if lr.targetNull || lr.target == "" {
			return NoParent
		}
		p = x.find([]byte(lr.target))
	}
	return p
}

// Path returns the entries from the root down to entry i, following parentId (with the
// agent-core redirections when the index uses LeafAgentCore). The walk stops at a root, at a
// dangling parent, or when it would come back to an entry already on the path (a cycle).
func (x *Index) Path(i int) []int {
	var rev []int
	var seen map[int32]bool // only needed on cycles
	for cur := int32(i); cur >= 0; cur = x.parentOf(cur) {
		if x.nodes.at(cur).flags&flagCycle != 0 || x.rule == LeafAgentCore {
			if seen == nil {
				seen = map[int32]bool{}
			}
			if seen[cur] {
				break
			}
			seen[cur] = true
		}
		rev = append(rev, int(cur))
	}
	slices.Reverse(rev)
	return rev
}

// Header returns the decoded header and its line number, or nil when the first line that
// parses is not a header.
func (x *Index) Header() (*Header, int64) { return x.header, x.headerAt }

// Problems returns the lines that are not entries (invalid, too long, not an object, stray
// headers), in file order. Blank lines are only counted (Blank).
func (x *Index) Problems() []Problem { return x.problems }

// Blank returns the number of blank lines.
func (x *Index) Blank() int64 { return x.blank }

// Lines returns the number of lines read, and Bytes the bytes of the (decompressed) stream.
func (x *Index) Lines() int64 { return x.lines }

// Bytes returns the size of the (decompressed) stream read.
func (x *Index) Bytes() int64 { return x.bytes }

func ints(s []int32) []int {
	out := make([]int, len(s))
	for i, v := range s {
		out[i] = int(v)
	}
	return out
}

// ErrChanged reports that the file no longer holds, at the indexed offset, the entry the index
// recorded: it was modified after indexing.
var ErrChanged = errors.New("file changed since it was indexed")

// ReadEntry reads and decodes entry i from ra (the plain file the index was built from).
func (x *Index) ReadEntry(ra io.ReaderAt, i int) (*Entry, error) {
	nd := x.nodes.at(int32(i))
	buf := make([]byte, nd.size)
	n, err := ra.ReadAt(buf, nd.offset)
	if n < len(buf) {
		if err == nil || errors.Is(err, io.EOF) {
			err = fmt.Errorf("%w: file is shorter", ErrChanged)
		}
		return nil, &LineError{Line: nd.line, Err: err}
	}
	return x.decodeAt(i, buf)
}

func (x *Index) decodeAt(i int, buf []byte) (*Entry, error) {
	nd := x.nodes.at(int32(i))
	buf = bytes.TrimSuffix(buf, []byte("\n"))
	buf = bytes.TrimSuffix(buf, []byte("\r"))
	if nd.line == 1 {
		buf = bytes.TrimPrefix(buf, []byte{0xEF, 0xBB, 0xBF})
	}
	e, err := DecodeEntry(buf)
	if err != nil {
		return nil, &LineError{Line: nd.line, Err: fmt.Errorf("%w: %v", ErrChanged, err)}
	}
	if nd.flags&flagHasID != 0 && e.ID != string(x.idOf(int32(i))) {
		return nil, &LineError{Line: nd.line, Err: ErrChanged}
	}
	return e, nil
}

// ReadEntries reads the given entries (for example a path) from ra, in the order given.
func (x *Index) ReadEntries(ra io.ReaderAt, idx []int) ([]*Entry, error) {
	out := make([]*Entry, 0, len(idx))
	for _, i := range idx {
		e, err := x.ReadEntry(ra, i)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// StreamEntries reads the stream the index was built from once more (r must yield the same
// decompressed bytes, so compressed files work) and calls fn for each wanted entry, in file
// order. Memory stays bounded by the line cap, whatever the number of wanted entries.
func (x *Index) StreamEntries(ctx context.Context, r io.Reader, want []int, fn func(i int, e *Entry) error) error {
	r = jsonl.ContextReader(ctx, r)
	sorted := slices.Clone(want)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	maxLine := 1
	for _, i := range sorted {
		maxLine = max(maxLine, int(x.nodes.at(int32(i)).size))
	}
	rd := jsonl.NewReader(r, jsonl.Options{MaxLine: maxLine})
	k := 0
	for n := 0; k < len(sorted); n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		l, err := rd.Next()
		if err == io.EOF {
			return &LineError{Line: x.nodes.at(int32(sorted[k])).line, Err: fmt.Errorf("%w: stream ended early", ErrChanged)}
		}
		if err != nil {
			return err
		}
		for k < len(sorted) && x.nodes.at(int32(sorted[k])).line == l.Num {
			i := sorted[k]
			if x.nodes.at(int32(i)).offset != l.Offset {
				return &LineError{Line: l.Num, Err: ErrChanged}
			}
			e, err := x.decodeAt(i, l.Bytes)
			if err != nil {
				return err
			}
			if err := fn(i, e); err != nil {
				return err
			}
			k++
		}
	}
	return nil
}

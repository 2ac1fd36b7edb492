package agentdb

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
)

// The audit, export and every other reader of a session's events read them through
// Transcript. On a database SQLite reads in place (no WAL frames, no hot journal: the file is
// the whole state, opened immutable), Transcript reads the rows straight from the file's
// b-trees (https://sqlite.org/fileformat2.html): the (session_id, seq) index gives the rowids
// in seq order, and each row is found in the table b-tree, most often in the leaf the last
// one was in. The same rows, values and order as the SQL query (TestRawEqualsSQL on the real
// 2026.8.1 and 2026.9.6 databases and generated ones), without SQLite's virtual machine, a
// read(2) per page and database/sql's copies: on the 512 MiB limits database this was most of
// the audit's CPU time. Anything this reader does not expect (a layout, a record shape, a
// damaged page) sends the session back to SQL from the seq reached, so a doubt costs speed,
// never a row.

// rawTable is what the reader needs to know of a database, read once (DB.raw).
type rawTable struct {
	f         *os.File
	pageSize  int
	usable    int
	pages     int64
	tableRoot int64
	indexRoot int64
	slots     [16]int8 // by record position: the index into columns' result (rawSpec.cols), or -1

	spare sync.Pool // *cursorBufs

	mu       sync.Mutex
	interior map[int64][]byte // interior pages, read once each (about 1 % of the file)
	cached   int
}

// maxInteriorCache bounds the bytes of interior pages kept.
const maxInteriorCache = 64 << 20

// errRaw marks what the raw reader does not handle; the caller goes on with SQL.
var errRaw = errors.New("raw read")

func rawErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errRaw}, args...)...)
}

// rawSpec names a rowid table, an index of it on (session_id, seq), and the record columns
// a cursor decodes (columns' result, in this order; "" for none). The first two are always
// session_id and seq; the first need must exist in the table.
type rawSpec struct {
	table string
	index string // "" for the table's first automatic index (its PRIMARY KEY)
	cols  [5]string
	need  int
}

// eventsSpec is transcript_events by its primary key; identitySpec is
// transcript_event_identities by its (session_id, seq) index of 2026.9
// (idx_agent_transcript_event_identity_sequence), the order IdentityMismatches reads them in.
var (
	eventsSpec   = rawSpec{table: "transcript_events", cols: [5]string{"session_id", "seq", "event_json", "event_zstd", "event_utf8_bytes"}, need: 3}
	identitySpec = rawSpec{table: "transcript_event_identities", index: "idx_agent_transcript_event_identity_sequence",
		cols: [5]string{"session_id", "seq", "event_id", "parent_id", ""}, need: 4}
)

// rawReader returns the database's raw reader of events, or nil when its layout is not one
// it reads (see openRaw); it is set up once.
func (db *DB) rawReader(ctx context.Context) *rawTable {
	db.rawOnce.Do(func() {
		if db.Copied || db.noRaw {
			return
		}
		rt, err := db.openRaw(ctx, eventsSpec)
		if err == nil {
			db.raw = rt
		}
	})
	return db.raw
}

// rawIdentityReader is rawReader of the identity rows.
func (db *DB) rawIdentityReader(ctx context.Context) *rawTable {
	db.rawIDOnce.Do(func() {
		if db.Copied || db.noRaw || db.columns["transcript_event_identities"] == nil {
			return
		}
		rt, err := db.openRaw(ctx, identitySpec)
		if err == nil {
			db.rawID = rt
		}
	})
	return db.rawID
}

// openRaw checks everything the raw reader assumes of spec's table, from SQLite's own view of
// the schema: a rowid table whose index on (session_id, seq) is the one named (for
// transcript_events its PRIMARY KEY, its first automatic index), not partial, keys in BINARY
// ascending order, UTF-8 text, and columns with no default but NULL (a row written before
// an ALTER TABLE ADD COLUMN has no value for it on disk: NULL is then what SQL reads too).
func (db *DB) openRaw(ctx context.Context, spec rawSpec) (*rawTable, error) {
	var tableSQL string
	var tableRoot int64
	if err := db.conn.QueryRowContext(ctx, `SELECT sql, rootpage FROM sqlite_master WHERE type = 'table' AND name = ?`, spec.table).Scan(&tableSQL, &tableRoot); err != nil {
		return nil, err
	}
	if strings.Contains(strings.ToUpper(tableSQL), "WITHOUT ROWID") {
		return nil, rawErrorf("a WITHOUT ROWID table")
	}
	index := spec.index
	if index == "" {
		index = "sqlite_autoindex_" + spec.table + "_1"
	}
	var indexRoot int64
	var indexSQL sql.NullString
	if err := db.conn.QueryRowContext(ctx, `SELECT rootpage, sql FROM sqlite_master WHERE type = 'index' AND name = ? AND tbl_name = ?`, index, spec.table).Scan(&indexRoot, &indexSQL); err != nil {
		return nil, err
	}
	if indexSQL.Valid != (spec.index != "") {
		return nil, rawErrorf("index %s is not the one expected", index)
	}
	var partial int
	if err := db.conn.QueryRowContext(ctx, `SELECT partial FROM pragma_index_list(?) WHERE name = ?`, spec.table, index).Scan(&partial); err != nil {
		return nil, err
	}
	if partial != 0 {
		return nil, rawErrorf("index %s is partial", index)
	}
	// the walks compare keys as bytes, in ascending order: a key column of another collation
	// (COLLATE NOCASE) or in descending order would have them skip entries
	var idx []string
	rows, err := db.conn.QueryContext(ctx, `SELECT name, desc, coll FROM pragma_index_xinfo(?) WHERE key ORDER BY seqno`, index)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var n, coll sql.NullString
		var desc int
		if err := rows.Scan(&n, &desc, &coll); err != nil {
			rows.Close()
			return nil, err
		}
		if desc != 0 || !strings.EqualFold(coll.String, "BINARY") {
			rows.Close()
			return nil, rawErrorf("index %s orders %s by %s (desc %d)", index, n.String, coll.String, desc)
		}
		idx = append(idx, n.String)
	}
	rows.Close()
	if len(idx) != 2 || idx[0] != "session_id" || idx[1] != "seq" {
		return nil, rawErrorf("index %s is on %v", index, idx)
	}
	rt := &rawTable{tableRoot: tableRoot, indexRoot: indexRoot, interior: map[int64][]byte{}}
	cids := [5]int{-1, -1, -1, -1, -1}
	rows, err = db.conn.QueryContext(ctx, `SELECT cid, name, dflt_value IS NULL, hidden FROM pragma_table_xinfo(?) ORDER BY cid`, spec.table)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var cid, hidden int
		var name string
		var noDefault bool
		if err := rows.Scan(&cid, &name, &noDefault, &hidden); err != nil {
			rows.Close()
			return nil, err
		}
		if hidden != 0 {
			rows.Close()
			return nil, rawErrorf("a hidden or generated column")
		}
		for slot, c := range spec.cols {
			if c != "" && c == name {
				if !noDefault {
					rows.Close()
					return nil, rawErrorf("column %s has a default", name)
				}
				cids[slot] = cid
			}
		}
	}
	rows.Close()
	for slot := range spec.need {
		if cids[slot] < 0 {
			return nil, rawErrorf("column %s missing", spec.cols[slot])
		}
	}
	for i := range rt.slots {
		rt.slots[i] = -1
	}
	for slot, col := range cids {
		if col >= len(rt.slots) {
			return nil, rawErrorf("column %d past the %d the reader decodes", col, len(rt.slots))
		}
		if col >= 0 {
			rt.slots[col] = int8(slot)
		}
	}
	f, err := os.Open(db.Path)
	if err != nil {
		return nil, err
	}
	var h [headerSize]byte
	st, err := f.Stat()
	if err == nil {
		_, err = f.ReadAt(h[:], 0)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	ps := int(binary.BigEndian.Uint16(h[16:18]))
	if ps == 1 {
		ps = 65536
	}
	if !bytes.Equal(h[:16], sqliteMagic) || ps < 512 || ps&(ps-1) != 0 || binary.BigEndian.Uint32(h[56:60]) != 1 {
		f.Close()
		return nil, rawErrorf("not a UTF-8 database of a known page size")
	}
	rt.f, rt.pageSize, rt.usable, rt.pages = f, ps, ps-int(h[20]), st.Size()/int64(ps)
	return rt, nil
}

func (rt *rawTable) close() {
	if rt != nil && rt.f != nil {
		rt.f.Close()
	}
}

// rawCursor reads one session's rows.
type rawCursor struct {
	rt      *rawTable
	session []byte
	batch   []rawEntry // rowids of the next rows, in seq order
	pos     int
	lastSeq int64
	more    bool   // the index may hold more entries after batch
	win     window // leaf and overflow pages
	ileaf   []byte // the index leaf collect reads
	leaf    []byte // the table leaf the last row was in
	leafN   int64
	parent  rawParent // the interior page above leaf
	payload []byte
	visits  int64 // pages collect visited for this batch
}

type rawEntry struct{ seq, rowid int64 }

const (
	rawBatch  = 4096
	winPages  = 64 // most pages read at once
	maxLevels = 40
)

func (rt *rawTable) cursor(session string) *rawCursor {
	c := &rawCursor{rt: rt, session: []byte(session), lastSeq: -1 << 63, more: true}
	if b, ok := rt.spare.Get().(*cursorBufs); ok {
		c.batch, c.win.buf, c.ileaf, c.leaf, c.payload = b.batch[:0], b.win[:0], b.ileaf[:0], b.leaf[:0], b.payload[:0]
	}
	return c
}

// cursorBufs are the buffers of a finished cursor, kept for the next session's (a window
// and a batch of a quarter MiB each per session were most of what the reader allocated).
type cursorBufs struct {
	batch                     []rawEntry
	win, ileaf, leaf, payload []byte
}

// release hands c's buffers to the next cursor; c must not be used after. Nil is allowed.
func (c *rawCursor) release() {
	if c == nil {
		return
	}
	if cap(c.payload) <= maxSparePayload {
		c.rt.spare.Put(&cursorBufs{batch: c.batch, win: c.win.buf, ileaf: c.ileaf, leaf: c.leaf, payload: c.payload})
	}
	*c = rawCursor{}
}

// maxSparePayload bounds the payload buffer a released cursor passes on (rows of up to 64 MiB
// grow it).
const maxSparePayload = 4 << 20

// page returns page n. Interior pages are copies, cached while the cache has room; others are
// slices of a window of pages read together, valid until the next call. The window doubles
// while reads go on where it ended (a session's leaves lie mostly side by side) and halves on
// a jump (sessions written side by side by a live gateway), so scattered rows do not each cost
// a quarter MiB.
func (c *rawCursor) page(n int64) ([]byte, error) {
	rt := c.rt
	if n < 1 || n > rt.pages {
		return nil, rawErrorf("page %d past the end (%d pages)", n, rt.pages)
	}
	hdr := 0
	if n == 1 {
		hdr = headerSize
	}
	// a page of the window is a leaf most times: no lock and no lookup for it
	p, ok := c.win.have(rt, n)
	if !ok || p[hdr] == 0x02 || p[hdr] == 0x05 {
		rt.mu.Lock()
		q, ok := rt.interior[n]
		rt.mu.Unlock()
		if ok {
			return q, nil
		}
	}
	if !ok {
		var err error
		if p, err = c.win.get(rt, n); err != nil {
			return nil, err
		}
	}
	if t := p[hdr]; t == 0x02 || t == 0x05 { // interior: a copy, which recursion cannot move
		p = append([]byte(nil), p...)
		rt.mu.Lock()
		if rt.cached < maxInteriorCache {
			rt.interior[n] = p
			rt.cached += len(p)
		}
		rt.mu.Unlock()
	}
	return p, nil
}

// window is a run of pages read with one pread.
type window struct {
	buf  []byte
	lo   int64 // page number of buf's first page
	size int64 // pages to read next time
}

// have returns page n when the window holds it.
func (w *window) have(rt *rawTable, n int64) ([]byte, bool) {
	ps := int64(rt.pageSize)
	if n >= w.lo && n < w.lo+int64(len(w.buf))/ps {
		return w.buf[(n-w.lo)*ps : (n-w.lo+1)*ps], true
	}
	return nil, false
}

func (w *window) get(rt *rawTable, n int64) ([]byte, error) {
	if p, ok := w.have(rt, n); ok {
		return p, nil
	}
	ps := int64(rt.pageSize)
	have := int64(len(w.buf)) / ps
	switch {
	case w.size == 0:
		w.size = 8
	case n == w.lo+have:
		w.size = min(2*w.size, winPages)
	default:
		w.size = max(w.size/2, 1)
	}
	k := min(w.size, rt.pages-n+1)
	if int64(cap(w.buf)) < k*ps {
		w.buf = make([]byte, winPages*ps)
	}
	w.buf = w.buf[:k*ps]
	if m, err := rt.f.ReadAt(w.buf, (n-1)*ps); m < len(w.buf) {
		// a file cut short since it was opened: never pages of an earlier window
		w.buf = w.buf[:0]
		if err == nil || errors.Is(err, io.EOF) {
			err = rawErrorf("page %d: the file is shorter than when it was opened", n)
		}
		return nil, err
	}
	w.lo = n
	return w.buf[:ps], nil
}

// entry decodes the next row of the session: its index entry and its columns (rawSpec.cols),
// or io.EOF. A row that is not the index entry's (session, seq) is an error.
func (c *rawCursor) entry() (e rawEntry, cols [5]value, err error) {
	if c.pos == len(c.batch) {
		if !c.more {
			return e, cols, io.EOF
		}
		c.batch, c.pos, c.visits = c.batch[:0], 0, 0
		if _, err := c.collect(c.rt.indexRoot, 0); err != nil {
			return e, cols, err
		}
		c.more = len(c.batch) == rawBatch // else the session's entries (or the index) ended
		if len(c.batch) == 0 {
			c.more = false
			return e, cols, io.EOF
		}
	}
	e = c.batch[c.pos]
	rec, err := c.row(e.rowid)
	if err != nil {
		return e, cols, err
	}
	if cols, err = c.columns(rec); err != nil {
		return e, cols, fmt.Errorf("%w (rowid %d)", err, e.rowid)
	}
	if !cols[0].text || !bytes.Equal(cols[0].b, c.session) || !cols[1].isInt || cols[1].i != e.seq {
		return e, cols, rawErrorf("rowid %d is not the index's (session, seq)", e.rowid)
	}
	return e, cols, nil
}

// next returns the next event of the session (eventsSpec): seq, event_json, event_zstd,
// event_utf8_bytes (valid: sizeOK), or io.EOF.
func (c *rawCursor) next() (seq int64, json, zstd []byte, size int64, sizeOK bool, err error) {
	e, cols, err := c.entry()
	if err != nil {
		return 0, nil, nil, 0, false, err
	}
	if cols[2].text {
		json = cols[2].b
	} else if !cols[2].null {
		return 0, nil, nil, 0, false, rawErrorf("rowid %d: event_json is neither text nor NULL", e.rowid)
	}
	if cols[3].blob {
		zstd = cols[3].b
	} else if !cols[3].null {
		return 0, nil, nil, 0, false, rawErrorf("rowid %d: event_zstd is neither a blob nor NULL", e.rowid)
	}
	switch {
	case cols[4].isInt:
		size, sizeOK = cols[4].i, true
	case !cols[4].null:
		return 0, nil, nil, 0, false, rawErrorf("rowid %d: event_utf8_bytes is not an integer", e.rowid)
	}
	c.pos++
	c.lastSeq = e.seq
	return e.seq, json, zstd, size, sizeOK, nil
}

// nextIdentity returns the next identity row of the session (identitySpec): seq, event_id and
// parent_id (nil for NULL), or io.EOF. The bytes are valid until the next call.
func (c *rawCursor) nextIdentity() (seq int64, eventID, parentID []byte, err error) {
	e, cols, err := c.entry()
	if err != nil {
		return 0, nil, nil, err
	}
	if !cols[2].text {
		return 0, nil, nil, rawErrorf("rowid %d: event_id is not text", e.rowid)
	}
	if cols[3].text {
		parentID = cols[3].b
	} else if !cols[3].null {
		return 0, nil, nil, rawErrorf("rowid %d: parent_id is neither text nor NULL", e.rowid)
	}
	c.pos++
	c.lastSeq = e.seq
	return e.seq, cols[2].b, parentID, nil
}

// collect appends to batch the index entries of the session after lastSeq, in order, from the
// subtree at page n; done is set once an entry past the session (or a full batch) was met.
func (c *rawCursor) collect(n int64, depth int) (done bool, err error) {
	p, h, ncell, interior, err := c.indexPage(n, depth)
	if err != nil {
		return false, err
	}
	for i := range ncell {
		child, session, seq, rowid, err := c.indexCell(p, n, h, i, interior)
		if err != nil {
			return false, err
		}
		cmp := bytes.Compare(session, c.session)
		if cmp < 0 || cmp == 0 && seq <= c.lastSeq {
			continue // this entry, and the left subtree before it, come before what is wanted
		}
		if interior {
			if done, err := c.collect(child, depth+1); done || err != nil {
				return done, err
			}
		}
		if cmp > 0 {
			return true, nil
		}
		if seq <= c.lastBatchSeq() {
			return false, rawErrorf("index page %d out of order", n)
		}
		c.batch = append(c.batch, rawEntry{seq, rowid})
		if len(c.batch) == rawBatch {
			return true, nil // the next batch starts after it (next sets lastSeq row by row)
		}
	}
	if interior {
		return c.collect(rightChild(p, h), depth+1)
	}
	return false, nil
}

// indexPage reads page n of the (session_id, seq) index for a walk at depth: its bytes (a
// leaf is copied to c.ileaf, so an overflowing key cannot move the window away from it), the
// offset of its cell pointers, its cell count and whether it is interior.
func (c *rawCursor) indexPage(n int64, depth int) (p []byte, h, ncell int, interior bool, err error) {
	if depth > maxLevels {
		return nil, 0, 0, false, rawErrorf("index deeper than %d levels", maxLevels)
	}
	// a damaged tree whose pages name each other would be walked again and again within
	// the depth bound: no walk of a tree visits more pages than the file has
	if c.visits++; c.visits > c.rt.pages+maxLevels {
		return nil, 0, 0, false, rawErrorf("index pages visited more than once")
	}
	if p, err = c.page(n); err != nil {
		return nil, 0, 0, false, err
	}
	hdr := 0
	if n == 1 {
		hdr = headerSize
	}
	kind := p[hdr]
	if kind != 0x02 && kind != 0x0a {
		return nil, 0, 0, false, rawErrorf("page %d is not an index page", n)
	}
	if kind == 0x0a {
		c.ileaf = append(c.ileaf[:0], p...)
		p = c.ileaf
	}
	interior = kind == 0x02
	h = hdr + 8
	if interior {
		h += 4
	}
	ncell = int(binary.BigEndian.Uint16(p[hdr+3:]))
	if h+2*ncell > len(p) {
		return nil, 0, 0, false, rawErrorf("page %d: cells past the page", n)
	}
	return p, h, ncell, interior, nil
}

// indexCell decodes cell i of index page p (n; cell pointers from h): its left child when
// the page is interior, and its entry. The session bytes are valid until the next cell is read
// (an overflowing key is assembled in c.payload), so a walk that goes down the child first
// reads the child with indexChild and the cell after.
func (c *rawCursor) indexCell(p []byte, n int64, h, i int, interior bool) (child int64, session []byte, seq, rowid int64, err error) {
	off := int(binary.BigEndian.Uint16(p[h+2*i:]))
	if interior {
		if child, err = c.indexChild(p, n, h, i); err != nil {
			return 0, nil, 0, 0, err
		}
		off += 4
	}
	key, err := c.cellPayload(p, n, off, false)
	if err != nil {
		return 0, nil, 0, 0, err
	}
	session, seq, rowid, err = indexKey(key)
	if err != nil {
		return 0, nil, 0, 0, fmt.Errorf("%w (page %d)", err, n)
	}
	return child, session, seq, rowid, nil
}

// indexChild is the left child of cell i of the interior index page p.
func (c *rawCursor) indexChild(p []byte, n int64, h, i int) (int64, error) {
	off := int(binary.BigEndian.Uint16(p[h+2*i:]))
	if off+4 > c.rt.usable {
		return 0, rawErrorf("page %d: cell past the page", n)
	}
	return int64(binary.BigEndian.Uint32(p[off:])), nil
}

// rightChild is the right-most child of an interior page whose cell pointers start at h (its
// header's last four bytes).
func rightChild(p []byte, h int) int64 {
	return int64(binary.BigEndian.Uint32(p[h-4:]))
}

func (c *rawCursor) lastBatchSeq() int64 {
	if len(c.batch) == 0 {
		return c.lastSeq
	}
	return c.batch[len(c.batch)-1].seq
}

// row returns the record of rowid from the table b-tree. Most rows are in the leaf the last
// one was in; most others in a leaf of the same parent, which row then searches alone instead
// of descending from the root (a descent per leaf was a tenth of the reader's time).
func (c *rawCursor) row(rowid int64) ([]byte, error) {
	if len(c.leaf) > 0 {
		if rec, ok, err := c.inLeaf(c.leaf, c.leafN, rowid); ok || err != nil {
			return rec, err
		}
	}
	n, lo, hi := c.rt.tableRoot, int64(math.MinInt64), int64(math.MaxInt64)
	if par := &c.parent; par.page != nil && rowid > par.lo && rowid <= par.hi {
		n, lo, hi = par.n, par.lo, par.hi
	}
	for depth := 0; ; depth++ {
		if depth > maxLevels {
			return nil, rawErrorf("table deeper than %d levels", maxLevels)
		}
		p, err := c.page(n)
		if err != nil {
			return nil, err
		}
		hdr := 0
		if n == 1 {
			hdr = headerSize
		}
		switch p[hdr] {
		case 0x0d:
			// the window may move on: keep the leaf's own bytes
			c.leaf, c.leafN = append(c.leaf[:0], p...), n
			rec, ok, err := c.inLeaf(c.leaf, n, rowid)
			if err == nil && !ok {
				err = rawErrorf("rowid %d is not in the table", rowid)
			}
			return rec, err
		case 0x05:
			ncell := int(binary.BigEndian.Uint16(p[hdr+3:]))
			if hdr+12+2*ncell > len(p) {
				return nil, rawErrorf("page %d: cells past the page", n)
			}
			// interior pages are copies (page), which stay valid: this one is the parent of
			// the leaf below unless a page below it is interior too
			c.parent = rawParent{page: p, n: n, lo: lo, hi: hi}
			next := int64(binary.BigEndian.Uint32(p[hdr+8:]))
			key := func(i int) (int64, error) {
				off := int(binary.BigEndian.Uint16(p[hdr+12+2*i:]))
				if off+5 > len(p) {
					return 0, rawErrorf("page %d: cell past the page", n)
				}
				k, m := readVarint(p[off+4:])
				if m == 0 {
					return 0, rawErrorf("page %d: bad key", n)
				}
				return int64(k), nil
			}
			l, h := 0, ncell // the first cell whose key >= rowid
			for l < h {
				m := (l + h) / 2
				k, err := key(m)
				if err != nil {
					return nil, err
				}
				if k >= rowid {
					h = m
				} else {
					l = m + 1
				}
			}
			// the child's rowids are above the key before it and at most its own key
			if l > 0 {
				k, err := key(l - 1)
				if err != nil {
					return nil, err
				}
				lo = max(lo, k)
			}
			if l < ncell {
				off := int(binary.BigEndian.Uint16(p[hdr+12+2*l:]))
				next = int64(binary.BigEndian.Uint32(p[off:]))
				k, err := key(l)
				if err != nil {
					return nil, err
				}
				hi = min(hi, k)
			}
			n = next
		default:
			return nil, rawErrorf("page %d is not a table page", n)
		}
	}
}

// rawParent is the table interior page row last went through, and the rowids its subtree
// holds: (lo, hi].
type rawParent struct {
	page   []byte
	n      int64
	lo, hi int64
}

// inLeaf finds rowid in the table leaf p (page n): ok is false when it is not there.
func (c *rawCursor) inLeaf(p []byte, n, rowid int64) ([]byte, bool, error) {
	hdr := 0
	if n == 1 {
		hdr = headerSize
	}
	ncell := int(binary.BigEndian.Uint16(p[hdr+3:]))
	if hdr+8+2*ncell > len(p) {
		return nil, false, rawErrorf("page %d: cells past the page", n)
	}
	cellRowid := func(i int) (int64, int, error) {
		off := int(binary.BigEndian.Uint16(p[hdr+8+2*i:]))
		if off >= len(p) {
			return 0, 0, rawErrorf("page %d: cell past the page", n)
		}
		_, k := readVarint(p[off:])
		if k == 0 {
			return 0, 0, rawErrorf("page %d: bad cell", n)
		}
		r, k2 := readVarint(p[off+k:])
		if k2 == 0 {
			return 0, 0, rawErrorf("page %d: bad cell", n)
		}
		return int64(r), off, nil
	}
	lo, hi := 0, ncell
	for lo < hi {
		m := (lo + hi) / 2
		r, _, err := cellRowid(m)
		if err != nil {
			return nil, false, err
		}
		if r >= rowid {
			hi = m
		} else {
			lo = m + 1
		}
	}
	if lo == ncell {
		return nil, false, nil
	}
	r, off, err := cellRowid(lo)
	if err != nil || r != rowid {
		return nil, false, err
	}
	rec, err := c.cellPayload(p, n, off, true)
	return rec, err == nil, err
}

// cellPayload returns the payload of the cell at off (its payload-size varint; for a table
// leaf, then the rowid), overflow pages followed.
func (c *rawCursor) cellPayload(p []byte, n int64, off int, table bool) ([]byte, error) {
	size, k := readVarint(p[off:])
	if k == 0 || size > maxRawPayload {
		return nil, rawErrorf("page %d: bad payload size", n)
	}
	off += k
	u := c.rt.usable
	var local int
	if table {
		_, k2 := readVarint(p[off:])
		if k2 == 0 {
			return nil, rawErrorf("page %d: bad rowid", n)
		}
		off += k2
		local = int(localPayload(int64(size), int64(u)))
	} else {
		local = indexLocal(int(size), u)
	}
	if off+local > u {
		return nil, rawErrorf("page %d: payload past the page", n)
	}
	if int(size) == local {
		return p[off : off+local], nil
	}
	if off+local+4 > len(p) {
		return nil, rawErrorf("page %d: no overflow pointer", n)
	}
	buf := append(c.payload[:0], p[off:off+local]...)
	next := int64(binary.BigEndian.Uint32(p[off+local:]))
	for hops := int64(0); len(buf) < int(size); hops++ {
		if next < 1 || hops > c.rt.pages {
			return nil, rawErrorf("page %d: overflow chain broken", n)
		}
		op, err := c.overflow(next)
		if err != nil {
			return nil, err
		}
		take := min(u-4, int(size)-len(buf))
		buf = append(buf, op[4:4+take]...)
		next = int64(binary.BigEndian.Uint32(op[0:4]))
	}
	c.payload = buf
	return buf, nil
}

// overflow reads an overflow page through the same window as the leaves: a row's overflow
// pages mostly follow its leaf in the file, so one window reads both once (two windows read
// each page twice: measured, the audit's pread time doubled). The caller's page is a copy
// (c.leaf, c.ileaf), which moving the window does not touch.
func (c *rawCursor) overflow(n int64) ([]byte, error) {
	if n < 1 || n > c.rt.pages {
		return nil, rawErrorf("overflow page %d past the end", n)
	}
	return c.win.get(c.rt, n)
}

// indexLocal is how much of an index cell's payload of size p sits on the page.
func indexLocal(p, u int) int {
	x := (u-12)*64/255 - 23
	if p <= x {
		return p
	}
	m := (u-12)*32/255 - 23
	k := m + (p-m)%(u-4)
	if k <= x {
		return k
	}
	return m
}

// indexKey decodes an index entry (session_id TEXT, seq INTEGER, rowid INTEGER).
// It reads the shape every entry of that index has (a one-byte header of three one-byte
// types: text, integer, integer) itself, and leaves any other to decodeRecord: the general
// decoder was a twentieth of the audit's reading.
func indexKey(rec []byte) (session []byte, seq, rowid int64, err error) {
	if len(rec) >= 4 && rec[0] == 4 && rec[1] >= 13 && rec[1] < 0x80 && rec[1]%2 == 1 &&
		rec[2] >= 1 && rec[2] <= 6 && rec[3] >= 1 && rec[3] <= 6 {
		ns, s1, s2 := int(rec[1]-13)/2, intSize(rec[2]), intSize(rec[3])
		if 4+ns+s1+s2 == len(rec) {
			return rec[4 : 4+ns], beInt(rec[4+ns : 4+ns+s1]), beInt(rec[4+ns+s1:]), nil
		}
	}
	var vals [3]value
	n, ok := decodeRecord(rec, vals[:])
	if !ok || n != 3 || !vals[0].text || !vals[1].isInt || !vals[2].isInt {
		return nil, 0, 0, rawErrorf("an index entry of another shape")
	}
	return vals[0].b, vals[1].i, vals[2].i, nil
}

// intSize is the byte size of an integer of serial type t (1–6).
func intSize(t byte) int {
	return [...]int{0, 1, 2, 3, 4, 6, 8}[t]
}

// beInt reads a big-endian two's complement integer of 1–8 bytes.
func beInt(b []byte) int64 {
	var x int64
	for _, c := range b {
		x = x<<8 | int64(c)
	}
	shift := 64 - 8*len(b)
	return x << shift >> shift
}

// columns decodes the five columns the reader needs, in the order session_id, seq,
// event_json, event_zstd, event_utf8_bytes (absent ones NULL). It checks the whole record as
// decodeRecord does (every column's type and size within the payload, at most 16 columns) but
// keeps only those five: building a value for each of the table's columns was most of the
// cost of a row.
func (c *rawCursor) columns(rec []byte) (out [5]value, err error) {
	bad := func() ([5]value, error) { return [5]value{}, rawErrorf("a record that does not decode") }
	hsize, k := readVarint(rec)
	if k == 0 || hsize > uint64(len(rec)) || hsize < uint64(k) {
		return bad()
	}
	for i := range out {
		out[i].null = true // not in the table, or a row older than the column
	}
	slots := &c.rt.slots
	hdr := rec[:hsize]
	pos := int(hsize)
	col := 0
	for h := k; h < len(hdr); col++ {
		t, m := readVarint(hdr[h:])
		if m == 0 || col == len(slots) {
			return bad()
		}
		h += m
		var size int
		switch {
		case t >= 12:
			size = int((t - 12) / 2)
		case t <= 4:
			size = int(t)
		case t == 5:
			size = 6
		case t == 6 || t == 7:
			size = 8
		case t == 8 || t == 9:
		default:
			return bad()
		}
		if size > len(rec)-pos {
			return bad()
		}
		if slot := slots[col]; slot >= 0 {
			v := &out[slot]
			v.null = t == 0
			switch {
			case t >= 12:
				v.b = rec[pos : pos+size]
				v.text, v.blob = t%2 == 1, t%2 == 0
			case t >= 1 && t <= 6:
				var x int64
				for _, b := range rec[pos : pos+size] {
					x = x<<8 | int64(b)
				}
				shift := 64 - 8*size
				v.isInt, v.i = true, x<<shift>>shift
			case t == 8 || t == 9:
				v.isInt, v.i = true, int64(t-8)
			}
		}
		pos += size
	}
	return out, nil
}

// decodeRecord decodes up to len(vals) columns of a record into vals, without allocating; n
// is how many the record has (an error past len(vals)).
func decodeRecord(rec []byte, vals []value) (n int, ok bool) {
	hsize, k := readVarint(rec)
	if k == 0 || hsize > uint64(len(rec)) || hsize < uint64(k) {
		return 0, false
	}
	pos := int(hsize)
	for h := k; h < int(hsize); {
		t, m := readVarint(rec[h:int(hsize)])
		if m == 0 || n == len(vals) {
			return 0, false
		}
		h += m
		v := value{}
		switch {
		case t == 0:
			v.null = true
		case t >= 1 && t <= 6:
			size := [...]int{0, 1, 2, 3, 4, 6, 8}[t]
			if pos+size > len(rec) {
				return 0, false
			}
			var x int64
			for _, b := range rec[pos : pos+size] {
				x = x<<8 | int64(b)
			}
			shift := 64 - 8*size
			v.isInt, v.i = true, x<<shift>>shift
			pos += size
		case t == 7:
			if pos+8 > len(rec) {
				return 0, false
			}
			pos += 8 // a REAL: not a value this reader uses (the caller rejects it)
		case t == 8 || t == 9:
			v.isInt, v.i = true, int64(t-8)
		case t >= 12:
			size := int((t - 12) / 2)
			if pos+size > len(rec) {
				return 0, false
			}
			v.b = rec[pos : pos+size]
			v.text, v.blob = t%2 == 1, t%2 == 0
			pos += size
		default:
			return 0, false
		}
		vals[n] = v
		n++
	}
	return n, true
}

package agentdb

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"

	"github.com/clawdoctor/clawdoctor/jsonl"
)

// RawScan reads transcript events out of a database file that SQLite cannot open (a file
// cut short, a damaged schema), page by page, following https://sqlite.org/fileformat2.html:
// when sqlite_master can be read, the leaves of the transcript_events b-tree reachable from
// its root; else every table leaf page that is not on the freelist, keeping the cells whose
// record has the shape of a transcript_events row (session_id TEXT, seq INTEGER, event_json
// TEXT or NULL, created_at INTEGER, event_zstd BLOB or NULL, ...). It never writes.
type RawScan struct {
	Pages    int64 // pages the file holds
	Expected int64 // pages the header says it has (0 when unknown)
	Leaves   int64 // leaf pages read
	// PastEnd counts the table's pages that lie past the end of a file cut short.
	PastEnd int64
	Damaged []string
	// ByShape: the table's root was not found, so rows were recognised by their shape (a free
	// page of the table, one the freelist no longer names, may give back a deleted event).
	ByShape bool
}

// maxRawPayload bounds one cell's payload (an event is at most a few MiB).
const maxRawPayload = 64 << 20

// rawFile is an open database file read by pages.
type rawFile struct {
	f        *os.File
	pageSize int64
	usable   int64
	pages    int64
}

func (r *rawFile) page(n int64) ([]byte, error) {
	if n < 1 || n > r.pages {
		return nil, fmt.Errorf("page %d is past the end of the file (%d pages)", n, r.pages)
	}
	b := make([]byte, r.pageSize)
	if _, err := r.f.ReadAt(b, (n-1)*r.pageSize); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b, nil
}

// ScanFile runs a RawScan of the database at path, calling emit for each event found.
func ScanFile(ctx context.Context, path string, emit func(session string, seq int64, line []byte) error) (*RawScan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var h [headerSize]byte
	if _, err := io.ReadFull(f, h[:]); err != nil || !bytes.Equal(h[:16], sqliteMagic) {
		return nil, wrapf(ErrNotDatabase, "no SQLite header: nothing can be read without it")
	}
	ps := int64(binary.BigEndian.Uint16(h[16:18]))
	if ps == 1 {
		ps = 65536
	}
	if ps < 512 || ps&(ps-1) != 0 {
		return nil, wrapf(ErrNotDatabase, "damaged header (page size %d)", ps)
	}
	r := &rawFile{f: f, pageSize: ps, usable: ps - int64(h[20]), pages: (st.Size() + ps - 1) / ps}
	rs := &RawScan{Pages: r.pages}
	if binary.BigEndian.Uint32(h[92:96]) == binary.BigEndian.Uint32(h[24:28]) {
		rs.Expected = int64(binary.BigEndian.Uint32(h[28:32]))
	}
	free := r.freelist(binary.BigEndian.Uint32(h[32:36]))
	root := r.findRoot("transcript_events")
	var leaves []int64
	if root > 0 {
		leaves = r.leavesOf(ctx, root, rs)
	} else {
		rs.ByShape = true
		for n := int64(1); n <= r.pages; n++ {
			if !free[n] {
				leaves = append(leaves, n)
			}
		}
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxEventBytes))
	if err != nil {
		return rs, err
	}
	defer dec.Close()
	for _, n := range leaves {
		if err := ctx.Err(); err != nil {
			return rs, err
		}
		p, err := r.page(n)
		if err != nil {
			rs.Damaged = append(rs.Damaged, err.Error())
			continue
		}
		hdr := 0
		if n == 1 {
			hdr = headerSize
		}
		if p[hdr] != 0x0d {
			if !rs.ByShape {
				rs.Damaged = append(rs.Damaged, fmt.Sprintf("page %d of the table is not a leaf page (type %#x)", n, p[hdr]))
			}
			continue
		}
		rs.Leaves++
		err = r.cells(p, hdr, func(rowid int64, rec []byte) error {
			vals, ok := record(rec)
			if !ok {
				return nil
			}
			session, seq, line, frame, ok := eventOf(vals)
			if !ok {
				return nil
			}
			if frame != nil {
				if line, err = dec.DecodeAll(frame, nil); err != nil {
					rs.Damaged = append(rs.Damaged, fmt.Sprintf("page %d, rowid %d (session %s, seq %d): event_zstd does not decode: %v", n, rowid, session, seq, err))
					return nil
				}
			}
			if jerr := jsonl.Check(line); jerr != nil && !errors.Is(jerr, jsonl.ErrTooDeep) || !utf8.ValidString(session) {
				if !rs.ByShape {
					rs.Damaged = append(rs.Damaged, fmt.Sprintf("page %d, rowid %d: not a valid event", n, rowid))
				}
				return nil
			}
			return emit(session, seq, line)
		})
		if err != nil {
			var ce callerError
			if errors.As(err, &ce) {
				return rs, ce.err
			}
			rs.Damaged = append(rs.Damaged, fmt.Sprintf("page %d: %v", n, err))
		}
	}
	return rs, nil
}

// freelist returns the pages on the freelist (trunks and leaves), as far as it can be read.
func (r *rawFile) freelist(trunk uint32) map[int64]bool {
	free := map[int64]bool{}
	for n := int64(trunk); n > 0 && !free[n] && len(free) < int(r.pages); {
		p, err := r.page(n)
		if err != nil {
			break
		}
		free[n] = true
		count := int64(binary.BigEndian.Uint32(p[4:8]))
		for i := int64(0); i < count && 8+4*i+4 <= int64(len(p)); i++ {
			free[int64(binary.BigEndian.Uint32(p[8+4*i:]))] = true
		}
		n = int64(binary.BigEndian.Uint32(p[0:4]))
	}
	return free
}

// findRoot reads sqlite_master (the b-tree rooted at page 1) for the root page of table name;
// 0 when it cannot be read or the table is not there.
func (r *rawFile) findRoot(name string) int64 {
	var root int64
	seen := map[int64]bool{} // a damaged tree may name a page twice, or its own ancestor
	var walk func(n int64, depth int) bool
	walk = func(n int64, depth int) bool {
		if depth > 20 || seen[n] {
			return false
		}
		seen[n] = true
		p, err := r.page(n)
		if err != nil {
			return false
		}
		hdr := 0
		if n == 1 {
			hdr = headerSize
		}
		switch p[hdr] {
		case 0x0d:
			r.cells(p, hdr, func(_ int64, rec []byte) error {
				vals, ok := record(rec)
				if ok && len(vals) >= 4 && vals[0].text && string(vals[0].b) == "table" && vals[1].text && string(vals[1].b) == name && vals[3].isInt {
					root = vals[3].i
				}
				return nil
			})
			return true
		case 0x05:
			for _, c := range r.children(p, hdr) {
				if root == 0 {
					walk(c, depth+1)
				}
			}
			return true
		}
		return false
	}
	walk(1, 0)
	return root
}

// leavesOf lists the leaf pages of the table b-tree rooted at root, naming the interior pages
// that cannot be read.
func (r *rawFile) leavesOf(ctx context.Context, root int64, rs *RawScan) []int64 {
	var out []int64
	seen := map[int64]bool{}
	var walk func(n int64, depth int)
	walk = func(n int64, depth int) {
		if seen[n] || depth > 40 || ctx.Err() != nil {
			return
		}
		seen[n] = true
		if n > r.pages {
			rs.PastEnd++
			return
		}
		p, err := r.page(n)
		if err != nil {
			rs.Damaged = append(rs.Damaged, fmt.Sprintf("page %d of transcript_events: %v", n, err))
			return
		}
		hdr := 0
		if n == 1 {
			hdr = headerSize
		}
		switch p[hdr] {
		case 0x0d:
			out = append(out, n)
		case 0x05:
			for _, c := range r.children(p, hdr) {
				walk(c, depth+1)
			}
		default:
			rs.Damaged = append(rs.Damaged, fmt.Sprintf("page %d of transcript_events is not a b-tree page (type %#x): the rows under it are lost", n, p[hdr]))
		}
	}
	walk(root, 0)
	return out
}

// children are the child pages of an interior table page, the right-most last.
func (r *rawFile) children(p []byte, hdr int) []int64 {
	ncell := int(binary.BigEndian.Uint16(p[hdr+3:]))
	var out []int64
	for i := 0; i < ncell; i++ {
		at := hdr + 12 + 2*i
		if at+2 > len(p) {
			break
		}
		off := int(binary.BigEndian.Uint16(p[at:]))
		if off+4 > len(p) {
			continue
		}
		out = append(out, int64(binary.BigEndian.Uint32(p[off:])))
	}
	return append(out, int64(binary.BigEndian.Uint32(p[hdr+8:])))
}

// cells calls fn with the rowid and whole payload of each cell of a table leaf page,
// following overflow chains.
func (r *rawFile) cells(p []byte, hdr int, fn func(rowid int64, payload []byte) error) error {
	ncell := int(binary.BigEndian.Uint16(p[hdr+3:]))
	if hdr+8+2*ncell > len(p) {
		return fmt.Errorf("%d cells do not fit the page", ncell)
	}
	u := r.usable
	var bad error
	for i := 0; i < ncell; i++ {
		off := int(binary.BigEndian.Uint16(p[hdr+8+2*i:]))
		if off < hdr+8 || off >= int(u) {
			bad = fmt.Errorf("cell %d points outside the page", i)
			continue
		}
		psize, k := readVarint(p[off:])
		if k == 0 || psize > maxRawPayload {
			bad = fmt.Errorf("cell %d has a bad size", i)
			continue
		}
		rowid, k2 := readVarint(p[off+k:])
		if k2 == 0 {
			bad = fmt.Errorf("cell %d has a bad rowid", i)
			continue
		}
		start := off + k + k2
		local := localPayload(int64(psize), u)
		if int64(start)+local > u {
			bad = fmt.Errorf("cell %d runs past the page", i)
			continue
		}
		payload := append([]byte(nil), p[start:start+int(local)]...)
		if int64(psize) > local {
			if int64(start)+local+4 > int64(len(p)) {
				bad = fmt.Errorf("cell %d lost its overflow pointer", i)
				continue
			}
			next := int64(binary.BigEndian.Uint32(p[start+int(local):]))
			// a chain is at most its payload's pages long: a looping chain ends there
			for hops := int64(0); int64(len(payload)) < int64(psize) && next > 0 && hops <= r.pages; hops++ {
				op, err := r.page(next)
				if err != nil {
					break
				}
				take := min(u-4, int64(psize)-int64(len(payload)))
				payload = append(payload, op[4:4+take]...)
				next = int64(binary.BigEndian.Uint32(op[0:4]))
			}
			if int64(len(payload)) < int64(psize) {
				bad = fmt.Errorf("cell %d (rowid %d) lost part of its overflow chain", i, int64(rowid))
				continue
			}
		}
		if err := fn(int64(rowid), payload); err != nil {
			return callerError{err}
		}
	}
	return bad
}

// localPayload is how much of a table leaf cell's payload of size p sits on the page.
func localPayload(p, u int64) int64 {
	x := u - 35
	if p <= x {
		return p
	}
	m := ((u-12)*32)/255 - 23
	k := m + (p-m)%(u-4)
	if k <= x {
		return k
	}
	return m
}

// readVarint reads a SQLite varint (big-endian, 7 bits a byte, the ninth byte whole); k is
// its length, 0 when b is too short.
func readVarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < 9; i++ {
		if i >= len(b) {
			return 0, 0
		}
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return v, 9
}

// value is one column of a record.
type value struct {
	null, isInt, text, blob bool
	i                       int64
	b                       []byte
}

// record decodes a record's columns; ok is false when the header does not fit the payload.
func record(rec []byte) ([]value, bool) {
	hsize, k := readVarint(rec)
	if k == 0 || hsize > uint64(len(rec)) || hsize < uint64(k) {
		return nil, false
	}
	var vals []value
	pos := int(hsize)
	for h := k; h < int(hsize); {
		t, n := readVarint(rec[h:])
		if n == 0 {
			return nil, false
		}
		h += n
		var v value
		switch {
		case t == 0:
			v.null = true
		case t >= 1 && t <= 6:
			size := []int{0, 1, 2, 3, 4, 6, 8}[t]
			if pos+size > len(rec) {
				return nil, false
			}
			var x int64
			for _, c := range rec[pos : pos+size] {
				x = x<<8 | int64(c)
			}
			shift := 64 - 8*size
			v.isInt, v.i = true, x<<shift>>shift
			pos += size
		case t == 7:
			pos += 8
		case t == 8 || t == 9:
			v.isInt, v.i = true, int64(t-8)
		case t >= 12:
			size := int((t - 12) / 2)
			if pos+size > len(rec) {
				return nil, false
			}
			v.b = rec[pos : pos+size]
			v.text, v.blob = t%2 == 1, t%2 == 0
			pos += size
		default:
			return nil, false
		}
		vals = append(vals, v)
	}
	return vals, true
}

// eventOf recognises a transcript_events row: (session_id TEXT, seq INTEGER, event_json TEXT
// or NULL, created_at INTEGER[, event_zstd BLOB or NULL, event_utf8_bytes, navigation_json]).
// frame is the zstd frame of a compressed event (line is then nil).
func eventOf(vals []value) (session string, seq int64, line, frame []byte, ok bool) {
	if len(vals) < 4 || len(vals) > 7 || !vals[0].text || !vals[1].isInt || vals[1].i < 0 || !vals[3].isInt {
		return "", 0, nil, nil, false
	}
	if len(vals[0].b) == 0 || len(vals[0].b) > 256 {
		return "", 0, nil, nil, false
	}
	switch {
	case vals[2].text:
		return string(vals[0].b), vals[1].i, vals[2].b, nil, true
	case vals[2].null && len(vals) >= 5 && vals[4].blob:
		return string(vals[0].b), vals[1].i, nil, vals[4].b, true
	}
	return "", 0, nil, nil, false
}

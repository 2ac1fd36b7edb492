package export

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/progress"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

// Salvage is what export --salvage could not read of a damaged database.
type Salvage struct {
	// Notes say how the database was read (without its -wal, ...).
	Notes []string `json:"notes,omitempty"`
	// Damaged are the sessions written in part: the events that could be read, in seq order.
	Damaged []Damaged `json:"damaged,omitempty"`
	// LostRows are the ranges of transcript_events rows no query could read (damaged pages).
	LostRows []agentdb.LostRows `json:"lostRows,omitempty"`
	// Unlisted: the list of sessions could not be read; every session was taken from the
	// events themselves.
	Unlisted string `json:"unlisted,omitempty"`
	// NoStore: the session nodes could not be read; sessions.json lists none.
	NoStore string `json:"noStore,omitempty"`
}

// Lost reports whether anything could not be read.
func (s *Salvage) Lost() bool {
	return s != nil && (len(s.Damaged) > 0 || len(s.LostRows) > 0 || s.Unlisted != "" || s.NoStore != "" || len(s.Notes) > 0)
}

// Damaged is one session written in part.
type Damaged struct {
	Session string `json:"session"`
	Events  int64  `json:"events"`            // written
	Listed  int64  `json:"listed,omitempty"`  // the events its index counts, when it could be read
	Missing string `json:"missing,omitempty"` // the seqs not read ("seq 10-14, 20")
	Reason  string `json:"reason"`
}

// runSalvage is Run on a damaged database: every session whose events read whole is written
// as export writes it; of the others, every event that can still be read, in seq order.
func runSalvage(ctx context.Context, opts Options, path string, res *Result, c progress.Counter) error {
	db, notes, err := agentdb.OpenSalvage(ctx, path)
	if err != nil {
		if errors.Is(err, agentdb.ErrCorrupt) || errors.Is(err, agentdb.ErrNotDatabase) {
			return rawSalvage(ctx, opts, path, res, err, c)
		}
		return err
	}
	defer db.Close()
	if err := db.CheckSessions(); err != nil {
		return err // a schema clawdoctor does not know is not read, damaged or not
	}
	sv := &Salvage{Notes: notes}
	res.Salvage = sv
	if db.Copied {
		res.Snapshot = "copy"
	}
	want := map[string]bool{}
	for _, s := range opts.Sessions {
		id, err := db.Resolve(ctx, s)
		if err != nil {
			return err
		}
		want[id] = true
	}
	asked := func(id string) bool { return len(want) == 0 || want[id] }

	st := store.New()
	if nodes, err := db.Nodes(ctx); err != nil {
		sv.NoStore = err.Error()
	} else {
		for _, n := range nodes {
			if asked(n.SessionID) {
				if err := st.Set(n.Key, store.Entry{Key: n.Key, Raw: n.Entry}); err != nil {
					sv.NoStore = fmt.Sprintf("node %q: %v", n.Key, err)
				}
			}
		}
	}
	res.Entries = st.Len()

	healthy := map[string]agentdb.Session{}
	listed := map[string]int64{}
	sessions, err := db.Sessions(ctx)
	if err != nil {
		sv.Unlisted = err.Error()
	}
	damaged := map[string]string{} // session → why its normal read failed
	for _, s := range sessions {
		if !asked(s.ID) {
			continue
		}
		listed[s.ID] = s.Events
		if why := readWhole(ctx, db, s.ID); why != "" {
			damaged[s.ID] = why
			continue
		}
		healthy[s.ID] = s
	}
	tmp, err := os.MkdirTemp("", "clawdoctor-salvage-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	rows := map[string]*rowFile{}
	defer closeRows(rows)
	if len(damaged) > 0 || sv.Unlisted != "" {
		scanWant := func(id string) bool {
			if _, ok := healthy[id]; ok || !asked(id) {
				return false
			}
			return sv.Unlisted != "" || damaged[id] != ""
		}
		lost, bad, err := db.ScanEvents(ctx, scanWant, func(session string, seq int64, line []byte) error {
			return addRow(rows, tmp, session, seq, line) // an unsafe id is named below
		})
		if ferr := flushRows(rows); err == nil {
			err = ferr
		}
		if err != nil {
			return err
		}
		sv.LostRows = lost
		for _, b := range bad {
			if damaged[b.Session] == "" {
				damaged[b.Session] = b.Error()
			}
		}
	}
	var items []Item
	for _, s := range slices.Sorted(func(yield func(string) bool) {
		for id := range healthy {
			if !yield(id) {
				return
			}
		}
	}) {
		id, key := s, healthy[s].Key
		if !store.ValidSessionID(id) {
			res.Skipped = append(res.Skipped, Skipped{id, "not a safe file name"})
			continue
		}
		items = append(items, Item{Name: id + ".jsonl", Source: agentdb.Ref(db.Path, id), Key: key, Write: func(w io.Writer) (int64, error) {
			tr, err := db.Transcript(ctx, id)
			if err != nil {
				return 0, err
			}
			defer tr.Close()
			_, err = io.Copy(w, tr)
			return tr.Events, err
		}})
	}
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range rows {
			if !yield(id) {
				return
			}
		}
	})
	for id := range damaged {
		if rows[id] == nil {
			sv.Damaged = append(sv.Damaged, Damaged{Session: id, Listed: listed[id], Missing: "every event", Reason: damaged[id] + "; no row of it could be read"})
		}
	}
	for _, id := range ids {
		rf := rows[id]
		d := Damaged{Session: id, Listed: listed[id], Reason: damaged[id]}
		if d.Reason == "" {
			d.Reason = "not in the list of sessions (it could not be read): taken from the events"
		}
		missing, n, err := rf.missing(listed[id])
		if err != nil {
			return err
		}
		d.Events, d.Missing = n, missing
		if missing == "" && sv.Unlisted != "" && damaged[id] == "" {
			// read whole by the scan: nothing lost of it, only the list was unreadable
			d.Reason = "taken from the events (the list of sessions could not be read); every seq from 0 to the last is there"
		}
		sv.Damaged = append(sv.Damaged, d)
		items = append(items, Item{Name: id + ".jsonl", Source: agentdb.Ref(db.Path, id) + " (salvaged)", Write: rf.writeSorted})
	}
	slices.SortFunc(sv.Damaged, func(a, b Damaged) int { return strings.Compare(a.Session, b.Session) })
	items = append(items, Item{Name: store.StoreFile, Write: func(w io.Writer) (int64, error) {
		data, err := st.Marshal()
		if err == nil {
			_, err = w.Write(data)
		}
		return 0, err
	}})
	files, err := WriteAll(ctx, opts.Out, items, c)
	if err != nil {
		return err
	}
	res.Files = files[:len(files)-1]
	return nil
}

// rawSalvage reads the events of a database SQLite cannot open (a file cut short, a damaged
// schema) page by page (agentdb.ScanFile) and writes each session found, in seq order.
func rawSalvage(ctx context.Context, opts Options, path string, res *Result, why error, c progress.Counter) error {
	sv := &Salvage{Unlisted: "SQLite cannot open the database: " + why.Error(),
		NoStore: "the session nodes are not read page by page"}
	res.Salvage, res.Snapshot = sv, "page by page"
	tmp, err := os.MkdirTemp("", "clawdoctor-salvage-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	want := map[string]bool{}
	for _, s := range opts.Sessions {
		want[s] = true // ids only: keys live in the session nodes, which are not read here
	}
	rows := map[string]*rowFile{}
	defer closeRows(rows)
	rs, err := agentdb.ScanFile(ctx, path, func(session string, seq int64, line []byte) error {
		if len(want) > 0 && !want[session] {
			return nil
		}
		return addRow(rows, tmp, session, seq, line)
	})
	if ferr := flushRows(rows); err == nil {
		err = ferr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	note := fmt.Sprintf("the events were read page by page: %d leaf page(s) of the %d the file holds", rs.Leaves, rs.Pages)
	if rs.Expected > rs.Pages {
		note += fmt.Sprintf(" (the header says %d: the file is cut short", rs.Expected)
		if rs.PastEnd > 0 {
			note += fmt.Sprintf("; %d page(s) of the events table lie past its end, their events are lost", rs.PastEnd)
		}
		note += ")"
	}
	if rs.ByShape {
		note += "; the table's root was not found, so rows were recognised by their shape (a deleted event left on a free page may come back)"
	}
	if _, serr := os.Stat(path + "-wal"); serr == nil {
		note += "; the -wal is not read page by page: transactions not yet in the main file are lost"
	}
	sv.Notes = append(sv.Notes, note)
	for _, d := range rs.Damaged {
		sv.Notes = append(sv.Notes, "damaged: "+d)
	}
	var items []Item
	for _, id := range slices.Sorted(func(yield func(string) bool) {
		for id := range rows {
			if !yield(id) {
				return
			}
		}
	}) {
		rf := rows[id]
		missing, n, err := rf.missing(0)
		if err != nil {
			return err
		}
		last := int64(-1)
		if len(rf.idx) > 0 {
			last = rf.idx[len(rf.idx)-1].seq
		}
		sv.Damaged = append(sv.Damaged, Damaged{Session: id, Events: n, Missing: missing,
			Reason: fmt.Sprintf("read page by page: events after seq %d cannot be told from none", last)})
		items = append(items, Item{Name: id + ".jsonl", Source: path + "#" + id + " (page by page)", Write: rf.writeSorted})
	}
	items = append(items, Item{Name: store.StoreFile, Write: func(w io.Writer) (int64, error) {
		data, err := store.New().Marshal()
		if err == nil {
			_, err = w.Write(data)
		}
		return 0, err
	}})
	files, err := WriteAll(ctx, opts.Out, items, c)
	if err != nil {
		return err
	}
	res.Files = files[:len(files)-1]
	return nil
}

// readWhole reads a session's events through the normal reader; "" when they read whole.
func readWhole(ctx context.Context, db *agentdb.DB, id string) string {
	tr, err := db.Transcript(ctx, id)
	if err != nil {
		return err.Error()
	}
	defer tr.Close()
	for {
		_, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return ""
		}
		if err != nil {
			return err.Error()
		}
	}
}

// rowFile keeps the salvaged events of one session on disk, so memory holds only their seqs
// and offsets.
type rowFile struct {
	f    *os.File
	w    *bufio.Writer
	off  int64
	idx  []rowRef
	seen map[int64]bool
}

type rowRef struct {
	seq, off int64
	n        int
}

func (r *rowFile) add(seq int64, line []byte) error {
	if r.seen == nil {
		r.seen = map[int64]bool{}
	}
	if r.seen[seq] {
		return nil // a row read twice across a resumed scan
	}
	r.seen[seq] = true
	if _, err := r.w.Write(line); err != nil {
		return err
	}
	r.idx = append(r.idx, rowRef{seq: seq, off: r.off, n: len(line)})
	r.off += int64(len(line))
	return nil
}

func (r *rowFile) close() error { return r.w.Flush() }

// addRow keeps one salvaged event in rows, the row files of a salvage (one per session, in
// dir). The event of a session id that is not a safe file name is not kept: the caller names
// that session.
func addRow(rows map[string]*rowFile, dir, session string, seq int64, line []byte) error {
	rf := rows[session]
	if rf == nil {
		if !store.ValidSessionID(session) {
			return nil
		}
		f, err := os.Create(filepath.Join(dir, session+".rows"))
		if err != nil {
			return err
		}
		rf = &rowFile{f: f, w: bufio.NewWriter(f)}
		rows[session] = rf
	}
	return rf.add(seq, line)
}

// flushRows writes out what the row files buffer, so they can be read back; the first error.
func flushRows(rows map[string]*rowFile) error {
	var err error
	for _, rf := range rows {
		if ferr := rf.close(); ferr != nil && err == nil {
			err = ferr
		}
	}
	return err
}

// closeRows closes the row files (their dir is removed by the caller).
func closeRows(rows map[string]*rowFile) {
	for _, rf := range rows {
		rf.f.Close()
	}
}

// missing names the seqs from 0 to the last (or to listed-1) that were not read, and counts
// the events read.
func (r *rowFile) missing(listed int64) (string, int64, error) {
	slices.SortFunc(r.idx, func(a, b rowRef) int { return int(a.seq - b.seq) })
	end := int64(0)
	if n := len(r.idx); n > 0 {
		end = r.idx[n-1].seq + 1
	}
	end = max(end, listed)
	var parts []string
	next := int64(0)
	gap := func(from, to int64) { // [from, to)
		if from >= to {
			return
		}
		if len(parts) == 8 {
			parts = append(parts, "…")
		}
		if len(parts) > 8 {
			return
		}
		if to-from == 1 {
			parts = append(parts, fmt.Sprint(from))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", from, to-1))
		}
	}
	for _, x := range r.idx {
		gap(next, x.seq)
		next = x.seq + 1
	}
	gap(next, end)
	if len(parts) == 0 {
		return "", int64(len(r.idx)), nil
	}
	return "seq " + strings.Join(parts, ", "), int64(len(r.idx)), nil
}

// writeSorted writes the session's events in seq order, one line each.
func (r *rowFile) writeSorted(w io.Writer) (int64, error) {
	var buf []byte
	for _, x := range r.idx {
		if cap(buf) < x.n {
			buf = make([]byte, x.n)
		}
		b := buf[:x.n]
		if _, err := r.f.ReadAt(b, x.off); err != nil {
			return 0, err
		}
		if _, err := w.Write(b); err != nil {
			return 0, err
		}
		if _, err := w.Write([]byte{'\n'}); err != nil {
			return 0, err
		}
	}
	return int64(len(r.idx)), nil
}

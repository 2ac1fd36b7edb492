package agentdb

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
)

// readAll reads every event of session through a Transcript of db; poke, when set, is called
// after the given number of events (to break the raw reader in the middle).
func readEvents(t *testing.T, db *DB, session string, pokeAt int, poke func(*Transcript)) (evs []Event, tr *Transcript, err error) {
	t.Helper()
	tr, err = db.Transcript(context.Background(), session)
	if err != nil {
		return nil, nil, err
	}
	defer tr.Close()
	for {
		if poke != nil && len(evs) == pokeAt {
			poke(tr)
		}
		ev, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return evs, tr, nil
		}
		if err != nil {
			return evs, tr, err
		}
		ev.Line = bytes.Clone(ev.Line)
		evs = append(evs, ev)
	}
}

// realDB96 writes the real 2026.9.6 state fixture into a temp dir and returns its database.
func realDB96(t testing.TB) string {
	t.Helper()
	state := filepath.Join(t.TempDir(), "s")
	if err := fixtures.WriteRealState(fixtures.SQLite96, state); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(state, "agents", "main", "agent", FileName)
}

// compareRawSQL reads every session of the database at path through the raw reader and
// through SQL and requires the same events, counts, gaps and errors; it returns how many
// sessions the raw reader served.
func compareRawSQL(t *testing.T, path string) (rawSessions int) {
	t.Helper()
	ctx := context.Background()
	raw, err := OpenSessions(ctx, path)
	if errors.Is(err, ErrNoSessions) {
		return 0 // an auth/memory database of a JSONL-era install
	}
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	plain, err := OpenSessions(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	plain.noRaw = true
	defer plain.Close()
	sessions, err := plain.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rawList, err := raw.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rawList) != len(sessions) {
		t.Fatalf("raw lists %d sessions, sql %d", len(rawList), len(sessions))
	}
	for i := range sessions {
		if rawList[i] != sessions[i] {
			t.Fatalf("session %d: raw lists %+v, sql %+v", i, rawList[i], sessions[i])
		}
	}
	for _, s := range sessions {
		want, wtr, werr := readEvents(t, plain, s.ID, -1, nil)
		got, gtr, gerr := readEvents(t, raw, s.ID, -1, nil)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("%s: errors differ: sql %v, raw %v", s.ID, werr, gerr)
		}
		if len(got) != len(want) || gtr.Events != wtr.Events || gtr.Bytes != wtr.Bytes || gtr.FirstGap != wtr.FirstGap {
			t.Fatalf("%s: raw %d events (%d bytes, gap %d), sql %d (%d bytes, gap %d)", s.ID, len(got), gtr.Bytes, gtr.FirstGap, len(want), wtr.Bytes, wtr.FirstGap)
		}
		for i := range want {
			if got[i].Seq != want[i].Seq || got[i].Compressed != want[i].Compressed || !bytes.Equal(got[i].Line, want[i].Line) {
				t.Fatalf("%s: event %d differs: raw seq %d (%d bytes), sql seq %d (%d bytes)", s.ID, i, got[i].Seq, len(got[i].Line), want[i].Seq, len(want[i].Line))
			}
		}
		if raw.raw != nil {
			rawSessions++
		}
	}
	return rawSessions
}

// rewrite runs stmts on a copy of the database at src written to dst (reordered rows, another
// page size), so the raw reader meets layouts an import does not make.
func rewrite(t *testing.T, src, dst string, stmts ...string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: dst}).EscapedPath())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// realDatabases writes every real state fixture into dir and returns the agent databases
// among them (a JSONL-era state has none).
func realDatabases(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, name := range fixtures.RealStates() {
		state := filepath.Join(dir, name)
		if err := fixtures.WriteRealState(name, state); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(state, "agents", "main", "agent", FileName)
		if _, err := os.Stat(path); err == nil {
			out = append(out, path)
		}
	}
	return out
}

// generatedLayouts generates 4 sessions of size bytes into dir as a database and returns it
// with two copies of layouts an import does not make: shuffleTable's rows in random rowid
// order, and 512-byte pages (deep trees, long overflow chains).
func generatedLayouts(t *testing.T, dir string, size int64, shuffleTable string) (paths [3]string) {
	t.Helper()
	if _, err := fixtures.Generate(context.Background(), filepath.Join(dir, "jsonl"), fixtures.Options{
		Sessions: 4, Size: size, Seed: 3, SQLiteOut: filepath.Join(dir, "db")}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "db", "agents", "main", "agent", FileName)
	shuffled := filepath.Join(dir, "shuffled.sqlite")
	rewrite(t, path, shuffled,
		`CREATE TABLE t2 AS SELECT * FROM `+shuffleTable+` ORDER BY random()`,
		`DELETE FROM `+shuffleTable, `INSERT INTO `+shuffleTable+` SELECT * FROM t2`,
		`DROP TABLE t2`, `VACUUM`)
	small := filepath.Join(dir, "small.sqlite")
	rewrite(t, path, small, `PRAGMA page_size = 512`, `VACUUM`)
	return [3]string{path, shuffled, small}
}

// TestRawEqualsSQL holds the raw b-tree reader to SQLite's own query on the real 2026.8.1 and
// 2026.9.6 databases (those with WAL frames are read by SQL only: the count says so), on a
// generated one with zstd events, overflow chains and a session longer than a batch, and on
// copies of it with rows in random rowid order and 512-byte pages (deep trees, long chains).
func TestRawEqualsSQL(t *testing.T) {
	dir := t.TempDir()
	served := 0
	for _, path := range realDatabases(t, dir) {
		n := compareRawSQL(t, path)
		served += n
		t.Logf("%s: %d sessions read raw", path, n)
	}
	if served == 0 {
		t.Error("the raw reader served no session of the real databases")
	}
	layouts := generatedLayouts(t, filepath.Join(dir, "gen"), 24<<20, "transcript_events")
	for _, p := range layouts {
		if n := compareRawSQL(t, p); n == 0 {
			t.Errorf("%s: no session read raw", filepath.Base(p))
		}
	}
	small := layouts[2]
	// a session longer than one batch of the index
	db, err := OpenSessions(context.Background(), small)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sessions, _ := db.Sessions(context.Background())
	long := false
	for _, s := range sessions {
		long = long || s.Events > rawBatch
	}
	if !long {
		t.Errorf("no session of more than %d events: the batch continuation is not tested", rawBatch)
	}
}

// TestRawHandsOverToSQL breaks the raw reader in the middle of a session (a rowid the table
// does not hold): the rest of the session comes from SQL, from the next seq on, and the
// events are those SQL alone gives.
func TestRawHandsOverToSQL(t *testing.T) {
	path := realDB96(t)
	ctx := context.Background()
	db, err := OpenSessions(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	plain, err := OpenSessions(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	plain.noRaw = true
	defer plain.Close()
	sessions, _ := plain.Sessions(ctx)
	tried := 0
	for _, s := range sessions {
		if s.Events < 4 {
			continue
		}
		want, _, err := readEvents(t, plain, s.ID, -1, nil)
		if err != nil {
			t.Fatal(err)
		}
		broke := false
		got, _, err := readEvents(t, db, s.ID, 2, func(tr *Transcript) {
			if tr.raw != nil && tr.raw.pos < len(tr.raw.batch) {
				tr.raw.batch[tr.raw.pos].rowid = 1 << 40
				broke = true
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if !broke {
			continue
		}
		tried++
		if len(got) != len(want) {
			t.Fatalf("%s: %d events after the hand-over, want %d", s.ID, len(got), len(want))
		}
		for i := range want {
			if got[i].Seq != want[i].Seq || !bytes.Equal(got[i].Line, want[i].Line) {
				t.Fatalf("%s: event %d differs after the hand-over", s.ID, i)
			}
		}
	}
	if tried == 0 {
		t.Fatal("no session was read raw: the hand-over is not tested")
	}
}

// FuzzRawReader damages bytes of a real 2026.9.6 database and reads every session through the
// raw reader: whatever the damage, no panic and no endless walk (the fuzzer's timeout), and
// when the raw reader and SQL both read a session to the end, they give the same events.
func FuzzRawReader(f *testing.F) {
	orig, err := os.ReadFile(realDB96(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint32(0), []byte{0})
	f.Add(uint32(len(orig)/2), []byte{0xff, 0xff, 0xff, 0xff})
	f.Add(uint32(len(orig)-4096), []byte{5, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, at uint32, patch []byte) {
		if len(patch) > 64 {
			patch = patch[:64]
		}
		data := bytes.Clone(orig)
		off := int(at) % len(data)
		if off < 100 {
			off = 100 // the header: SQLite refuses the file, nothing is read raw
		}
		copy(data[off:], patch)
		path := filepath.Join(t.TempDir(), FileName)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		raw, err := OpenSessions(ctx, path)
		if err != nil {
			return
		}
		defer raw.Close()
		plain, err := OpenSessions(ctx, path)
		if err != nil {
			return
		}
		plain.noRaw = true
		defer plain.Close()
		sessions, err := plain.Sessions(ctx)
		if err != nil {
			return
		}
		for _, s := range sessions {
			got, _, gerr := readEvents(t, raw, s.ID, -1, nil)
			want, _, werr := readEvents(t, plain, s.ID, -1, nil)
			if gerr != nil || werr != nil {
				continue // damage either reader noticed: the audit reports it as a read error
			}
			if len(got) != len(want) {
				// SQLite reads a damaged page without noticing more often than not; the raw
				// reader must then still not invent or lose rows where both read to the end
				t.Fatalf("%s: raw %d events, sql %d", s.ID, len(got), len(want))
			}
			for i := range want {
				if got[i].Seq != want[i].Seq || !bytes.Equal(got[i].Line, want[i].Line) {
					t.Fatalf("%s: event %d differs", s.ID, i)
				}
			}
		}
		// the identity rows, the same way: no panic, no endless walk, SQL's rows where both
		// read them to the end
		for _, s := range sessions {
			var got, want []string
			gerr := raw.Identities(ctx, s.ID, func(seq int64, id, parent []byte) error {
				got = append(got, fmt.Sprint(seq, string(id), string(parent), parent != nil))
				return nil
			})
			werr := plain.Identities(ctx, s.ID, func(seq int64, id, parent []byte) error {
				want = append(want, fmt.Sprint(seq, string(id), string(parent), parent != nil))
				return nil
			})
			// a hand-over to SQL starts over: the rows read raw before it come again
			k := len(got) - len(want)
			if gerr == nil && werr == nil && (k < 0 || k > len(want) || fmt.Sprint(got[k:]) != fmt.Sprint(want) || fmt.Sprint(got[:k]) != fmt.Sprint(want[:k])) {
				t.Fatalf("%s: raw identity rows %v, sql %v", s.ID, got, want)
			}
		}
	})
}

// TestRawFileCutShort truncates the database after it was opened: the raw reader must not
// serve pages of an earlier read in place of the lost ones. A session it reads to the end is
// exactly what the file held before the cut; any other ends in an error, never in rows that
// were not there.
func TestRawFileCutShort(t *testing.T) {
	path := realDB96(t)
	ctx := context.Background()
	raw, err := OpenSessions(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if raw.rawReader(ctx) == nil {
		t.Fatal("the raw reader is not used on this database")
	}
	sessions, err := raw.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before := map[string][]Event{}
	for _, s := range sessions {
		evs, _, err := readEvents(t, raw, s.ID, -1, nil)
		if err != nil {
			t.Fatal(err)
		}
		before[s.ID] = evs
	}
	st, _ := os.Stat(path)
	if err := os.Truncate(path, st.Size()/2); err != nil {
		t.Fatal(err)
	}
	raw.raw.mu.Lock()
	raw.raw.interior = map[int64][]byte{} // as on a first read: every page from the file
	raw.raw.cached = 0
	raw.raw.mu.Unlock()
	failed := 0
	for _, s := range sessions {
		got, _, err := readEvents(t, raw, s.ID, -1, nil)
		if err != nil {
			failed++
			continue
		}
		want := before[s.ID]
		if len(got) != len(want) {
			t.Fatalf("%s: %d events read after the cut, %d before", s.ID, len(got), len(want))
		}
		for i := range want {
			if got[i].Seq != want[i].Seq || !bytes.Equal(got[i].Line, want[i].Line) {
				t.Fatalf("%s: event %d read after the cut differs from before", s.ID, i)
			}
		}
	}
	if failed == 0 {
		t.Fatal("no session lost a page to the cut: the test cuts nothing")
	}
	t.Logf("%d of %d sessions end in an error after the cut, the others read as before", failed, len(sessions))
}

// TestRawRefusesOtherKeyOrders gives transcript_events a primary key in another collation or
// order than the bytes ascending the raw reader walks by: it must leave every session to SQL,
// which then lists and reads them all.
func TestRawRefusesOtherKeyOrders(t *testing.T) {
	gen := t.TempDir()
	if _, err := fixtures.Generate(context.Background(), filepath.Join(gen, "jsonl"), fixtures.Options{
		Sessions: 3, Size: 2 << 20, Seed: 4, SQLiteOut: filepath.Join(gen, "db")}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(gen, "db", "agents", "main", "agent", FileName)
	for name, key := range map[string]string{
		"nocase": "session_id COLLATE NOCASE, seq",
		"desc":   "session_id DESC, seq",
		"seq":    "session_id, seq DESC",
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(gen, name+".sqlite")
			rewrite(t, path, p, `PRAGMA foreign_keys = OFF`,
				`ALTER TABLE transcript_events RENAME TO old_events`,
				`CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT,
					created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER, navigation_json TEXT,
					PRIMARY KEY (`+key+`))`,
				`INSERT INTO transcript_events SELECT * FROM old_events`, `DROP TABLE old_events`, `VACUUM`)
			if n := compareRawSQL(t, p); n != 0 {
				t.Errorf("the raw reader served %d sessions of an index in another order", n)
			}
			db, err := OpenSessions(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if sessions, _ := db.Sessions(context.Background()); len(sessions) != 3 {
				t.Errorf("%d sessions listed, want 3", len(sessions))
			}
		})
	}
}

// TestColumnsAgreesWithDecodeRecord holds the row decoder to the general record decoder on
// records of every serial type, short headers, truncated bodies and too many columns: the same
// five values, and an error exactly where decodeRecord fails.
func TestColumnsAgreesWithDecodeRecord(t *testing.T) {
	rt := &rawTable{}
	for i := range rt.slots {
		rt.slots[i] = -1
	}
	for slot, col := range [5]int{0, 1, 2, 4, 5} {
		rt.slots[col] = int8(slot)
	}
	c := &rawCursor{rt: rt}
	rng := rand.New(rand.NewPCG(1, 2))
	types := []uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 40, 41, 300, 301}
	for n := 0; n < 20000; n++ {
		ncol := rng.IntN(19)
		var hdr, body []byte
		for range ncol {
			t := types[rng.IntN(len(types))]
			hdr = appendSQLiteVarint(hdr, t)
			size := map[uint64]int{1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8, 7: 8}[t]
			if t >= 12 {
				size = int((t - 12) / 2)
			}
			for range size {
				body = append(body, byte(rng.IntN(256)))
			}
		}
		h := appendSQLiteVarint(nil, uint64(len(hdr)+1))
		if len(h) != 1 {
			continue
		}
		rec := append(append(h, hdr...), body...)
		if rng.IntN(4) == 0 && len(rec) > 0 {
			rec = rec[:rng.IntN(len(rec))]
		}
		var all [16]value
		k, ok := decodeRecord(rec, all[:])
		got, err := c.columns(rec)
		if ok != (err == nil) {
			t.Fatalf("record %x: decodeRecord ok %v, columns err %v", rec, ok, err)
		}
		if !ok {
			continue
		}
		for slot, col := range [5]int{0, 1, 2, 4, 5} {
			want := value{null: true}
			if col < k {
				want = all[col]
			}
			g := got[slot]
			if g.null != want.null || g.isInt != want.isInt || g.text != want.text || g.blob != want.blob || g.i != want.i || !bytes.Equal(g.b, want.b) {
				t.Fatalf("record %x column %d: columns %+v, decodeRecord %+v", rec, col, g, want)
			}
		}
	}
}

// appendSQLiteVarint appends v as SQLite's big-endian varint (values below 2^56 here).
func appendSQLiteVarint(b []byte, v uint64) []byte {
	var tmp [9]byte
	i := 8
	tmp[i] = byte(v & 0x7f)
	for v >>= 7; v > 0; v >>= 7 {
		i--
		tmp[i] = byte(v&0x7f) | 0x80
	}
	return append(b, tmp[i:]...)
}

// TestIndexKeyAgreesWithDecodeRecord holds indexKey's fast path to the general decoder on
// index entries of every integer size, session ids of every length and damaged entries.
func TestIndexKeyAgreesWithDecodeRecord(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	types := []uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15, 85, 113, 115, 301}
	fast := 0
	for n := 0; n < 50000; n++ {
		var hdr, body []byte
		for col := range 2 + rng.IntN(3) {
			t := types[rng.IntN(len(types))]
			if rng.IntN(3) > 0 { // mostly the real shape: text, int, int
				t = []uint64{13 + 2*uint64(rng.IntN(60)), 1 + uint64(rng.IntN(6)), 1 + uint64(rng.IntN(6))}[min(col, 2)]
			}
			hdr = appendSQLiteVarint(hdr, t)
			size := map[uint64]int{1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8, 7: 8}[t]
			if t >= 12 {
				size = int((t - 12) / 2)
			}
			for range size {
				body = append(body, byte(rng.IntN(256)))
			}
		}
		rec := append(appendSQLiteVarint(nil, uint64(len(hdr)+1)), hdr...)
		rec = append(rec, body...)
		switch rng.IntN(6) {
		case 0:
			rec = rec[:rng.IntN(len(rec)+1)]
		case 1:
			rec = append(rec, byte(rng.IntN(256)))
		}
		var vals [3]value
		k, ok := decodeRecord(rec, vals[:])
		ok = ok && k == 3 && vals[0].text && vals[1].isInt && vals[2].isInt
		s, seq, rowid, err := indexKey(rec)
		if ok != (err == nil) {
			t.Fatalf("entry %x: decodeRecord ok %v, indexKey err %v", rec, ok, err)
		}
		if ok && (!bytes.Equal(s, vals[0].b) || seq != vals[1].i || rowid != vals[2].i) {
			t.Fatalf("entry %x: indexKey (%q, %d, %d), decodeRecord (%q, %d, %d)", rec, s, seq, rowid, vals[0].b, vals[1].i, vals[2].i)
		}
		if ok && len(rec) >= 4 && rec[0] == 4 {
			fast++
		}
	}
	if fast < 1000 {
		t.Errorf("only %d entries of the common shape: the fast path is hardly tested", fast)
	}
}

package export_test

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/export"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

const dbRel = "agents/main/agent/openclaw-agent.sqlite"

// leafPages are the leaf pages of transcript_events (SQLite's dbstat).
func leafPages(t *testing.T, db string) []int64 {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.Query("SELECT pageno FROM dbstat WHERE name = 'transcript_events' AND pagetype = 'leaf' ORDER BY pageno")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var n int64
		rows.Scan(&n)
		out = append(out, n)
	}
	if len(out) < 4 {
		t.Fatalf("%d leaf pages", len(out))
	}
	return out
}

func pageSize(t *testing.T, db string) int64 {
	b, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	return int64(b[16])<<8 | int64(b[17])
}

// foreignWAL makes a write-ahead log of another real database (with frames, never
// checkpointed into it): what a gateway leaves when -wal files get mixed up between copies.
func foreignWAL(t *testing.T) []byte {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "other")
	if err := fixtures.WriteRealState(fixtures.Half96, dir); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, dbRel)
	conn, err := sql.Open("sqlite", "file:"+db+"?_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1)
	if _, err := conn.Exec("UPDATE transcript_events SET created_at = created_at + 1"); err != nil {
		t.Fatal(err)
	}
	wal, err := os.ReadFile(db + "-wal")
	if err != nil || len(wal) < 4096 {
		t.Fatalf("no WAL frames: %v (%d bytes)", err, len(wal))
	}
	return wal
}

func exportDir(t *testing.T, state string, salvage bool) (*export.Result, string, error) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	res, err := export.Run(context.Background(), export.Options{SessionsDir: filepath.Join(state, "agents", "main", "sessions"),
		StateDir: state, Out: out, Salvage: salvage}, nil)
	return res, out, err
}

// isSubsequence reports whether every line of got appears in want, in order.
func isSubsequence(got, want []byte) bool {
	w := strings.Split(string(want), "\n")
	j := 0
	for _, l := range strings.Split(strings.TrimSuffix(string(got), "\n"), "\n") {
		for j < len(w) && w[j] != l {
			j++
		}
		if j == len(w) {
			return false
		}
		j++
	}
	return true
}

// TestSalvage (issue 29, scope 6): copies of the real 2026.8.1 and 2026.9.6 databases with a
// zeroed page, a garbled page, a truncated file and a -wal of another database. The plain
// export fails; export --salvage writes every session that reads whole byte for byte as the
// undamaged export, of the others only events the undamaged database holds (in order, none
// invented), names what it lost, and writes nothing beside the database.
func TestSalvage(t *testing.T) {
	wal := foreignWAL(t)
	damages := []struct {
		name string
		do   func(t *testing.T, db string)
	}{
		{"zeroed page", func(t *testing.T, db string) {
			ps, leaves := pageSize(t, db), leafPages(t, db)
			f, _ := os.OpenFile(db, os.O_RDWR, 0)
			defer f.Close()
			f.WriteAt(make([]byte, ps), (leaves[len(leaves)/2]-1)*ps)
		}},
		{"garbled page", func(t *testing.T, db string) {
			ps, leaves := pageSize(t, db), leafPages(t, db)
			junk := make([]byte, ps-8)
			for i := range junk {
				junk[i] = byte(i*37 + 11)
			}
			f, _ := os.OpenFile(db, os.O_RDWR, 0)
			defer f.Close()
			f.WriteAt(junk, (leaves[len(leaves)/3]-1)*ps+8) // the page header's first bytes kept
		}},
		{"truncated file", func(t *testing.T, db string) {
			ps := pageSize(t, db)
			st, _ := os.Stat(db)
			os.Truncate(db, st.Size()/ps*3/4*ps)
		}},
		{"foreign wal", func(t *testing.T, db string) {
			os.Remove(db + "-shm")
			os.WriteFile(db+"-wal", wal, 0o600)
		}},
	}
	for _, fx := range []string{fixtures.SQLite81, fixtures.SQLite96} {
		clean := filepath.Join(t.TempDir(), "clean")
		if err := fixtures.WriteRealState(fx, clean); err != nil {
			t.Fatal(err)
		}
		_, want, err := exportDir(t, clean, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range damages {
			t.Run(fx+"/"+d.name, func(t *testing.T) {
				state := filepath.Join(t.TempDir(), "state")
				if err := fixtures.WriteRealState(fx, state); err != nil {
					t.Fatal(err)
				}
				d.do(t, filepath.Join(state, dbRel))
				before, _ := fixtures.Tree(state)
				if _, _, err := exportDir(t, state, false); err == nil {
					t.Error("the plain export read a damaged database without an error")
				}
				res, _, err := exportDir(t, state, true)
				if err != nil {
					t.Fatalf("salvage: %v", err)
				}
				if !res.Salvage.Lost() {
					t.Error("salvage says nothing was lost")
				}
				damaged := map[string]bool{}
				for _, dm := range res.Salvage.Damaged {
					damaged[dm.Session] = true
				}
				var events, whole int
				for _, f := range res.Files {
					got, _ := os.ReadFile(f.Path)
					ref, err := os.ReadFile(filepath.Join(want, filepath.Base(f.Path)))
					if err != nil {
						t.Errorf("%s: a session the undamaged database does not have", filepath.Base(f.Path))
						continue
					}
					id := strings.TrimSuffix(filepath.Base(f.Path), ".jsonl")
					switch {
					case !damaged[id] && !bytes.Equal(got, ref):
						t.Errorf("%s: said whole, differs from the undamaged export", id)
					case damaged[id] && !isSubsequence(got, ref):
						t.Errorf("%s: lines the undamaged database does not hold, or out of order", id)
					}
					for _, l := range bytes.Split(bytes.TrimSuffix(got, []byte("\n")), []byte("\n")) {
						if jsonl.Check(l) != nil {
							t.Errorf("%s: not an event: %.80q", id, l)
						}
						events++
					}
					if !damaged[id] {
						whole++
					}
				}
				if events == 0 {
					t.Fatal("nothing salvaged")
				}
				if d.name == "foreign wal" && (whole != len(res.Files) || len(res.Salvage.Notes) == 0) {
					t.Errorf("with a foreign -wal every session reads whole from the main file, with a note: %d of %d, notes %v", whole, len(res.Files), res.Salvage.Notes)
				}
				if after, _ := fixtures.Tree(state); len(after) != len(before) {
					t.Error("salvage created or removed files beside the database")
				} else {
					for k, v := range before {
						if after[k] != v {
							t.Errorf("%s changed", k)
						}
					}
				}
				t.Logf("%d events in %d files (%d whole); notes %d, damaged %d, lost row ranges %d",
					events, len(res.Files), whole, len(res.Salvage.Notes), len(res.Salvage.Damaged), len(res.Salvage.LostRows))
			})
		}
	}
}

// issue 29, scope 7: sessions in cold storage are exported from their archives once these
// verify (the real 2026.9.6 moved all four of fixtures.Cold96 there), byte for byte the
// transcripts that were imported; an archive that fails verification is skipped and named.
func TestExportColdStorage(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	if err := fixtures.WriteRealState(fixtures.Cold96, state); err != nil {
		t.Fatal(err)
	}
	res, out, err := exportDir(t, state, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 4 || len(res.Skipped) != 0 {
		t.Fatalf("files %d, skipped %+v", len(res.Files), res.Skipped)
	}
	for _, f := range res.Files {
		id := strings.TrimSuffix(filepath.Base(f.Path), ".jsonl")
		m, _ := filepath.Glob(filepath.Join(state, "agents", "main", "session-sqlite-import-archive", "*."+id+"*.jsonl.imported-*"))
		want, _ := os.ReadFile(m[0])
		got, _ := os.ReadFile(filepath.Join(out, id+".jsonl"))
		if !bytes.Equal(got, want) || !strings.Contains(f.Source, "cold storage") {
			t.Errorf("%s (%s): not the imported transcript", id, f.Source)
		}
	}
	cold, _ := filepath.Glob(filepath.Join(state, "agents", "main", "sessions", "cold", "*.jsonl.zst"))
	os.WriteFile(cold[0], []byte("not the archive"), 0o600)
	res, _, err = exportDir(t, state, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 3 || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Reason, "failed verification") {
		t.Errorf("files %d, skipped %+v", len(res.Files), res.Skipped)
	}
}

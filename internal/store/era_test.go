package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

// realState extracts a real state dir of fixtures/sqlite and returns it with main's sessions dir.
func realState(t *testing.T, name string) (state, sessions string) {
	t.Helper()
	state = filepath.Join(t.TempDir(), "state")
	if err := fixtures.WriteRealState(name, state); err != nil {
		t.Fatal(err)
	}
	return state, filepath.Join(state, "agents", "main", "sessions")
}

func TestDetectEraRealStates(t *testing.T) {
	for _, tc := range []struct {
		name         string
		sqlite, half bool
		version      int
		archive      bool
	}{
		// 2026.6.11 made state/openclaw.sqlite and a schema-1 agent database itself: JSONL era.
		{fixtures.JSONL611, false, false, 1, false},
		{fixtures.SQLite81, true, false, 19, true},
		{fixtures.SQLite96, true, false, 23, true},
		{fixtures.Half96, true, true, 23, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state, dir := realState(t, tc.name)
			if _, err := os.Stat(filepath.Join(state, "state", "openclaw.sqlite")); err != nil {
				t.Fatalf("the real state lacks state/openclaw.sqlite: %v", err)
			}
			e := store.DetectEra(dir)
			if e.SQLite != tc.sqlite || e.HalfMigrated != tc.half || e.UserVersion != tc.version || e.Unknown != "" {
				t.Fatalf("DetectEra = %+v, want sqlite %v half %v version %d", e, tc.sqlite, tc.half, tc.version)
			}
			if (e.ImportArchive != "") != tc.archive {
				t.Errorf("import archive %q, want present %v", e.ImportArchive, tc.archive)
			}
			err := store.CheckJSONEra(dir)
			if tc.sqlite != errors.Is(err, store.ErrSQLiteEra) || (!tc.sqlite && err != nil) {
				t.Errorf("CheckJSONEra = %v", err)
			}
			if !tc.sqlite {
				if len(e.Notes) == 0 || !strings.Contains(e.Notes[0], "schema 1 and no session tables") {
					t.Errorf("notes %q do not say why the database is no evidence", e.Notes)
				}
				return
			}
			if len(e.Evidence) != 1 || !strings.Contains(e.Evidence[0], "openclaw-agent.sqlite: schema") {
				t.Errorf("evidence %q", e.Evidence)
			}
			if tc.half {
				if !slices.Contains(e.Legacy, "sessions.json") || len(e.Legacy) < 2 {
					t.Errorf("legacy files %q", e.Legacy)
				}
				if s := e.Summary(); !strings.Contains(s, "half-migrated") || !strings.Contains(s, "--session-sqlite dry-run") {
					t.Errorf("summary %q", s)
				}
			}
		})
	}
}

func TestDetectEraEvidence(t *testing.T) {
	// copy611 gives a fresh 2026.6.11 state and the path of its agent database.
	copy611 := func(t *testing.T) (dir, db string) {
		_, dir = realState(t, fixtures.JSONL611)
		return dir, store.AgentDBPath(dir)
	}
	exec := func(t *testing.T, db string, stmts ...string) {
		t.Helper()
		conn, err := sql.Open("sqlite", db)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for _, s := range stmts {
			if _, err := conn.Exec(s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}
	t.Run("session tables at schema 1", func(t *testing.T) {
		dir, db := copy611(t)
		exec(t, db, "CREATE TABLE session_nodes (session_key TEXT PRIMARY KEY)", "CREATE TABLE transcript_events (session_id TEXT, seq INTEGER)")
		if e := store.DetectEra(dir); !e.SQLite || !strings.Contains(e.Evidence[0], "tables session_nodes and transcript_events") {
			t.Errorf("DetectEra = %+v", e)
		}
	})
	t.Run("one session table is not enough", func(t *testing.T) {
		dir, db := copy611(t)
		exec(t, db, "CREATE TABLE session_nodes (session_key TEXT PRIMARY KEY)")
		if e := store.DetectEra(dir); e.SQLite {
			t.Errorf("DetectEra = %+v", e)
		}
	})
	t.Run("migration still in the WAL", func(t *testing.T) {
		// A gateway upgraded the schema to 23, but only the WAL holds it: the main file's
		// header still says 1. Reading the header alone would call this agent JSONL era.
		_, db := copy611(t)
		conn, err := sql.Open("sqlite", db)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetMaxOpenConns(1)
		for _, s := range []string{"PRAGMA journal_mode=WAL", "PRAGMA wal_autocheckpoint=0", "PRAGMA user_version=23"} {
			if _, err := conn.Exec(s); err != nil {
				t.Fatal(err)
			}
		}
		live := filepath.Join(t.TempDir(), "agents", "main")
		os.MkdirAll(filepath.Join(live, "agent"), 0o700)
		os.MkdirAll(filepath.Join(live, "sessions"), 0o700)
		for _, suffix := range []string{"", "-wal"} { // as a backup taken while the gateway ran
			copyFile(t, db+suffix, filepath.Join(live, "agent", "openclaw-agent.sqlite"+suffix))
		}
		conn.Close()
		hdr := make([]byte, 64)
		f, _ := os.Open(filepath.Join(live, "agent", "openclaw-agent.sqlite"))
		io.ReadFull(f, hdr)
		f.Close()
		if hdr[63] != 1 {
			t.Fatalf("main file header says user_version %d; the test needs 1", hdr[63])
		}
		if e := store.DetectEra(filepath.Join(live, "sessions")); !e.SQLite || e.UserVersion != 23 {
			t.Errorf("DetectEra = %+v, want SQLite era from the WAL's schema 23", e)
		}
	})
	t.Run("damaged database", func(t *testing.T) {
		dir, db := copy611(t)
		if err := os.WriteFile(db, bytes.Repeat([]byte("not a database "), 100), 0o600); err != nil {
			t.Fatal(err)
		}
		e := store.DetectEra(dir)
		if e.SQLite || e.Unknown == "" || !e.ReadOnly() {
			t.Fatalf("DetectEra = %+v, want unknown", e)
		}
		err := store.CheckJSONEra(dir)
		if !errors.Is(err, store.ErrEraUnknown) || !strings.Contains(err.Error(), db) {
			t.Errorf("CheckJSONEra = %v, want ErrEraUnknown naming %s", err, db)
		}
	})
	t.Run("empty database file", func(t *testing.T) {
		dir, db := copy611(t)
		os.Remove(db + "-wal")
		os.Remove(db + "-shm")
		if err := os.WriteFile(db, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if e := store.DetectEra(dir); e.SQLite || e.Unknown != "" {
			t.Errorf("DetectEra = %+v", e)
		}
	})
	t.Run("import archive without a database", func(t *testing.T) {
		dir, db := copy611(t)
		for _, s := range []string{"", "-wal", "-shm"} {
			os.Remove(db + s)
		}
		os.Mkdir(filepath.Join(filepath.Dir(dir), store.ImportArchiveDir), 0o700)
		e := store.DetectEra(dir)
		if e.SQLite || e.ImportArchive == "" || len(e.Notes) != 1 {
			t.Errorf("DetectEra = %+v", e)
		}
	})
}

// TestDetectEraWritesNothing: telling the era never changes a byte or an mtime, and never
// creates a -shm or -wal file beside the database.
func TestDetectEraWritesNothing(t *testing.T) {
	for _, name := range fixtures.RealStates() {
		t.Run(name, func(t *testing.T) {
			state, dir := realState(t, name)
			before := snapshotTree(t, state)
			store.DetectEra(dir)
			if err := store.CheckJSONEra(dir); err != nil && !errors.Is(err, store.ErrSQLiteEra) {
				t.Fatal(err)
			}
			if after := snapshotTree(t, state); !maps.Equal(before, after) {
				t.Errorf("files changed:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

// snapshotTree is fixtures.Tree or a fatal error.
func snapshotTree(t *testing.T, root string) map[string]string {
	t.Helper()
	m, err := fixtures.Tree(root)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestInventoryDatabase(t *testing.T) {
	state, dir := realState(t, fixtures.SQLite96)
	s, err := store.Inventory(context.Background(), []store.Target{{Agent: "main", SessionsDir: dir, StateDir: state}}, store.StatsOptions{Now: now}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := s.Agents[0]
	d := a.DB
	if d == nil || d.Error != "" {
		t.Fatalf("DB stats %+v", d)
	}
	if d.Schema != 23 || d.AppVersion != "2026.9.6" || d.Nodes != 8 || d.Windows != 8 || d.Sessions != 8 || d.Events != 211 || d.ByReason["unset"] != 8 {
		t.Errorf("DB stats %+v", d)
	}
	fi, _ := os.Stat(d.Path)
	if d.DBBytes != fi.Size() || d.DiskBytes != d.DBBytes+d.WALBytes+a.Files.Bytes || a.Files.Bytes == 0 {
		t.Errorf("bytes: db %d wal %d disk %d, files %d", d.DBBytes, d.WALBytes, d.DiskBytes, a.Files.Bytes)
	}
	// A damaged database is reported, not fatal.
	os.WriteFile(d.Path, []byte("SQLite format 3\x00 but nothing else of use, long enough for a header........................................................"), 0o600)
	s, err = store.Inventory(context.Background(), []store.Target{{Agent: "main", SessionsDir: dir, StateDir: state}}, store.StatsOptions{Now: now}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a := s.Agents[0]; a.DB != nil || !a.Era.ReadOnly() || a.Era.Unknown == "" {
		t.Errorf("damaged database: era %+v db %+v", a.Era, a.DB)
	}
}

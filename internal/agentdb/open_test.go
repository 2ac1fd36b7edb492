package agentdb_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/agentdb"
)

// realDB extracts the agent database of a real state into a temp dir and returns its path.
func realDB(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "agent")
	if err := fixtures.WriteAgentDB(name, dir); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, agentdb.FileName)
}

func TestOpenRealDatabases(t *testing.T) {
	for _, tc := range []struct {
		state    string
		version  int
		app      string
		sessions bool
	}{
		{fixtures.JSONL611, 1, "", false},
		{fixtures.SQLite81, 19, "2026.8.1", true},
		{fixtures.SQLite96, 23, "2026.9.6", true},
	} {
		t.Run(tc.state, func(t *testing.T) {
			db, err := agentdb.Open(context.Background(), realDB(t, tc.state))
			if err != nil {
				t.Fatal(err)
			}
			if db.UserVersion != tc.version || db.Meta.SchemaVersion != tc.version || db.Meta.Role != "agent" || db.Meta.AgentID != "main" || db.Meta.AppVersion != tc.app {
				t.Errorf("version %d meta %+v", db.UserVersion, db.Meta)
			}
			if db.HasSessions() != tc.sessions {
				t.Errorf("HasSessions = %v", db.HasSessions())
			}
			err = db.CheckSessions()
			if tc.sessions != (err == nil) || (!tc.sessions && !errors.Is(err, agentdb.ErrNoSessions)) {
				t.Errorf("CheckSessions = %v", err)
			}
			if db.Copied {
				t.Error("a database without WAL frames was copied")
			}
			if err := db.Close(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestOpenLiveWAL: while a writer holds uncheckpointed transactions in the WAL, Open reads
// them (from a copy), and creates nothing beside the user's database.
func TestOpenLiveWAL(t *testing.T) {
	path := realDB(t, fixtures.SQLite96)
	os.Remove(path + "-wal")
	os.Remove(path + "-shm")
	w, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA journal_mode=WAL", "PRAGMA wal_autocheckpoint=0",
		"UPDATE schema_meta SET app_version = 'live' WHERE meta_key = 'primary'"} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	shm, _ := os.ReadFile(path + "-shm")
	db, err := agentdb.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if !db.Copied || db.Meta.AppVersion != "live" {
		t.Errorf("copied %v, app version %q: the WAL's transaction was not seen", db.Copied, db.Meta.AppVersion)
	}
	if err := db.Close(); err != nil {
		t.Error(err)
	}
	if after, _ := os.ReadFile(path + "-shm"); string(after) != string(shm) {
		t.Error("reading changed the writer's -shm index")
	}
}

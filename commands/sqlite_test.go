package commands

import (
	"bytes"
	"context"
	"database/sql"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/agentdb"
)

// runCLI runs clawdoctor in process and returns its exit status and output.
func runCLI(args ...string) (int, string) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), append([]string{"clawdoctor", "--no-progress", "--now", "2026-06-15T12:00:00Z"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String() + errb.String()
}

// sqliteCommands is every command a user can point at a SQLite-era state dir, the writing
// ones with every flag that asks them to write.
func sqliteCommands(st, out string) [][]string {
	db := filepath.Join(st, "agents", "main", "agent", agentdb.FileName)
	sessions := filepath.Join(st, "agents", "main", "sessions")
	cmds := [][]string{
		{"--state-dir", st, "stats"},
		{"--state-dir", st, "--json", "stats"},
		{"--state-dir", st, "audit", st},
		{"audit", db},
		{"validate", db},
		{"--state-dir", st, "replay", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--session", "agent:main:main"},
		{"--state-dir", st, "export", "--out", out, "--archives"},
		{"--state-dir", st, "doctor"},
		{"--state-dir", st, "doctor", "--fix"},
		{"--state-dir", st, "doctor", "--fix", "--yes"},
		{"--state-dir", st, "doctor", "--fix", "--yes", "--force", "--rebuild-store"},
		{"--state-dir", st, "cleanup", "--dry-run"},
		{"--state-dir", st, "cleanup"},
		{"--state-dir", st, "cleanup", "--enforce"},
		{"--state-dir", st, "cleanup", "--enforce", "--force", "--fix-missing"},
		{"cleanup", "--enforce", "--store", db},
		{"repair", sessions},
		{"repair", "--rebuild-store", sessions},
		{"repair", "--force", sessions},
	}
	ents, _ := os.ReadDir(sessions)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".jsonl") || strings.Contains(e.Name(), ".jsonl.") {
			cmds = append(cmds, []string{"repair", "--force", filepath.Join(sessions, e.Name())})
		}
	}
	return cmds
}

// TestSQLiteEraNeverWritten: on real SQLite-era state dirs (made by 2026.8.1 and 2026.9.6,
// one half-migrated), every command, doctor --fix --yes and cleanup --enforce included,
// leaves every file with the same bytes and mtime, and creates none (no -shm, no backup).
func TestSQLiteEraNeverWritten(t *testing.T) {
	for _, name := range []string{fixtures.SQLite81, fixtures.SQLite96, fixtures.Half96} {
		t.Run(name, func(t *testing.T) {
			st := filepath.Join(t.TempDir(), "state")
			if err := fixtures.WriteRealState(name, st); err != nil {
				t.Fatal(err)
			}
			before, err := fixtures.Tree(st)
			if err != nil {
				t.Fatal(err)
			}
			for i, args := range sqliteCommands(st, filepath.Join(t.TempDir(), "export")) {
				code, out := runCLI(args...)
				after, err := fixtures.Tree(st)
				if err != nil {
					t.Fatal(err)
				}
				if !maps.Equal(before, after) {
					t.Fatalf("command %d %q (exit %d) changed the state dir: %s\n%s", i, args, code, treeDiff(before, after), out)
				}
				if code == exitIO || code == exitUsage {
					t.Errorf("command %q: exit %d\n%s", args, code, out)
				}
				if args[len(args)-1] == "--enforce" && code != exitPartial {
					t.Errorf("%q: exit %d, want 3 (refused)", args, code)
				}
			}
		})
	}
}

// TestSQLiteEraLiveWAL: while a gateway holds uncommitted-to-the-file transactions in the WAL,
// the reading commands see them and leave the database, WAL and -shm exactly as they are.
func TestSQLiteEraLiveWAL(t *testing.T) {
	st := filepath.Join(t.TempDir(), "state")
	if err := fixtures.WriteRealState(fixtures.SQLite96, st); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(st, "agents", "main", "agent", agentdb.FileName)
	w, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA journal_mode=WAL", "PRAGMA wal_autocheckpoint=0",
		`UPDATE session_nodes SET entry_json = json_set(entry_json, '$.label', 'live') WHERE session_key = 'agent:main:main'`} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	before, _ := fixtures.Tree(st)
	out := filepath.Join(t.TempDir(), "export")
	for _, args := range [][]string{{"--state-dir", st, "stats"}, {"--state-dir", st, "audit", st}, {"--state-dir", st, "doctor", "--fix", "--yes"},
		{"--state-dir", st, "cleanup", "--dry-run"}, {"--state-dir", st, "export", "--out", out}} {
		code, msg := runCLI(args...)
		if after, _ := fixtures.Tree(st); !maps.Equal(before, after) {
			t.Fatalf("%q (exit %d) changed a live database's files: %s\n%s", args, code, treeDiff(before, after), msg)
		}
	}
	data, _ := os.ReadFile(filepath.Join(out, "sessions.json"))
	if !bytes.Contains(data, []byte(`"label": "live"`)) {
		t.Error("export did not see the transaction in the WAL")
	}
}

func treeDiff(a, b map[string]string) string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, "changed or removed "+k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, "created "+k)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

// damage is one kind of bad input, applied to the database of a real 2026.9.6 state dir.
type damage struct {
	name string
	// apply damages db and returns the session the damage is in ("" when it is the file).
	apply func(t *testing.T, db string) string
}

func execDB(t *testing.T, db string, stmts ...string) {
	t.Helper()
	c, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, s := range stmts {
		if _, err := c.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

var damages = []damage{
	{"not a database", func(t *testing.T, db string) string {
		os.WriteFile(db, bytes.Repeat([]byte("garbage!"), 4096), 0o600)
		return ""
	}},
	{"damaged pages", func(t *testing.T, db string) string {
		data, _ := os.ReadFile(db)
		for i := 4096; i < len(data); i += 4096 {
			copy(data[i:], "\xff\xff\xff\xff\xff\xff\xff\xff")
		}
		os.WriteFile(db, data, 0o600)
		return ""
	}},
	{"unknown schema", func(t *testing.T, db string) string {
		execDB(t, db, "PRAGMA user_version = 99")
		return ""
	}},
	{"truncated zstd event", func(t *testing.T, db string) string {
		c, _ := sql.Open("sqlite", db)
		var sid string
		c.QueryRow("SELECT session_id FROM transcript_events WHERE event_zstd IS NOT NULL ORDER BY rowid LIMIT 1").Scan(&sid)
		c.Close()
		execDB(t, db, "PRAGMA ignore_check_constraints = ON",
			"UPDATE transcript_events SET event_zstd = substr(event_zstd, 1, 40) WHERE rowid = (SELECT min(rowid) FROM transcript_events WHERE event_zstd IS NOT NULL)")
		return sid
	}},
	{"missing WAL", func(t *testing.T, db string) string {
		// A copy taken while a gateway held committed frames in the WAL, without the WAL.
		w, _ := sql.Open("sqlite", db)
		w.SetMaxOpenConns(1)
		for _, q := range []string{"PRAGMA journal_mode=WAL", "PRAGMA wal_autocheckpoint=0", "UPDATE schema_meta SET app_version = 'live'"} {
			if _, err := w.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		dbData, _ := os.ReadFile(db)
		shm, _ := os.ReadFile(db + "-shm")
		w.Close()
		os.Remove(db + "-wal")
		os.WriteFile(db, dbData, 0o600)
		os.WriteFile(db+"-shm", shm, 0o600)
		return ""
	}},
}

// TestSQLiteBadInput: a damaged database, an unknown schema, a truncated zstd event or a lost
// WAL gets a clear error naming the file (and the session and seq of a bad event), exit 3 or
// 4, from every command, and nothing is written.
func TestSQLiteBadInput(t *testing.T) {
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			st := filepath.Join(t.TempDir(), "state")
			if err := fixtures.WriteRealState(fixtures.SQLite96, st); err != nil {
				t.Fatal(err)
			}
			db := filepath.Join(st, "agents", "main", "agent", agentdb.FileName)
			os.Remove(db + "-wal")
			os.Remove(db + "-shm")
			session := d.apply(t, db)
			before, _ := fixtures.Tree(st)
			out := filepath.Join(t.TempDir(), "export")
			replayWhat := "agent:main:main"
			if session != "" {
				replayWhat = session
			}
			for _, c := range []struct {
				args   []string
				events bool // reads transcript events (sees a damaged one)
			}{
				{[]string{"--state-dir", st, "stats"}, false},
				{[]string{"--state-dir", st, "audit", "--fail-on", "never", st}, true},
				{[]string{"validate", db}, true},
				{[]string{"--state-dir", st, "replay", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--session", replayWhat}, true},
				{[]string{"--state-dir", st, "export", "--out", out}, true},
				// salvage writes what it can read (elsewhere) and still exits 3, naming the loss
				{[]string{"--state-dir", st, "export", "--salvage", "--out", filepath.Join(t.TempDir(), "salvaged")}, true},
				{[]string{"--state-dir", st, "doctor", "--fix", "--yes"}, true},
				{[]string{"--state-dir", st, "cleanup", "--dry-run"}, false},
			} {
				args := c.args
				code, msg := runCLI(args...)
				if session != "" && !c.events {
					continue // they read no events: a damaged event is not theirs to see
				}
				if code != exitPartial && code != exitIO {
					t.Errorf("%q: exit %d, want 3 or 4\n%s", args, code, msg)
				}
				if !strings.Contains(msg, db) {
					t.Errorf("%q: the message does not name %s:\n%s", args, db, msg)
				}
				if session != "" && (!strings.Contains(msg, session) || !strings.Contains(msg, "seq")) {
					t.Errorf("%q: the message does not name session %s and its seq:\n%s", args, session, msg)
				}
				if after, _ := fixtures.Tree(st); !maps.Equal(before, after) {
					t.Fatalf("%q wrote: %s", args, treeDiff(before, after))
				}
			}
			if ents, err := os.ReadDir(out); err == nil && len(ents) > 0 {
				t.Errorf("export left %d files in %s", len(ents), out)
			}
		})
	}
}

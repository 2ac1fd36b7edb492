package agentdb

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/fixtures"
)

// copy96 writes the real 2026.9.6 agent database into a temp dir without its empty -wal and
// -shm, and returns its path.
func copy96(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "agent")
	if err := fixtures.WriteAgentDB(fixtures.SQLite96, dir); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, FileName)
	os.Remove(p + "-wal")
	os.Remove(p + "-shm")
	return p
}

func execSQL(t *testing.T, path string, stmts ...string) {
	t.Helper()
	c, err := sql.Open("sqlite", path)
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

// readAll streams every session and returns the first error.
func readAll(db *DB) error {
	sessions, err := db.Sessions(context.Background())
	if err != nil {
		return err
	}
	for _, s := range sessions {
		tr, err := db.Transcript(context.Background(), s.ID)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, tr)
		tr.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, path string)
		want    error
		// says lists what the message must name beyond the file.
		says []string
	}{
		{"not a database", func(t *testing.T, p string) {
			os.WriteFile(p, []byte(strings.Repeat("garbage ", 1000)), 0o600)
		}, ErrNotDatabase, []string{"no SQLite header"}},
		{"truncated header", func(t *testing.T, p string) {
			os.WriteFile(p, []byte("SQLite format 3\x00\x10"), 0o600)
		}, ErrNotDatabase, []string{"shorter than a database header"}},
		{"damaged pages", func(t *testing.T, p string) {
			data, _ := os.ReadFile(p)
			for i := 4096; i < len(data); i += 4096 { // keep page 1, scramble every b-tree page header
				copy(data[i:], "\xff\xff\xff\xff\xff\xff\xff\xff")
			}
			os.WriteFile(p, data, 0o600)
		}, ErrCorrupt, nil},
		{"newer schema", func(t *testing.T, p string) {
			execSQL(t, p, "PRAGMA user_version = 99")
		}, ErrUnknownSchema, []string{"schema version 99", "newer than the newest clawdoctor knows"}},
		// issue 31, scope 6: -1 was accepted as a known schema while 99 was refused
		{"negative schema version", func(t *testing.T, p string) {
			execSQL(t, p, "PRAGMA user_version = -1")
		}, ErrUnknownSchema, []string{"schema version -1", "negative user_version"}},
		{"missing column", func(t *testing.T, p string) {
			execSQL(t, p, "ALTER TABLE transcript_events RENAME COLUMN event_json TO event_text")
		}, ErrUnknownSchema, []string{"table transcript_events has no column event_json"}},
		{"truncated zstd event", func(t *testing.T, p string) {
			execSQL(t, p, "PRAGMA ignore_check_constraints = ON",
				"UPDATE transcript_events SET event_zstd = substr(event_zstd, 1, length(event_zstd) / 2) WHERE rowid = (SELECT min(rowid) FROM transcript_events WHERE event_zstd IS NOT NULL)")
		}, ErrEvent, []string{"session ", "event seq ", "does not decode"}},
		{"zstd event of the wrong size", func(t *testing.T, p string) {
			execSQL(t, p, "PRAGMA ignore_check_constraints = ON",
				"UPDATE transcript_events SET event_utf8_bytes = event_utf8_bytes + 1 WHERE rowid = (SELECT min(rowid) FROM transcript_events WHERE event_zstd IS NOT NULL)")
		}, ErrEvent, []string{"event_utf8_bytes says"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := copy96(t)
			tc.prepare(t, p)
			os.Remove(p + "-wal")
			os.Remove(p + "-shm")
			before, _ := os.ReadFile(p)
			db, err := OpenSessions(ctx, p)
			if err == nil {
				err = readAll(db)
				if cerr := db.Close(); err == nil {
					err = cerr
				}
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name %s", err, p)
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			if after, _ := os.ReadFile(p); string(after) != string(before) {
				t.Error("the database was changed")
			}
			for _, side := range []string{"-wal", "-shm", "-journal"} {
				if _, err := os.Stat(p + side); err == nil {
					t.Errorf("%s was created", side)
				}
			}
		})
	}
}

// liveWAL leaves a committed transaction in the WAL of a copy of the 2026.9.6 database, as a
// running gateway does, and returns the path and a func to end the writer.
func liveWAL(t *testing.T) (string, func()) {
	p := copy96(t)
	w, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA journal_mode=WAL", "PRAGMA wal_autocheckpoint=0", "UPDATE schema_meta SET app_version = 'live'"} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return p, func() { w.Close() }
}

func TestMissingWAL(t *testing.T) {
	p, stop := liveWAL(t)
	// A backup that took the database and its -shm index but lost the -wal.
	dst := filepath.Join(t.TempDir(), FileName)
	for _, s := range []string{"", "-shm"} {
		data, err := os.ReadFile(p + s)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(dst+s, data, 0o600)
	}
	stop()
	_, err := Open(context.Background(), dst)
	if !errors.Is(err, ErrMissingWAL) || !strings.Contains(err.Error(), dst) || !strings.Contains(err.Error(), "-wal does not exist") {
		t.Fatalf("err = %v, want ErrMissingWAL naming the file", err)
	}
}

// TestMissingWALTruncated: a WAL cut short loses the same transactions.
func TestMissingWALTruncated(t *testing.T) {
	p, stop := liveWAL(t)
	defer stop()
	dst := filepath.Join(t.TempDir(), FileName)
	for _, s := range []string{"", "-shm", "-wal"} {
		data, err := os.ReadFile(p + s)
		if err != nil {
			t.Fatal(err)
		}
		if s == "-wal" {
			data = data[:len(data)/2]
		}
		os.WriteFile(dst+s, data, 0o600)
	}
	if _, err := Open(context.Background(), dst); !errors.Is(err, ErrMissingWAL) || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("err = %v, want ErrMissingWAL (truncated)", err)
	}
}

func TestBusy(t *testing.T) {
	t.Run("keeps changing while copied", func(t *testing.T) {
		p, stop := liveWAL(t)
		defer stop()
		f, err := os.OpenFile(p+"-wal", os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		attempts := 0
		testHookCopied = func(int) { attempts++; f.Write(make([]byte, 10)) } // a gateway appending frames
		defer func() { testHookCopied = nil }()
		_, err = Open(context.Background(), p)
		if !errors.Is(err, ErrBusy) || attempts != 5 || !strings.Contains(err.Error(), p) {
			t.Fatalf("err = %v after %d attempts, want ErrBusy after 5", err, attempts)
		}
	})
	t.Run("settles after one change", func(t *testing.T) {
		p, stop := liveWAL(t)
		defer stop()
		testHookCopied = func(attempt int) {
			if attempt == 0 {
				os.Chtimes(p+"-wal", time0, time0)
			}
		}
		defer func() { testHookCopied = nil }()
		db, err := Open(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
	})
	t.Run("changed under an in-place read", func(t *testing.T) {
		p := copy96(t)
		db, err := Open(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if db.Copied {
			t.Fatal("no WAL, yet copied")
		}
		os.Chtimes(p, time0, time0) // a checkpoint wrote the main file meanwhile
		if err := db.Close(); !errors.Is(err, ErrBusy) {
			t.Fatalf("Close = %v, want ErrBusy", err)
		}
	})
}

var time0 = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

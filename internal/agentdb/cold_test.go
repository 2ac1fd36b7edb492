package agentdb

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
)

func coldState(t *testing.T) (db *DB, sessions, archive string) {
	t.Helper()
	dir := t.TempDir()
	if err := fixtures.WriteRealState(fixtures.Cold96, dir); err != nil {
		t.Fatal(err)
	}
	db, err := OpenSessions(context.Background(), filepath.Join(dir, "agents", "main", "agent", FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, filepath.Join(dir, "agents", "main", "sessions"), filepath.Join(dir, "agents", "main", "session-sqlite-import-archive")
}

// issue 29, scope 7: the four sessions the real 2026.9.6 moved to cold storage verify as
// OpenClaw verifies them, and read back as the transcripts imported before, byte for byte.
func TestColdEventsAreTheOriginals(t *testing.T) {
	db, sessions, archive := coldState(t)
	cold, err := db.ColdArchives(context.Background())
	if err != nil || len(cold) != 4 {
		t.Fatalf("%d cold archives, %v", len(cold), err)
	}
	for _, c := range cold {
		var got bytes.Buffer
		err := db.ColdEvents(context.Background(), sessions, c, func(_ int64, line []byte) error {
			got.Write(line)
			got.WriteByte('\n')
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		m, _ := filepath.Glob(filepath.Join(archive, "*."+c.SessionID+"*.jsonl.imported-*"))
		if len(m) != 1 {
			t.Fatalf("%s: originals %v", c.SessionID, m)
		}
		want, _ := os.ReadFile(m[0])
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: the cold archive's events are not the imported transcript", c.SessionID)
		}
	}
}

func TestColdVerification(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(path string)
		want   string
	}{
		{"a byte changed", func(p string) {
			b, _ := os.ReadFile(p)
			b[len(b)/2] ^= 1
			os.WriteFile(p, b, 0o600)
		}, "bytes hashing to"},
		{"a byte added", func(p string) {
			b, _ := os.ReadFile(p)
			os.WriteFile(p, append(b, 0), 0o600)
		}, "bytes hashing to"},
		{"missing", func(p string) { os.Remove(p) }, "missing or unreadable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, sessions, _ := coldState(t)
			cold, _ := db.ColdArchives(context.Background())
			p, err := ColdPath(sessions, cold[0])
			if err != nil {
				t.Fatal(err)
			}
			tc.damage(p)
			err = db.VerifyCold(context.Background(), sessions, cold[0])
			if !errors.Is(err, ErrArchiveHash) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), cold[0].SessionID) {
				t.Errorf("VerifyCold: %v", err)
			}
			if err := db.ColdEvents(context.Background(), sessions, cold[0], func(int64, []byte) error { return nil }); !errors.Is(err, ErrArchiveHash) {
				t.Errorf("ColdEvents read a damaged archive: %v", err)
			}
			if err := db.VerifyCold(context.Background(), sessions, cold[1]); err != nil {
				t.Errorf("an intact archive: %v", err)
			}
		})
	}
}

// An archive kept in the database verifies by the sha256 of its blob (OpenClaw's
// hashSessionArchiveBytes(archive_blob)); none of the real fixtures holds one, so two are
// written into a copy of the real 2026.9.6 database with the table's own schema.
func TestArchiveHash(t *testing.T) {
	dir := t.TempDir()
	if err := fixtures.WriteRealState(fixtures.SQLite96, dir); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "agents", "main", "agent", FileName)
	conn, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	blob := []byte(`{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}` + "\n")
	sum := sha256.Sum256(blob)
	for _, r := range []struct{ gen, sha, name string }{
		{"g1", hex.EncodeToString(sum[:]), "s1.jsonl.deleted.2026-01-01T00-00-00.000Z"},
		{"g2", strings.Repeat("0", 64), "s1.jsonl.reset.2026-01-02T00-00-00.000Z"},
	} {
		_, err := conn.Exec(`INSERT INTO session_transcript_archives (session_id, generation, session_key, reason, encoding, archive_blob, archive_sha256, archive_name, created_at)
			VALUES ('s1', ?, 'agent:main:x', 'deleted', 'identity', ?, ?, ?, 1)`, r.gen, blob, r.sha, r.name)
		if err != nil {
			t.Fatal(err)
		}
	}
	conn.Close()
	db, err := OpenSessions(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	archives, err := db.Archives(context.Background())
	if err != nil || len(archives) != 2 {
		t.Fatalf("%d archives, %v", len(archives), err)
	}
	if _, content, err := db.ArchiveContent(context.Background(), archives[0]); err != nil || !bytes.Equal(content, blob) {
		t.Errorf("the archive that matches its hash: %v", err)
	}
	if _, _, err := db.ArchiveContent(context.Background(), archives[1]); !errors.Is(err, ErrArchiveHash) {
		t.Errorf("the archive that does not: %v", err)
	}
}

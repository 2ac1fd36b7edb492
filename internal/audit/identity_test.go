package audit

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/agentdb"
)

// TestIdentKeysNote: a line's keys are kept as read, an entry without an id is told from a
// line never read, a second value on one line makes the line a doubt, and a session past
// maxIdentLines keeps nothing.
func TestIdentKeysNote(t *testing.T) {
	var k identKeys
	k.note(1, 11, 0)
	k.note(3, 0, 7) // no id
	k.note(4, 12, 11)
	k.note(4, 13, 12) // objects glued on line 4
	want := []uint64{11, 0, 0, 0, noIDKey, 7, doubtKey, doubtKey}
	if len(k.keys) != len(want) {
		t.Fatalf("keys %v, want %v", k.keys, want)
	}
	for i := range want {
		if k.keys[i] != want[i] {
			t.Fatalf("keys %v, want %v", k.keys, want)
		}
	}
	k.note(maxIdentLines+1, 5, 5)
	if !k.over || k.keys != nil {
		t.Fatalf("a line past maxIdentLines: over %v, %d keys kept", k.over, len(k.keys))
	}
	var none *identKeys
	none.note(1, 1, 1) // a scan of a file has none: no panic
}

// TestIdentitiesAgree holds the check that spares SQL its second read of every event: on the
// real 2026.9.6 import every session's identity rows agree with the ids the scan read; a row
// that names another id or parent, a session with a gap and a session read with more than one
// value on a line do not (SQL decides those); a deleted identity row is no disagreement (SQL
// finds nothing for a row that is not there either).
func TestIdentitiesAgree(t *testing.T) {
	ctx := context.Background()
	state := filepath.Join(t.TempDir(), "s")
	if err := fixtures.WriteRealState(fixtures.SQLite96, state); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(state, "agents", "main", "agent", agentdb.FileName)
	agree := func() map[string]bool {
		db, err := agentdb.OpenSessions(ctx, dbPath)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		sessions, err := db.Sessions(ctx)
		if err != nil || len(sessions) < 4 {
			t.Fatalf("%d sessions, %v", len(sessions), err)
		}
		out := map[string]bool{}
		for _, s := range sessions {
			tr, err := db.Transcript(ctx, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			sc := newScan(ctx, s.ID, Options{})
			sc.ident = &identKeys{}
			if _, _, err := sc.run(tr); err != nil {
				t.Fatal(err)
			}
			tr.Close()
			out[s.ID] = identitiesAgree(ctx, db, s.ID, tr.FirstGap, sc.ident, sc.seed)
		}
		return out
	}
	before := agree()
	var ids []string
	for id, ok := range before {
		if !ok {
			t.Errorf("session %s: the identity rows of the real import do not agree with its events", id)
		}
		ids = append(ids, id)
	}
	c, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range []string{
		`UPDATE transcript_event_identities SET event_id = 'other' WHERE session_id = '` + ids[0] + `' AND seq = 2`,
		`UPDATE transcript_event_identities SET parent_id = 'other' WHERE session_id = '` + ids[1] + `' AND seq = 3`,
		`PRAGMA foreign_keys = OFF`,
		`DELETE FROM transcript_events WHERE session_id = '` + ids[2] + `' AND seq = 1`,
		`DELETE FROM transcript_event_identities WHERE session_id = '` + ids[3] + `' AND seq = 2`,
	} {
		if _, err := c.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	after := agree()
	for i, want := range []bool{false, false, false, true} {
		if after[ids[i]] != want {
			t.Errorf("session %d (%s): agree %v, want %v", i, ids[i], after[ids[i]], want)
		}
	}
	for _, id := range ids[4:] {
		if !after[id] {
			t.Errorf("session %s, not changed: no longer agrees", id)
		}
	}
}

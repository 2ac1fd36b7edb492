package agentdb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
)

type identityRow struct {
	seq           int64
	id, parent    string
	parentNotNull bool
}

func identities(t *testing.T, db *DB, session string) []identityRow {
	t.Helper()
	var out []identityRow
	err := db.Identities(context.Background(), session, func(seq int64, id, parent []byte) error {
		out = append(out, identityRow{seq, string(id), string(parent), parent != nil})
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", session, err)
	}
	return out
}

// compareIdentities holds Identities read from the file to Identities through SQL, session by
// session; it returns how many sessions the raw reader served.
func compareIdentities(t *testing.T, path string) (rawSessions int) {
	t.Helper()
	ctx := context.Background()
	raw, err := OpenSessions(ctx, path)
	if errors.Is(err, ErrNoSessions) {
		return 0
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
	for _, s := range sessions {
		want, got := identities(t, plain, s.ID), identities(t, raw, s.ID)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s %s: raw identity rows %v, sql %v", filepath.Base(path), s.ID, got, want)
		}
		if raw.rawID != nil && len(want) > 0 {
			rawSessions++
		}
	}
	return rawSessions
}

// TestRawIdentitiesEqualsSQL: the identity rows read from the file's (session_id, seq) index
// are SQL's, row for row and in seq order, on the real 2026.8.1 and 2026.9.6 databases, on a
// generated one, on copies with the rows in random rowid order and 512-byte pages, and on one
// whose index is gone or has another key (then SQL reads them: no session is served raw).
func TestRawIdentitiesEqualsSQL(t *testing.T) {
	dir := t.TempDir()
	served := 0
	for _, path := range realDatabases(t, dir) {
		served += compareIdentities(t, path)
	}
	if served == 0 {
		t.Error("the raw reader served no identity rows of the real databases")
	}
	gen := filepath.Join(dir, "gen")
	layouts := generatedLayouts(t, gen, 12<<20, "transcript_event_identities")
	for _, p := range layouts {
		if n := compareIdentities(t, p); n == 0 {
			t.Errorf("%s: no session's identity rows read raw", filepath.Base(p))
		}
	}
	path := layouts[0]
	for name, stmts := range map[string][]string{
		"dropped":    {`DROP INDEX idx_agent_transcript_event_identity_sequence`},
		"descending": {`DROP INDEX idx_agent_transcript_event_identity_sequence`, `CREATE INDEX idx_agent_transcript_event_identity_sequence ON transcript_event_identities(session_id, seq DESC)`},
		"partial":    {`DROP INDEX idx_agent_transcript_event_identity_sequence`, `CREATE INDEX idx_agent_transcript_event_identity_sequence ON transcript_event_identities(session_id, seq) WHERE seq > 3`},
		"nocase":     {`DROP INDEX idx_agent_transcript_event_identity_sequence`, `CREATE INDEX idx_agent_transcript_event_identity_sequence ON transcript_event_identities(session_id COLLATE NOCASE, seq)`},
	} {
		p := filepath.Join(gen, name+".sqlite")
		rewrite(t, path, p, stmts...)
		if n := compareIdentities(t, p); n != 0 {
			t.Errorf("%s index: %d sessions' identity rows read raw", name, n)
		}
	}
	// a duplicate seq in the index (not unique): the raw reader hands over, rows still equal
	dup := filepath.Join(gen, "dup.sqlite")
	rewrite(t, path, dup, `INSERT INTO transcript_event_identities SELECT session_id, event_id || '-again', seq, event_type, parent_id, NULL, created_at FROM transcript_event_identities WHERE seq = 2`)
	compareIdentities(t, dup)
}

// TestRawOverflowingKeys: session ids too long for an index cell of a 512-byte page (over 102
// bytes of key), so each (session_id, seq) entry spills into overflow pages, and ids that share
// their first 700 bytes, so the walks must read the overflow to order them. Events, session
// list and identity rows read from the file are SQL's.
func TestRawOverflowingKeys(t *testing.T) {
	dir := t.TempDir()
	if _, err := fixtures.Generate(context.Background(), filepath.Join(dir, "jsonl"), fixtures.Options{
		Sessions: 3, Size: 3 << 20, Seed: 6, SQLiteOut: filepath.Join(dir, "db")}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "db", "agents", "main", "agent", FileName)
	const long = `substr(replace(hex(zeroblob(400)), '0', 'x'), 1, 700)`
	for name, id := range map[string]string{
		"suffix": `session_id || '-' || ` + long, // the ids differ in their first bytes
		"prefix": long + ` || session_id`,        // they differ only past 700 bytes
	} {
		p := filepath.Join(dir, name+".sqlite")
		rewrite(t, path, p, `PRAGMA foreign_keys = OFF`,
			`UPDATE transcript_events SET session_id = `+id,
			`UPDATE transcript_event_identities SET session_id = `+id,
			`UPDATE session_windows SET session_id = `+id,
			`UPDATE session_nodes SET current_session_id = `+strings.ReplaceAll(id, "session_id", "current_session_id"),
			`PRAGMA page_size = 512`, `VACUUM`)
		if n := compareRawSQL(t, p); n == 0 {
			t.Errorf("%s: no session's events read raw", name)
		}
		if n := compareIdentities(t, p); n == 0 {
			t.Errorf("%s: no session's identity rows read raw", name)
		}
		// and the raw reader read them to the end itself, never handing over to SQL
		ctx := context.Background()
		db, err := OpenSessions(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		sessions, err := db.Sessions(ctx)
		if err != nil || len(sessions) == 0 || len(sessions[0].ID) < 700 {
			t.Fatalf("%s: %d sessions, %v: the ids were not made long", name, len(sessions), err)
		}
		rt := db.rawIdentityReader(ctx)
		if rt == nil || db.rawReader(ctx) == nil {
			t.Fatalf("%s: no raw reader", name)
		}
		for _, s := range sessions {
			if _, tr, err := readEvents(t, db, s.ID, -1, nil); err != nil || tr.rows != nil {
				t.Errorf("%s %.20s…: the events were not all read raw (%v)", name, s.ID, err)
			}
			c := rt.cursor(s.ID)
			for {
				_, _, _, err := c.nextIdentity()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Errorf("%s %.20s…: the identity rows were handed over: %v", name, s.ID, err)
					break
				}
			}
			c.release()
		}
		db.Close()
	}
}

package audit_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	_ "modernc.org/sqlite"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/audit"
)

// comparable is a finding without where it was found: what must be equal between the audit
// of a database session and the audit of the JSONL it was imported from.
func comparable(fs []audit.Finding, name string) []string {
	var out []string
	for _, f := range fs {
		msg := strings.ReplaceAll(f.Message, name, "FILE")
		line := f.Line
		if seq, ok := f.Evidence["seq"].(int64); ok && strings.Contains(name, "#") {
			// a database session's finding names its row, seq N-1, where the file's names line N
			line = seq + 1
			msg = regexp.MustCompile(`\bseq (\d+)\b`).ReplaceAllStringFunc(msg, func(m string) string {
				var n int64
				fmt.Sscanf(m[len("seq "):], "%d", &n)
				return fmt.Sprintf("line %d", n+1)
			})
			ev := map[string]any{}
			for k, v := range f.Evidence {
				if k != "seq" {
					ev[k] = v
				}
			}
			f.Evidence = ev
		}
		ev, _ := json.Marshal(f.Evidence)
		out = append(out, fmt.Sprintf("%s %s line=%d entry=%s %s %s", f.Rule, f.Severity, line, f.EntryID, ev, msg))
	}
	sort.Strings(out)
	return out
}

func auditPaths(t *testing.T, paths ...string) *audit.Result {
	t.Helper()
	res, err := audit.Run(context.Background(), paths, audit.Options{Now: now}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// byPath groups findings by their path.
func byPath(res *audit.Result) map[string][]audit.Finding {
	out := map[string][]audit.Finding{}
	for _, f := range res.Findings {
		out[f.Path] = append(out[f.Path], f)
	}
	return out
}

// dbBytes reads one session of db as JSONL.
func dbBytes(t *testing.T, db *agentdb.DB, id string) []byte {
	t.Helper()
	tr, err := db.Transcript(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	b, err := io.ReadAll(tr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func headerID(data []byte) string {
	var h struct{ ID string }
	first, _, _ := bytes.Cut(data, []byte("\n"))
	json.Unmarshal(bytes.TrimPrefix(first, []byte("\xef\xbb\xbf")), &h)
	return h.ID
}

// TestAuditDatabaseEqualsJSONL: the audit of a session in a database made by the real
// OpenClaw import finds exactly what the audit of the JSONL it was imported from finds (same
// rules, severities, lines, entry ids, evidence and messages). Where the import changed the
// events (it drops a BOM, rewrites CRLF, keeps only the readable prefix of a damaged file),
// the database is compared with exactly the bytes it holds: the original's prefix, cut from
// the original, or the session is counted as rewritten.
func TestAuditDatabaseEqualsJSONL(t *testing.T) {
	for _, tc := range []struct {
		state                        string
		identical, prefix, rewritten int
		originalsInSessionsDir       bool
		minFindings                  int
	}{
		{fixtures.SQLite81, 6, 0, 0, false, 5},
		{fixtures.SQLite96, 8, 0, 0, false, 5},
		// torn and garbage lines: the import kept the readable prefix; BOM, CRLF and a second
		// header: it rewrote the events.
		{fixtures.Half96, 1, 2, 3, true, 1},
	} {
		t.Run(tc.state, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "s")
			if err := fixtures.WriteRealState(tc.state, state); err != nil {
				t.Fatal(err)
			}
			dbPath := filepath.Join(state, "agents", "main", "agent", agentdb.FileName)
			dbFindings := byPath(auditPaths(t, dbPath))
			origDir := filepath.Join(state, "agents", "main", "session-sqlite-import-archive")
			if tc.originalsInSessionsDir {
				origDir = filepath.Join(state, "agents", "main", "sessions")
			}
			db, err := agentdb.OpenSessions(context.Background(), dbPath)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ents, _ := os.ReadDir(origDir)
			var identical, prefix, rewritten, findings int
			for _, e := range ents {
				n := e.Name()
				if !strings.Contains(n, ".jsonl") || strings.Contains(n, "trajectory") || strings.Contains(n, "checkpoint") ||
					strings.HasPrefix(n, "archive-tier.") || strings.Contains(n, ".jsonl.reset.") || strings.Contains(n, ".jsonl.deleted.") {
					continue
				}
				origPath := filepath.Join(origDir, n)
				orig, _ := os.ReadFile(origPath)
				id := headerID(orig)
				if id == "" {
					id, _, _ = strings.Cut(n, ".jsonl")
				}
				got := dbBytes(t, db, id)
				ref := agentdb.Ref(dbPath, id)
				want := origPath
				switch {
				case bytes.Equal(got, orig):
					identical++
				case len(got) > 0 && bytes.HasPrefix(orig, got):
					prefix++
					want = filepath.Join(t.TempDir(), n)
					os.WriteFile(want, got, 0o600) // the readable prefix the import kept
				default:
					rewritten++
					continue
				}
				wantRes := auditPaths(t, want)
				w, g := comparable(byPath(wantRes)[want], want), comparable(dbFindings[ref], ref)
				if diff := cmp.Diff(w, g); diff != "" {
					t.Errorf("%s: findings differ (-jsonl +db):\n%s", n, diff)
				}
				findings += len(g)
			}
			if identical != tc.identical || prefix != tc.prefix || rewritten != tc.rewritten {
				t.Errorf("identical %d prefix %d rewritten %d, want %d %d %d", identical, prefix, rewritten, tc.identical, tc.prefix, tc.rewritten)
			}
			if findings < tc.minFindings {
				t.Errorf("only %d findings compared: the fixtures' injected faults were not seen", findings)
			}
		})
	}
}

// issue 29, scope 4: a database's bad rows are named as rows: a malformed event_json by its
// session and seq (not "line 4"), with a hint that works for a database (never `clawdoctor
// repair <db>`); rows deleted from a session (a seq gap) and identity rows that disagree with
// their events are findings of their own.
func TestDatabaseRowsNamedAsRows(t *testing.T) {
	state := filepath.Join(t.TempDir(), "s")
	if err := fixtures.WriteRealState(fixtures.SQLite96, state); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(state, "agents", "main", "agent", agentdb.FileName)
	c, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	var a, b string
	rows, err := c.Query(`SELECT session_id FROM transcript_events WHERE seq = 6 AND event_json IS NOT NULL GROUP BY session_id ORDER BY session_id`)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		ids = append(ids, s)
	}
	rows.Close()
	if len(ids) < 3 {
		t.Fatalf("the fixture has %d sessions of 7 JSON events", len(ids))
	}
	a, b = ids[0], ids[1]
	clean := ids[2] // its only damage: an identity row naming another id
	for _, q := range []string{
		`PRAGMA ignore_check_constraints = ON`,
		`UPDATE transcript_events SET event_json = '{"type":"message","id":"x' WHERE session_id = '` + a + `' AND seq = 3`,
		`UPDATE transcript_event_identities SET parent_id = 'not-the-parent' WHERE session_id = '` + a + `' AND seq = 5`,
		`PRAGMA foreign_keys = OFF`,
		`DELETE FROM transcript_event_identities WHERE session_id = '` + b + `' AND seq = 4`,
		`DELETE FROM transcript_events WHERE session_id = '` + b + `' AND seq = 4`,
		`UPDATE transcript_event_identities SET event_id = 'not-the-id' WHERE session_id = '` + clean + `' AND seq = 2`,
	} {
		if _, err := c.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	c.Close()
	res := auditPaths(t, dbPath)
	found := map[string]audit.Finding{}
	for _, f := range res.Findings {
		if strings.Contains(f.Hint, "clawdoctor repair") {
			t.Errorf("%s %s: the hint names a command refused for a database: %s", f.Rule, f.Path, f.Hint)
		}
		found[f.Rule+" "+f.Path] = f
	}
	mal, ok := found["jsonl.malformed-line "+agentdb.Ref(dbPath, a)]
	if !ok {
		t.Fatalf("the malformed row is not reported: %v", res.Findings)
	}
	if mal.Line != 0 || mal.Evidence["seq"] != int64(3) || !strings.Contains(mal.Message, "seq 3") || strings.Contains(mal.Message, "line 4") {
		t.Errorf("the malformed row is not named by its seq: line %d, evidence %v, %q", mal.Line, mal.Evidence, mal.Message)
	}
	if gap, ok := found["sqlite.seq-gap "+agentdb.Ref(dbPath, b)]; !ok || gap.Evidence["seq"] != int64(5) {
		t.Errorf("the deleted row is not reported as a gap at seq 5: %+v", gap)
	}
	if id, ok := found["sqlite.identity-mismatch "+agentdb.Ref(dbPath, a)]; !ok || id.Evidence["seq"] != int64(5) {
		t.Errorf("the identity row with another parent is not reported at seq 5: %+v", id)
	}
	// found by holding the identity rows to the ids the scan read (identitiesAgree), then SQL
	if id, ok := found["sqlite.identity-mismatch "+agentdb.Ref(dbPath, clean)]; !ok || id.Evidence["seq"] != int64(2) || id.Evidence["identityId"] != "not-the-id" {
		t.Errorf("the identity row with another id is not reported at seq 2: %+v", id)
	}
}

// issue 29, scope 7: audit verifies each cold archive as OpenClaw does before a restore (size,
// sha256, then its records), and never reads sessions/cold/ as transcripts.
func TestColdArchivesVerified(t *testing.T) {
	state := filepath.Join(t.TempDir(), "s")
	if err := fixtures.WriteRealState(fixtures.Cold96, state); err != nil {
		t.Fatal(err)
	}
	res := auditPaths(t, state)
	for _, f := range res.Findings {
		if strings.Contains(f.Path, string(filepath.Separator)+"cold"+string(filepath.Separator)) || f.Rule == "sqlite.cold-archive" {
			t.Errorf("intact cold storage: %s %s %s", f.Rule, f.Path, f.Message)
		}
	}
	cold, _ := filepath.Glob(filepath.Join(state, "agents", "main", "sessions", "cold", "*.jsonl.zst"))
	if len(cold) != 4 {
		t.Fatalf("%d cold archives", len(cold))
	}
	b, _ := os.ReadFile(cold[1])
	b[10] ^= 0xff
	os.WriteFile(cold[1], b, 0o600)
	os.Remove(cold[2])
	res = auditPaths(t, state)
	n := 0
	for _, f := range res.Findings {
		if f.Rule == "sqlite.cold-archive" {
			n++
			if !strings.Contains(f.Message, "missing") && !strings.Contains(f.Message, "hashing to") {
				t.Errorf("%s", f.Message)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d sqlite.cold-archive findings, want 2 (a changed byte, a missing file)", n)
	}
}

// An identity row that drifted in a session with no other finding is reported: the check
// once ran only on sessions that already had a finding (for the cost of its SQL), so this
// one went unseen. The generated database holds identity rows as the real import writes them.
func TestIdentityMismatchInCleanSession(t *testing.T) {
	dir := t.TempDir()
	if _, err := fixtures.Generate(context.Background(), filepath.Join(dir, "j"), fixtures.Options{
		Sessions: 8, Size: 2 << 20, Seed: 11, SQLiteOut: filepath.Join(dir, "db")}); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(dir, "db", "agents", "main", "agent", agentdb.FileName)
	had := byPath(auditPaths(t, dbPath))
	c, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rows, err := c.Query(`SELECT DISTINCT session_id FROM transcript_event_identities WHERE seq = 3 ORDER BY session_id`)
	if err != nil {
		t.Fatal(err)
	}
	clean := ""
	for rows.Next() {
		var id string
		rows.Scan(&id)
		if clean == "" && len(had[agentdb.Ref(dbPath, id)]) == 0 {
			clean = id
		}
	}
	rows.Close()
	if clean == "" {
		t.Fatal("every generated session has a finding: nothing shows the check on a clean one")
	}
	if _, err := c.Exec(`UPDATE transcript_event_identities SET parent_id = 'not-the-parent' WHERE session_id = ? AND seq = 3`, clean); err != nil {
		t.Fatal(err)
	}
	fs := byPath(auditPaths(t, dbPath))[agentdb.Ref(dbPath, clean)]
	if len(fs) != 1 || fs[0].Rule != "sqlite.identity-mismatch" || fs[0].Evidence["seq"] != int64(3) {
		t.Fatalf("the drifted identity row of the clean session: findings %+v, want one sqlite.identity-mismatch at seq 3", fs)
	}
}

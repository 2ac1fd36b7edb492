package export_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/export"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

func realState(t *testing.T, name string) (state, sessions string) {
	t.Helper()
	state = filepath.Join(t.TempDir(), "state")
	if err := fixtures.WriteRealState(name, state); err != nil {
		t.Fatal(err)
	}
	return state, filepath.Join(state, "agents", "main", "sessions")
}

func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	m, err := fixtures.Tree(root)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// originals maps header session ids to the transcripts the real import moved away.
func originals(t *testing.T, state string) map[string][]byte {
	t.Helper()
	dir := filepath.Join(state, "agents", "main", store.ImportArchiveDir)
	ents, _ := os.ReadDir(dir)
	out := map[string][]byte{}
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, "archive-tier.") || strings.Contains(n, "trajectory") || !strings.Contains(n, ".jsonl.imported-") {
			continue
		}
		data, _ := os.ReadFile(filepath.Join(dir, n))
		var h struct{ ID string }
		first, _, _ := bytes.Cut(data, []byte("\n"))
		json.Unmarshal(first, &h)
		out[h.ID] = data
	}
	return out
}

// TestExportByteIdentical: every session of the databases the real 2026.8.1 and 2026.9.6
// imports made comes out as the exact JSONL it was imported from, sessions.json resolves
// each row to its exported transcript, and the state dir is left exactly as it was.
func TestExportByteIdentical(t *testing.T) {
	for _, name := range []string{fixtures.SQLite81, fixtures.SQLite96} {
		t.Run(name, func(t *testing.T) {
			state, sessions := realState(t, name)
			before := tree(t, state)
			out := filepath.Join(t.TempDir(), "out")
			res, err := export.Run(context.Background(), export.Options{SessionsDir: sessions, StateDir: state, Out: out, Archives: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			orig := originals(t, state)
			exported := 0
			for id, want := range orig {
				got, err := os.ReadFile(filepath.Join(out, id+".jsonl"))
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s: export differs from the imported original (%d vs %d bytes, %v)", id, len(got), len(want), err)
				}
				exported++
			}
			if exported < 6 || res.Entries != len(orig) {
				t.Errorf("%d sessions compared, %d entries written", exported, res.Entries)
			}
			st, err := store.Load(res.Store)
			if err != nil {
				t.Fatal(err)
			}
			r := store.NewResolver(out, "main", "")
			for _, e := range st.Entries() {
				if p := r.Transcript(e).Path; !bytes.Equal(must(os.ReadFile(p)), orig[e.SessionID()]) {
					t.Errorf("row %s resolves to %s, not its exported transcript", e.Key, p)
				}
			}
			// The sessions dir's own archives are copied byte for byte with --archives.
			l, _ := store.List(sessions)
			for _, f := range l.Files {
				if f.Class.Kind.IsArchive() {
					if !bytes.Equal(must(os.ReadFile(filepath.Join(out, f.Name))), must(os.ReadFile(filepath.Join(sessions, f.Name)))) {
						t.Errorf("archive %s not copied", f.Name)
					}
				}
			}
			if after := tree(t, state); !maps.Equal(before, after) {
				t.Error("export changed the state dir")
			}
		})
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		return nil
	}
	return b
}

func TestExportRefuses(t *testing.T) {
	state, sessions := realState(t, fixtures.SQLite96)
	out := filepath.Join(t.TempDir(), "out")
	opts := export.Options{SessionsDir: sessions, StateDir: state, Out: out}
	if _, err := export.Run(context.Background(), opts, nil); err != nil {
		t.Fatal(err)
	}
	first := tree(t, out)
	// A second run would overwrite: nothing is written at all.
	os.Remove(filepath.Join(out, store.StoreFile))
	afterRemove := tree(t, out)
	if _, err := export.Run(context.Background(), opts, nil); !errors.Is(err, export.ErrExists) {
		t.Fatalf("second export = %v, want ErrExists", err)
	}
	if got := tree(t, out); !maps.Equal(got, afterRemove) || len(got) != len(first)-1 {
		t.Error("a refused export wrote something")
	}
	// Never into the state dir's agents (a .jsonl there would half-migrate the agent).
	for _, bad := range []string{sessions, filepath.Join(state, "agents", "other")} {
		o := opts
		o.Out = bad
		if _, err := export.Run(context.Background(), o, nil); !errors.Is(err, export.ErrInsideState) {
			t.Errorf("export to %s = %v, want ErrInsideState", bad, err)
		}
	}
	// A JSONL-era agent has nothing to export.
	st611, s611 := realState(t, fixtures.JSONL611)
	if _, err := export.Run(context.Background(), export.Options{SessionsDir: s611, StateDir: st611, Out: filepath.Join(t.TempDir(), "x")}, nil); !errors.Is(err, export.ErrNotSQLite) {
		t.Errorf("JSONL-era export = %v, want ErrNotSQLite", err)
	}
	// One session, by key.
	one := filepath.Join(t.TempDir(), "one")
	res, err := export.Run(context.Background(), export.Options{SessionsDir: sessions, StateDir: state, Out: one, Sessions: []string{"agent:main:main"}}, nil)
	if err != nil || len(res.Files) != 1 || res.Entries != 1 || filepath.Base(res.Files[0].Path) != "25240bfc-c18e-42f2-a79a-130255bd05a9.jsonl" {
		t.Errorf("one session: %+v, %v", res, err)
	}
}

// TestExportLiveDatabase: while a writer holds a new event in the WAL (a gateway running),
// export sees it, from a copy, and leaves the live files as they are.
func TestExportLiveDatabase(t *testing.T) {
	state, sessions := realState(t, fixtures.SQLite96)
	dbPath := filepath.Join(state, "agents", "main", "agent", agentdb.FileName)
	w, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	line := `{"type":"custom","customType":"clawdoctor-test","id":"live0001","parentId":null,"timestamp":"2026-05-02T08:00:00.000Z"}`
	for _, q := range []string{"PRAGMA journal_mode=WAL", "PRAGMA wal_autocheckpoint=0",
		`INSERT INTO transcript_events (session_id, seq, event_json, created_at) SELECT session_id, max(seq) + 1, '` + line + `', 0 FROM transcript_events WHERE session_id = '25240bfc-c18e-42f2-a79a-130255bd05a9'`} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	before := tree(t, filepath.Join(state, "agents"))
	out := filepath.Join(t.TempDir(), "out")
	res, err := export.Run(context.Background(), export.Options{SessionsDir: sessions, StateDir: state, Out: out}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot != "copy" {
		t.Errorf("snapshot %q, want a copy of the live WAL", res.Snapshot)
	}
	got, _ := os.ReadFile(filepath.Join(out, "25240bfc-c18e-42f2-a79a-130255bd05a9.jsonl"))
	if !bytes.HasSuffix(got, []byte(line+"\n")) {
		t.Error("the event in the WAL was not exported")
	}
	if after := tree(t, filepath.Join(state, "agents")); !maps.Equal(before, after) {
		t.Error("export changed the live database's files")
	}
}

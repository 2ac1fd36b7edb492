package view_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/view"
)

// TestSQLiteEraAgent views real state dirs made by OpenClaw 2026.8.1 and 2026.9.6 (sessions
// in agents/main/agent/openclaw-agent.sqlite): every session of the database gets a row and
// a page with its entries, given as the state dir or as the database itself, and the
// database files are not changed.
func TestSQLiteEraAgent(t *testing.T) {
	for _, name := range []string{"sqlite-2026.8.1", "sqlite-2026.9.6", "half-2026.9.6"} {
		t.Run(name, func(t *testing.T) {
			state := t.TempDir()
			if err := fixtures.WriteRealState(name, state); err != nil {
				t.Fatal(err)
			}
			dbPath := filepath.Join(state, "agents", "main", "agent", agentdb.FileName)
			before := snapshot(t, dbPath)
			db, err := agentdb.OpenSessions(context.Background(), dbPath)
			if err != nil {
				t.Fatal(err)
			}
			sessions, err := db.Sessions(context.Background())
			db.Close()
			if err != nil || len(sessions) == 0 {
				t.Fatalf("%d sessions in the database: %v", len(sessions), err)
			}
			for _, path := range []string{state, dbPath} {
				res, err := view.Write(context.Background(), path, view.Options{OutDir: t.TempDir(), Replays: noReplay})
				if err != nil {
					t.Fatalf("view %s: %v", path, err)
				}
				index, err := os.ReadFile(res.Index)
				if err != nil {
					t.Fatal(err)
				}
				d := decodePage(t, index)
				var data struct {
					Rows []struct {
						SID, Kind, Page string
						Entries         int
					}
				}
				if err := jsonUnmarshal(d.blocks["data"], &data); err != nil {
					t.Fatal(err)
				}
				got := map[string]int{}
				for _, r := range data.Rows {
					if r.Kind == "sqlite" {
						if r.Page == "" {
							t.Errorf("session %s has no page", r.SID)
						}
						got[r.SID] = r.Entries
					}
				}
				for _, s := range sessions {
					if n, ok := got[s.ID]; !ok || n <= 0 || int64(n) >= s.Events {
						t.Errorf("%s: session %s (%d events) shown with %d entries (%v)", path, s.ID, s.Events, n, ok)
					}
				}
			}
			if after := snapshot(t, dbPath); !bytes.Equal(before, after) {
				t.Error("the agent database changed")
			}
		})
	}
}

// snapshot concatenates the database and its -wal and -shm, whichever exist.
func snapshot(t *testing.T, db string) []byte {
	t.Helper()
	var b []byte
	for _, s := range []string{"", "-wal", "-shm"} {
		if x, err := os.ReadFile(db + s); err == nil {
			b = append(append(b, s...), x...)
		}
	}
	return b
}

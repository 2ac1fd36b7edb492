package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/replay"
)

// TestReplayDatabaseSession: replaying a session from a database made by the real 2026.9.6
// import, by id or by key, gives what replaying the JSONL it was imported from gives.
func TestReplayDatabaseSession(t *testing.T) {
	state := filepath.Join(t.TempDir(), "s")
	if err := fixtures.WriteRealState(fixtures.SQLite96, state); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(state, "agents", "main", "agent", agentdb.FileName)
	archive := filepath.Join(state, "agents", "main", "session-sqlite-import-archive")
	ents, _ := os.ReadDir(archive)
	o := replay.Options{Provider: "anthropic", Model: "claude-sonnet-4-5", NowMs: 1777700000000}
	adb, err := agentdb.OpenSessions(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := adb.Nodes(context.Background())
	adb.Close()
	if err != nil {
		t.Fatal(err)
	}
	keyOf := map[string]string{}
	for _, n := range nodes {
		keyOf[n.SessionID] = n.Key
	}
	compared := 0
	for _, e := range ents {
		n := e.Name()
		// <key slug>.<session id>.jsonl.imported-<ms>
		if strings.HasPrefix(n, "archive-tier.") || !strings.Contains(n, ".jsonl.imported-") || strings.Contains(n, "trajectory") {
			continue
		}
		orig := filepath.Join(archive, n)
		data, _ := os.ReadFile(orig)
		var h struct{ ID string }
		first, _, _ := bytes.Cut(data, []byte("\n"))
		json.Unmarshal(first, &h)
		want, err := replay.RunFile(context.Background(), orig, o)
		if err != nil {
			t.Fatal(err)
		}
		if keyOf[h.ID] == "" {
			t.Fatalf("%s: session %s has no node", n, h.ID)
		}
		for _, ref := range []string{agentdb.Ref(db, h.ID), agentdb.Ref(db, keyOf[h.ID])} {
			got, err := replay.RunFile(context.Background(), ref, o)
			if err != nil {
				t.Fatalf("%s: %v", ref, err)
			}
			if diff := cmp.Diff(want.Messages, got.Messages); diff != "" || want.Compaction.FirstKeptEntryID != got.Compaction.FirstKeptEntryID {
				t.Errorf("%s (-jsonl +db):\n%s", ref, diff)
			}
			compared++
		}
	}
	if compared < 10 {
		t.Errorf("only %d replays compared", compared)
	}
}

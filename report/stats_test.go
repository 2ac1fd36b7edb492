package report_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/store"
	"github.com/clawdoctor/clawdoctor/report"
)

func statsSample() store.Stats {
	day := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	main := store.AgentStats{
		Agent: "main", SessionsDir: "/s/agents/main/sessions",
		Store:       store.StoreStats{Present: true, Bytes: 50219, Entries: 5, Canonical: true, DropRows: 1, Duplicates: 1},
		Transcripts: store.Count{Files: 15, Bytes: 367104}, Topics: store.Count{Files: 1, Bytes: 2048},
		Archives: store.Count{Files: 5, Bytes: 345000},
		ArchivesByKind: map[store.Kind]store.Count{
			store.KindResetArchive: {Files: 4, Bytes: 344000}, store.KindStoreBackup: {Files: 1, Bytes: 1000}},
		Compressed: store.Count{Files: 1, Bytes: 1000},
		Orphans:    store.Count{Files: 14, Bytes: 637606}, OrphanTranscripts: store.Count{Files: 11, Bytes: 400000},
		MissingTranscripts: 7, MissingArchived: 1,
		MissingKeys: []string{"a", "b", "c", "d", "e", "f", "g"}, Outside: 1,
		Locks: store.LockStats{Live: 1, Stale: 1, List: []store.Lock{
			{Path: "x.jsonl.lock", PID: 41237, Alive: true},
			{Path: "y.jsonl.lock", PID: 9, Stale: true, Reasons: []string{"dead-pid"}}}},
		Kinds: map[store.Kind]store.Count{
			store.KindCheckpoint: {Files: 1, Bytes: 202752}, store.KindTrajectory: {Files: 1, Bytes: 100},
			store.KindTrajectoryPointer: {Files: 1, Bytes: 10}, store.KindRepairBackup: {Files: 2, Bytes: 70656},
			store.KindForeign: {Files: 1, Bytes: 76}, store.KindSkillsPrompt: {Files: 3, Bytes: 3 << 20}},
		Files:        store.Count{Files: 30, Bytes: 5 << 30},
		Symlinks:     1,
		OldestUpdate: day.Add(-10 * 24 * time.Hour), NewestUpdate: day,
	}
	ops := store.AgentStats{
		Agent: "ops", SessionsDir: "/s/agents/ops/sessions",
		Store:          store.StoreStats{Present: true, Bytes: 17, Corrupt: "/s/agents/ops/sessions/sessions.json:3:1: sessions.json is not a valid JSON object: unexpected end of input"},
		Transcripts:    store.Count{Files: 2, Bytes: 10},
		Orphans:        store.Count{Files: 2, Bytes: 10},
		Era:            store.Era{SQLite: true, Evidence: []string{"/s/agents/ops/agent/openclaw-agent.sqlite"}},
		Kinds:          map[store.Kind]store.Count{},
		ArchivesByKind: map[store.Kind]store.Count{},
		Files:          store.Count{Files: 3, Bytes: 27},
	}
	return store.Stats{StateDir: "/s", Now: day, Agents: []store.AgentStats{main, ops}}
}

func TestStatsFormats(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    report.Format
	}{{"stats_text.golden", report.Text}, {"stats_markdown.golden", report.Markdown}, {"stats_json.golden", report.JSON}} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := report.Stats(&buf, statsSample(), tc.f); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, buf.Bytes())
			if tc.f == report.JSON {
				var back store.Stats
				if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(statsSample(), back); diff != "" {
					t.Errorf("JSON does not round-trip (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestStatsSingleAgentNoTotal(t *testing.T) {
	s := statsSample()
	s.Agents = s.Agents[:1]
	var buf bytes.Buffer
	if err := report.Stats(&buf, s, report.Text); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("total")) {
		t.Errorf("a single agent got a total column:\n%s", buf.String())
	}
	var empty bytes.Buffer
	if err := report.Stats(&empty, store.Stats{}, report.JSON); err != nil || !bytes.Contains(empty.Bytes(), []byte(`"agents": []`)) {
		t.Errorf("empty stats JSON: %s %v", empty.String(), err)
	}
}

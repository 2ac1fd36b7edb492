package report_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/retention"
	"github.com/clawdoctor/clawdoctor/report"
)

func cleanupSample() report.CleanupStore {
	now := time.Date(2026, 5, 5, 12, 0, 0, 0, time.UTC)
	ms := func(d time.Duration) float64 { return float64(now.Add(-d).UnixMilli()) }
	p := &retention.Plan{
		Summary: retention.Summary{AgentID: "main", StorePath: "/s/agents/main/sessions/sessions.json", Mode: "enforce",
			DryRun: true, BeforeCount: 3, AfterCount: 1, Pruned: 1,
			UnreferencedArtifacts: retention.Artifacts{ScannedFiles: 5, RemovedFiles: 1, FreedBytes: 70, OlderThanMs: 2592000000},
			DiskBudget: &retention.Budget{TotalBytesBefore: 9000, TotalBytesAfter: 4000, RemovedFiles: 1, RemovedEntries: 1,
				FreedBytes: 3000, MaxBytes: 8000, HighWaterBytes: 6400, OverBudget: true},
			WouldMutate: true},
		Actions: []retention.EntryAction{
			{Key: "agent:main:main", SessionID: "m", Action: retention.ActKeep, Reason: "updatedAt 1.0d ago is within pruneAfter 30d and the newest 500",
				UpdatedAt: ms(24 * time.Hour), HasUpdatedAt: true, Model: "gpt-5", Flags: "think:high id:m", Label: "home"},
			{Key: "agent:main:telegram:direct:123456789", SessionID: "t", Action: retention.ActPruneStale, Reason: "updatedAt 45.0d ago is older than pruneAfter 30d",
				UpdatedAt: ms(45 * 24 * time.Hour), HasUpdatedAt: true, Flags: "id:t"},
			{Key: "agent:main:direct:x", SessionID: "x", Action: retention.ActEvictBudget, Reason: "disk budget tier 3: oldest unprotected entry"},
		},
		Files: []retention.FileAction{
			{Path: "old.jsonl.reset.2026-01-01T00-00-00.000Z", Action: retention.FileDelete, Bytes: 3000, Reason: "disk budget tier 2: archive, oldest first"},
			{Path: "orphan.jsonl", Action: retention.FileDelete, Bytes: 70, Reason: "unreferenced artifact not modified for 30d (pruneAfter)"},
		},
		Kept:    []retention.FileAction{{Path: "sessions.json", Action: retention.FileKeep, Bytes: 500, Reason: "the store"}},
		Outside: []retention.Outside{{Key: "agent:main:direct:x", SessionFile: "../../etc/passwd", Resolved: "/etc/passwd"}},
	}
	return report.CleanupStore{Plan: p, Now: now}
}

func TestCleanupText(t *testing.T) {
	var b bytes.Buffer
	if err := report.Cleanup(&b, []report.CleanupStore{cleanupSample()}, report.Text, false); err != nil {
		t.Fatal(err)
	}
	golden(t, "cleanup_dry_run_text.golden", b.Bytes())
	b.Reset()
	if err := report.Cleanup(&b, []report.CleanupStore{cleanupSample()}, report.Text, true); err != nil {
		t.Fatal(err)
	}
	golden(t, "cleanup_explain_text.golden", b.Bytes())
}

func TestCleanupJSON(t *testing.T) {
	var b bytes.Buffer
	if err := report.Cleanup(&b, []report.CleanupStore{cleanupSample()}, report.JSON, false); err != nil {
		t.Fatal(err)
	}
	golden(t, "cleanup_json.golden", b.Bytes())
	// OpenClaw's summary fields are all there, under their names.
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"agentId", "storePath", "mode", "dryRun", "beforeCount", "afterCount", "missing",
		"dmScopeRetired", "pruned", "capped", "unreferencedArtifacts", "diskBudget", "wouldMutate", "actions", "files"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON summary lacks %q", k)
		}
	}
	// Several stores: {allAgents, mode, dryRun, stores}.
	b.Reset()
	two := []report.CleanupStore{cleanupSample(), cleanupSample()}
	if err := report.Cleanup(&b, two, report.JSON, false); err != nil {
		t.Fatal(err)
	}
	var all struct {
		AllAgents bool              `json:"allAgents"`
		Stores    []json.RawMessage `json:"stores"`
	}
	if err := json.Unmarshal(b.Bytes(), &all); err != nil || !all.AllAgents || len(all.Stores) != 2 {
		t.Errorf("multi-store JSON: %v %+v", err, all)
	}
}

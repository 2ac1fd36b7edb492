package report

import (
	"fmt"
	"io"

	"github.com/clawdoctor/clawdoctor/internal/retention"
)

// cleanupSQLiteJSON is OpenClaw 2026.9's summary, field for field, plus our actions, the
// files the sweep would remove and, for a refused real run, the OpenClaw command.
type cleanupSQLiteJSON struct {
	retention.SQLiteSummary
	Actions []retention.SQLiteAction `json:"actions"`
	Files   []string                 `json:"files"`
	Refused string                   `json:"refused,omitempty"`
	Command string                   `json:"openclawCommand,omitempty"`
	Notes   []string                 `json:"notes,omitempty"`
}

func toCleanupSQLiteJSON(s CleanupStore) cleanupSQLiteJSON {
	p := s.SQLite
	out := cleanupSQLiteJSON{SQLiteSummary: p.Summary, Actions: p.Actions, Files: p.Files, Refused: s.Refused, Command: s.Command, Notes: p.Notes}
	if out.Actions == nil {
		out.Actions = []retention.SQLiteAction{}
	}
	if out.Files == nil {
		out.Files = []string{}
	}
	return out
}

// cleanupSQLiteText renders the plan of a SQLite-era store.
func cleanupSQLiteText(w io.Writer, s CleanupStore, explain bool) error {
	p := s.SQLite
	sum := p.Summary
	fmt.Fprintf(w, "Session store: %s (SQLite era: planned as OpenClaw 2026.9 does, never written)\n", sum.StorePath)
	fmt.Fprintf(w, "Planned maintenance (mode %s): %d -> %d entries\n", sum.Mode, sum.BeforeCount, sum.AfterCount)
	fmt.Fprintf(w, "Would archive in place: %d (age or dashboard), %d (over maxEntries)\n", sum.Archived, sum.CapArchived)
	fmt.Fprintf(w, "Would delete rows: %d stale synthetic, %d model-run probes, %d over maxEntries\n", sum.Pruned, sum.ModelRunPruned, sum.Capped-sum.CapArchived)
	ua := sum.UnreferencedArtifacts
	fmt.Fprintf(w, "Unreferenced artifacts: would remove %d of %d files (%s)\n", ua.RemovedFiles, ua.ScannedFiles, statsBytes(ua.FreedBytes))
	if b := sum.DiskBudget; b != nil {
		state := "under budget"
		if b.OverBudget {
			state = "over budget"
		}
		fmt.Fprintf(w, "Disk budget: %s of %s (high water %s): %s\n", statsBytes(b.TotalBytesBefore), statsBytes(b.MaxBytes), statsBytes(b.HighWaterBytes), state)
	}
	t := NewTable(w)
	t.Header("action", "key", "why")
	rows := 0
	for _, a := range p.Actions {
		if a.Action == "keep" && !explain {
			continue
		}
		if err := t.Append(a.Action, a.Key, a.Why); err != nil {
			return err
		}
		rows++
	}
	if rows > 0 {
		if err := t.Render(); err != nil {
			return err
		}
	}
	for _, f := range p.Files {
		fmt.Fprintf(w, "would remove %s\n", f)
	}
	for _, n := range p.Notes {
		fmt.Fprintf(w, "Note: %s\n", n)
	}
	if s.Refused != "" {
		fmt.Fprintf(w, "Refused: %s\n", s.Refused)
	}
	return nil
}

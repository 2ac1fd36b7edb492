package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/clawdoctor/clawdoctor/retention"
)

// CleanupStore is the result of cleanup for one store.
type CleanupStore struct {
	Plan    *retention.Plan
	Applied *retention.Applied // nil for a dry run
	Refused string             // why the store was not touched (SQLite era, live gateway, …)
	Now     time.Time
}

// cleanupJSON is OpenClaw's summary plus our actions, files and findings.
type cleanupJSON struct {
	retention.Summary
	Applied        *bool                   `json:"applied,omitempty"`
	AppliedCount   *int                    `json:"appliedCount,omitempty"`
	ModelRunPruned int                     `json:"modelRunPruned,omitempty"`
	CronRunPruned  int                     `json:"cronRunPruned,omitempty"`
	ArchiveRetired int                     `json:"archiveRetentionRemoved,omitempty"`
	Actions        []retention.EntryAction `json:"actions"`
	Files          []retention.FileAction  `json:"files"`
	Findings       []cleanupFinding        `json:"findings,omitempty"`
	Backup         string                  `json:"backup,omitempty"`
	Skipped        []string                `json:"skipped,omitempty"`
	Refused        string                  `json:"refused,omitempty"`
	Notes          []string                `json:"notes,omitempty"`
}

type cleanupFinding struct {
	Rule        string `json:"rule"`
	Key         string `json:"key"`
	SessionFile string `json:"sessionFile"`
	Resolved    string `json:"resolved"`
	Message     string `json:"message"`
}

func toCleanupJSON(s CleanupStore) cleanupJSON {
	p := s.Plan
	out := cleanupJSON{Summary: p.Summary, ModelRunPruned: p.ModelRunPruned, CronRunPruned: p.CronRunPruned,
		ArchiveRetired: p.ArchiveRetired, Actions: p.Actions, Files: p.Files, Refused: s.Refused, Notes: p.Notes}
	if out.Actions == nil {
		out.Actions = []retention.EntryAction{}
	}
	if out.Files == nil {
		out.Files = []retention.FileAction{}
	}
	for _, o := range p.Outside {
		out.Findings = append(out.Findings, cleanupFinding{Rule: "store.outside-path", Key: o.Key,
			SessionFile: o.SessionFile, Resolved: o.Resolved,
			Message: "sessionFile resolves outside the sessions dir; never touched"})
	}
	if s.Applied != nil {
		t := true
		n := s.Applied.AppliedCount
		out.Applied, out.AppliedCount = &t, &n
		out.Backup, out.Skipped = s.Applied.Backup, s.Applied.Skipped
	}
	return out
}

// Cleanup renders cleanup results: with f == JSON the OpenClaw summary (the bare object for
// one store, {allAgents, mode, dryRun, stores} for several), else OpenClaw's text layout,
// with explain the reason of every entry and file decision.
func Cleanup(w io.Writer, stores []CleanupStore, f Format, explain bool) error {
	if f == JSON {
		if len(stores) == 1 {
			return WriteJSON(w, toCleanupJSON(stores[0]))
		}
		all := struct {
			AllAgents bool          `json:"allAgents"`
			Mode      string        `json:"mode"`
			DryRun    bool          `json:"dryRun"`
			Stores    []cleanupJSON `json:"stores"`
		}{AllAgents: true, Stores: []cleanupJSON{}}
		for _, s := range stores {
			all.Mode, all.DryRun = s.Plan.Summary.Mode, s.Plan.Summary.DryRun
			all.Stores = append(all.Stores, toCleanupJSON(s))
		}
		return WriteJSON(w, all)
	}
	for i, s := range stores {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if len(stores) > 1 {
			fmt.Fprintf(w, "Agent: %s\n", s.Plan.Summary.AgentID)
		}
		if err := cleanupText(w, s, explain); err != nil {
			return err
		}
	}
	return nil
}

func cleanupText(w io.Writer, s CleanupStore, explain bool) error {
	p := s.Plan
	sum := p.Summary
	fmt.Fprintf(w, "Session store: %s\n", sum.StorePath)
	if s.Refused != "" {
		fmt.Fprintf(w, "Refused: %s\n", s.Refused)
		return nil
	}
	if s.Applied != nil {
		fmt.Fprintf(w, "Applied maintenance. Current entries: %d\n", s.Applied.AppliedCount)
		if sum.UnreferencedArtifacts.RemovedFiles > 0 {
			fmt.Fprintf(w, "Pruned unreferenced artifacts: %d\n", sum.UnreferencedArtifacts.RemovedFiles)
		}
		fmt.Fprintf(w, "Archived transcripts: %d, deleted files: %d (%d bytes)\n", s.Applied.Archived, s.Applied.Deleted, s.Applied.FreedBytes)
		if s.Applied.Backup != "" {
			fmt.Fprintf(w, "Backup of the old store: %s\n", s.Applied.Backup)
		}
		for _, sk := range s.Applied.Skipped {
			fmt.Fprintf(w, "Skipped: %s\n", sk)
		}
		writeFindings(w, p)
		if explain {
			return writeExplain(w, s)
		}
		return nil
	}
	fmt.Fprintf(w, "Maintenance mode: %s\n", sum.Mode)
	fmt.Fprintf(w, "Entries: %d -> %d (remove %d)\n", sum.BeforeCount, sum.AfterCount, sum.BeforeCount-sum.AfterCount)
	fmt.Fprintf(w, "Would prune missing transcripts: %d\n", sum.Missing)
	fmt.Fprintf(w, "Would retire stale direct DM sessions: %d\n", sum.DMScopeRetired)
	fmt.Fprintf(w, "Would prune stale: %d\n", sum.Pruned)
	fmt.Fprintf(w, "Would cap overflow: %d\n", sum.Capped)
	if sum.UnreferencedArtifacts.ScannedFiles > 0 {
		fmt.Fprintf(w, "Would prune unreferenced artifacts: %d\n", sum.UnreferencedArtifacts.RemovedFiles)
	}
	if b := sum.DiskBudget; b != nil {
		fmt.Fprintf(w, "Would enforce disk budget: %d -> %d bytes (files %d, entries %d)\n", b.TotalBytesBefore, b.TotalBytesAfter, b.RemovedFiles, b.RemovedEntries)
	}
	writeFindings(w, p)
	if len(p.Actions) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Planned session actions:")
		fmt.Fprintln(w, strings.TrimRight(strings.Join([]string{pad("Action", 16), pad("Key", 26), pad("Age", 9), pad("Model", 14), "Flags"}, " "), " "))
		rows := append([]retention.EntryAction(nil), p.Actions...)
		sort.SliceStable(rows, func(a, b int) bool { return rowTime(rows[a]) > rowTime(rows[b]) })
		for _, r := range rows {
			line := strings.Join([]string{pad(r.Action, 16), pad(keyCell(r.Key), 26), pad(ageCell(s.Now, r), 9), pad(r.Model, 14), r.Flags}, " ")
			fmt.Fprintln(w, strings.TrimRight(line, " "))
			if explain {
				fmt.Fprintf(w, "  why: %s\n", r.Reason)
			}
		}
		writeLabels(w, p.Actions)
	}
	if explain {
		return writeExplain(w, s)
	}
	return nil
}

func writeFindings(w io.Writer, p *retention.Plan) {
	for _, o := range p.Outside {
		fmt.Fprintf(w, "store.outside-path: %s: sessionFile %q resolves to %s, outside the sessions dir; never touched\n", o.Key, o.SessionFile, o.Resolved)
	}
	for _, n := range p.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

func writeExplain(w io.Writer, s CleanupStore) error {
	p := s.Plan
	verb := map[string]string{retention.FileDelete: "would delete", retention.FileArchive: "would archive"}
	if s.Applied != nil {
		verb = map[string]string{retention.FileDelete: "deleted", retention.FileArchive: "archived"}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Planned file actions:")
	if len(p.Files) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, f := range p.Files {
		to := ""
		if f.To != "" {
			to = " -> " + f.To
		}
		fmt.Fprintf(w, "  %s %s%s (%d bytes): %s\n", verb[f.Action], f.Path, to, f.Bytes, f.Reason)
	}
	fmt.Fprintln(w, "Kept files:")
	for _, f := range p.Kept {
		fmt.Fprintf(w, "  keep %s (%d bytes): %s\n", f.Path, f.Bytes, f.Reason)
	}
	return nil
}

func writeLabels(w io.Writer, rows []retention.EntryAction) {
	type agg struct {
		label        string
		kept, pruned int
	}
	by := map[string]*agg{}
	var order []string
	for _, r := range rows {
		l := strings.TrimSpace(r.Label)
		if l == "" {
			l = "(unlabeled)"
		}
		a := by[l]
		if a == nil {
			a = &agg{label: l}
			by[l] = a
			order = append(order, l)
		}
		if r.Action == retention.ActKeep {
			a.kept++
		} else {
			a.pruned++
		}
	}
	sort.Strings(order)
	width, kept, pruned := 0, 0, 0
	for _, l := range order {
		width = max(width, len(l))
		kept += by[l].kept
		pruned += by[l].pruned
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Summary by Label:")
	for _, l := range order {
		fmt.Fprintf(w, "%s  %d kept, %d pruned\n", pad(l, width), by[l].kept, by[l].pruned)
	}
	fmt.Fprintf(w, "Total: %d kept, %d pruned\n", kept, pruned)
}

func pad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return s + strings.Repeat(" ", n-len(s))
}

func keyCell(k string) string {
	if len(k) > 26 {
		return k[:16] + "..." + k[len(k)-6:]
	}
	return k
}

func rowTime(r retention.EntryAction) float64 {
	if !r.HasUpdatedAt {
		return -1
	}
	return r.UpdatedAt
}

func ageCell(now time.Time, r retention.EntryAction) string {
	if !r.HasUpdatedAt || r.UpdatedAt <= 0 {
		return "unknown"
	}
	d := now.Sub(time.UnixMilli(int64(r.UpdatedAt)))
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/retention"
)

// CleanupStore is what cleanup did, or would do, to one store.
type CleanupStore = retention.Outcome

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
	Removed        []retention.RemovedFile `json:"removed,omitempty"`
	Skipped        []string                `json:"skipped,omitempty"`
	OpenClaw       *retention.Summary      `json:"openclaw,omitempty"` // OpenClaw's own plan, when it would remove more
	Refused        string                  `json:"refused,omitempty"`
	Notes          []string                `json:"notes,omitempty"`
}

type cleanupFinding struct {
	Rule        string `json:"rule"`
	Key         string `json:"key"`
	SessionFile string `json:"sessionFile"`
	Resolved    string `json:"resolved,omitempty"`
	Local       string `json:"local,omitempty"`
	Message     string `json:"message"`
}

// relocatedMessage says what a store.relocated-path finding means for this run.
func relocatedMessage(r retention.Relocated) string {
	msg := "sessionFile is an absolute path of another root (a state dir restored elsewhere); its transcript is here as " + r.Local +
		". OpenClaw resolves the row elsewhere and treats " + r.Local + " as unreferenced"
	if r.OpenClawAction != "" {
		return msg + ": its own cleanup would " + r.OpenClawAction + " it now; clawdoctor keeps it"
	}
	return msg + ", so its own cleanup may delete it later; clawdoctor never does"
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
	for _, r := range p.Relocated {
		out.Findings = append(out.Findings, cleanupFinding{Rule: "store.relocated-path", Key: r.Key,
			SessionFile: r.SessionFile, Local: r.Local, Message: relocatedMessage(r)})
	}
	out.OpenClaw = p.OpenClaw
	if s.Applied != nil {
		t := true
		n := s.Applied.AppliedCount
		out.Applied, out.AppliedCount = &t, &n
		out.Backup, out.Skipped, out.Removed = s.Applied.Backup, s.Applied.Skipped, s.Applied.Removed
	}
	return out
}

// Cleanup renders cleanup results: with f == JSON the OpenClaw summary (the bare object for
// one store, {allAgents, mode, dryRun, stores} for several), else OpenClaw's text layout,
// with explain the reason of every entry and file decision.
func Cleanup(w io.Writer, stores []CleanupStore, f Format, explain bool) error {
	if f != JSON {
		stores = escaped(stores)
	}
	if f == JSON {
		bw := bufio.NewWriterSize(w, 256<<10)
		if len(stores) == 1 {
			if err := streamStoreJSON(bw, stores[0], ""); err != nil {
				return err
			}
			bw.WriteString("\n")
			return bw.Flush()
		}
		head := struct {
			AllAgents bool   `json:"allAgents"`
			Mode      string `json:"mode"`
			DryRun    bool   `json:"dryRun"`
		}{AllAgents: true}
		for _, s := range stores {
			if s.SQLite != nil {
				head.Mode, head.DryRun = s.SQLite.Summary.Mode, s.SQLite.Summary.DryRun
				continue
			}
			head.Mode, head.DryRun = s.Plan.Summary.Mode, s.Plan.Summary.DryRun
		}
		h, err := marshalIndent(head, "")
		if err != nil {
			return err
		}
		bw.Write(h[:len(h)-2]) // without "\n}"
		bw.WriteString(",\n  \"stores\": [")
		for i, s := range stores {
			if i > 0 {
				bw.WriteString(",")
			}
			bw.WriteString("\n    ")
			if err := streamStoreJSON(bw, s, "    "); err != nil {
				return err
			}
		}
		bw.WriteString("\n  ]\n}\n")
		return bw.Flush()
	}
	for i, s := range stores {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if s.SQLite != nil {
			if len(stores) > 1 {
				fmt.Fprintf(w, "Agent: %s\n", s.SQLite.Summary.AgentID)
			}
			if err := cleanupSQLiteText(w, s, explain); err != nil {
				return err
			}
			continue
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

// marshalIndent is json.MarshalIndent(v, prefix, "  ") without HTML escaping, as WriteJSON
// writes.
func marshalIndent(v any, prefix string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// streamStoreJSON writes one store's JSON at prefix.
func streamStoreJSON(w *bufio.Writer, s CleanupStore, prefix string) error {
	if s.SQLite != nil {
		b, err := marshalIndent(toCleanupSQLiteJSON(s), prefix)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	return streamCleanupJSON(w, toCleanupJSON(s), prefix)
}

// streamCleanupJSON writes c as WriteJSON would (indented, at prefix), but streams the
// actions and files arrays element by element: a plan of 100,000 entries and 200,000 files
// never holds its whole JSON text in memory.
func streamCleanupJSON(w *bufio.Writer, c cleanupJSON, prefix string) error {
	actions, files := c.Actions, c.Files
	c.Actions, c.Files = []retention.EntryAction{}, []retention.FileAction{}
	head, err := marshalIndent(c, prefix)
	if err != nil {
		return err
	}
	const am, fm = `"actions": []`, `"files": []`
	ai, fi := bytes.Index(head, []byte(am)), bytes.Index(head, []byte(fm))
	if ai < 0 || fi < ai {
		return fmt.Errorf("cleanup JSON: unexpected layout")
	}
	ew := newElemWriter(w, prefix)
	elems := func(n int, at func(i int)) {
		if n == 0 {
			w.WriteString("[]")
			return
		}
		w.WriteString("[")
		for i := 0; i < n; i++ {
			if i > 0 {
				w.WriteString(",")
			}
			w.WriteString(ew.indent)
			at(i)
		}
		w.WriteString("\n" + prefix + "  ]")
	}
	w.Write(head[:ai+len(am)-2])
	elems(len(actions), func(i int) { ew.action(actions[i]) })
	w.Write(head[ai+len(am) : fi+len(fm)-2])
	elems(len(files), func(i int) { ew.file(files[i]) })
	w.Write(head[fi+len(fm):])
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
		for _, r := range s.Applied.Removed {
			copied := ""
			if r.Copy != "" {
				copied = ", copy kept as " + r.Copy
			}
			fmt.Fprintf(w, "Deleted: %s (%d bytes%s)\n", r.Path, r.Bytes, copied)
		}
		for _, sk := range s.Applied.Skipped {
			fmt.Fprintf(w, "Skipped: %s\n", sk)
		}
		for _, n := range s.Applied.Notes {
			fmt.Fprintf(w, "note: %s\n", n)
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
	writeDisk(w, p)
	writeFindings(w, p)
	if !explain {
		writeDeletes(w, p)
	}
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
	for _, r := range p.Relocated {
		fmt.Fprintf(w, "store.relocated-path: %s: %s\n", r.Key, relocatedMessage(r))
	}
	for _, n := range p.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// writeDeletes lists the files a plan deletes, with their sizes (--explain lists every file).
func writeDeletes(w io.Writer, p *retention.Plan) {
	var n int
	var total int64
	for _, f := range p.Files {
		if f.Action == retention.FileDelete {
			n++
			total += f.Bytes
		}
	}
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "Would delete %d files (%d bytes):\n", n, total)
	for _, f := range p.Files {
		if f.Action == retention.FileDelete {
			fmt.Fprintf(w, "  %s (%d bytes): %s\n", f.Path, f.Bytes, f.Reason)
		}
	}
}

// writeDisk says what stays on disk (issue 30): the bytes freed, the bytes archived (renamed,
// still there) and the total after, beside the budget, and by how much the budget is missed.
func writeDisk(w io.Writer, p *retention.Plan) {
	sum := p.Summary
	var freed int64
	for _, f := range p.Files {
		if f.Action == retention.FileDelete {
			freed += f.Bytes
		}
	}
	line := fmt.Sprintf("Disk: %d bytes freed, %d bytes archived (renamed, still on disk)", freed, p.ArchivedBytes)
	if b := sum.DiskBudget; b != nil {
		line += fmt.Sprintf(", %d bytes after; maxDiskBytes %d, highWaterBytes %d", b.TotalBytesAfter, b.MaxBytes, b.HighWaterBytes)
	}
	fmt.Fprintln(w, line)
	if p.BudgetUnmetBy > 0 {
		fmt.Fprintf(w, "Disk budget NOT met: %d bytes over maxDiskBytes after the plan (archived orphans and kept rows' transcripts stay; without --keep-orphans the orphans go as OpenClaw deletes them)\n", p.BudgetUnmetBy)
	}
}

func writeExplain(w io.Writer, s CleanupStore) error {
	p := s.Plan
	if s.Applied != nil { // a dry run said it in its summary
		fmt.Fprintln(w)
		writeDisk(w, p)
	}
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

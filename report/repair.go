package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/clawdoctor/clawdoctor/repair"
)

// Repair renders the result of clawdoctor repair: JSON for scripts, or one row per file and,
// for every file with changes or notes, the list of lines and what was (or would be) done.
func Repair(w io.Writer, res *repair.Result, f Format) error {
	if f != JSON {
		res = escaped(res)
	}
	if f == JSON {
		if res.Files == nil {
			res.Files = []repair.FileResult{}
		}
		return WriteJSON(w, res)
	}
	dry := res.Summary.DryRun
	t := NewTable(w)
	if f == Markdown {
		t = NewMarkdownTable(w)
	}
	t.Header("file", "status", "dropped", "salvaged", "rewritten", "inserted", "bytes", "backup", "reason")
	for _, r := range res.Files {
		status := r.Status
		if dry && status == repair.StatusRepaired {
			status = "would repair"
		}
		dropped, salvaged := r.DroppedLines+r.DroppedEntries, r.SalvagedLines+r.SalvagedEntries
		rewritten := r.RewrittenAssistantMessages + r.RewrittenUserMessages + r.RemovedCorruptImageBlocks + r.RelinkedParents + r.SynthesizedHeaders + r.RebuiltEntries
		bytes := strconv.FormatInt(r.BytesBefore, 10)
		if r.Status == repair.StatusRepaired && r.BytesAfter >= 0 {
			bytes += " -> " + strconv.FormatInt(r.BytesAfter, 10)
		}
		backup := r.BackupPath
		if dry && backup != "" {
			backup = "(would be) " + backup
		}
		if err := t.Append(r.Path, status, dropped, salvaged, rewritten, r.InsertedToolResults, bytes, backup, r.Reason); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, r := range res.Files {
		if len(r.Changes) == 0 && len(r.Notes) == 0 {
			continue
		}
		verb := ""
		if dry || r.Status != repair.StatusRepaired {
			verb = "would "
		}
		if _, err := fmt.Fprintf(w, "\n%s:\n", r.Path); err != nil {
			return err
		}
		for _, c := range r.Changes {
			if _, err := fmt.Fprintf(w, "  %s%s%s: %s\n", lineRef(c.Line), verb, c.Action, c.Reason); err != nil {
				return err
			}
		}
		if r.MoreChanges > 0 {
			fmt.Fprintf(w, "  ... and %d more changes\n", r.MoreChanges)
		}
		for _, n := range r.Notes {
			if _, err := fmt.Fprintf(w, "  %snote: %s\n", lineRef(n.Line), n.What); err != nil {
				return err
			}
		}
		if r.MoreNotes > 0 {
			fmt.Fprintf(w, "  ... and %d more notes\n", r.MoreNotes)
		}
	}
	s := res.Summary
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{s.Repaired, map[bool]string{true: "would be repaired", false: "repaired"}[dry]}, {s.Clean, "clean"}, {s.Skipped, "skipped"}, {s.Failed, "failed"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	if len(parts) == 0 {
		parts = []string{"no files"}
	}
	if _, err := fmt.Fprintf(w, "\n%d file(s): %s\n", s.Files, strings.Join(parts, ", ")); err != nil {
		return err
	}
	if res.OpenClaw != nil {
		_, err := fmt.Fprintf(w, "rules of OpenClaw %s\n", res.OpenClaw.Describe())
		return err
	}
	return nil
}

func lineRef(n int64) string {
	if n <= 0 {
		return ""
	}
	return "line " + strconv.FormatInt(n, 10) + ": "
}

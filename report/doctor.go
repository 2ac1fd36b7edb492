package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/clawdoctor/clawdoctor/doctor"
)

// Doctor renders a doctor result as text (tables) or JSON.
func Doctor(w io.Writer, res *doctor.Result, f Format) error {
	if f == JSON {
		if res.Problems == nil {
			res.Problems = []doctor.Problem{}
		}
		if res.Agents == nil {
			res.Agents = []doctor.AgentSummary{}
		}
		return WriteJSON(w, res)
	}
	mode := "check only (nothing written; --fix applies safe fixes)"
	switch {
	case res.Fix && res.Yes:
		mode = "--fix --yes"
	case res.Fix:
		mode = "--fix (history-changing fixes need --yes)"
	}
	fmt.Fprintf(w, "state dir: %s\nmode: %s\n", res.StateDir, mode)
	if res.ConfigPath != "" {
		fmt.Fprintf(w, "config: %s\n", res.ConfigPath)
	}
	fmt.Fprintln(w)
	t := NewTable(w)
	t.Header("agent", "entries", "transcripts", "sqlite", "open problems", "fixable", "fixed")
	for _, a := range res.Agents {
		sq := "no"
		if a.SQLite {
			sq = "yes"
		}
		if err := t.Append(a.ID, a.Entries, a.Transcripts, sq, a.Problems, a.Fixable, a.Fixed); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	if len(res.Problems) > 0 {
		fmt.Fprintln(w)
		t = NewTable(w)
		t.Header("agent", "check", "severity", "status", "file", "what")
		for _, p := range res.Problems {
			what := p.Message
			if p.Status == doctor.StatusFixed && p.Fix != "" {
				what = "fixed: " + p.Fix
			} else if p.Fix != "" {
				what += " — fix: " + p.Fix
			}
			if p.Gate == doctor.GateYes && p.Status == doctor.StatusWouldFix {
				what += " (needs --yes)"
			}
			if p.Error != "" {
				what += " — " + p.Error
			}
			if p.Backup != "" {
				what += " — backup: " + p.Backup
			}
			agent := p.Agent
			if agent == "" {
				agent = "-"
			}
			if err := t.Append(agent, p.Check, p.Severity, string(p.Status), shortPath(res.StateDir, p.Path), oneLine(what)); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, "\nwhat to run next:")
	for _, n := range res.Next {
		fmt.Fprintf(w, "  %s\n", n)
	}
	return nil
}

func shortPath(root, p string) string {
	if p == "" {
		return "-"
	}
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

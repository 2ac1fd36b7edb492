package report

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/doctor"
)

// Doctor renders a doctor result as text (tables) or JSON, through one buffer: a state dir's
// thousands of problem lines were a write call each.
func Doctor(w io.Writer, res *doctor.Result, f Format) error {
	if f != JSON {
		res = escaped(res)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	err := writeDoctor(bw, res, f)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

func writeDoctor(w io.Writer, res *doctor.Result, f Format) error {
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
	t.Header("agent", "era", "entries", "transcripts", "db sessions", "open problems", "fixable", "fixed")
	for _, a := range res.Agents {
		era, dbs := a.Era, "-"
		if era == "" {
			era = "jsonl"
		}
		if a.SQLite {
			dbs = fmt.Sprintf("%d (%d events)", a.DBSessions, a.DBEvents)
		}
		if err := t.Append(a.ID, era, a.Entries, a.Transcripts, dbs, a.Problems, a.Fixable, a.Fixed); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	color := Color(w)
	agent := "\x00"
	for _, p := range res.Problems {
		if p.Agent != agent {
			agent = p.Agent
			name := agent
			if name == "" {
				name = "config"
			}
			fmt.Fprintf(w, "\n%s:\n", name)
		}
		fmt.Fprintf(w, "  %s %s  %s  [%s]\n", paint(color, p.Severity, fmt.Sprintf("%-7s", p.Severity)), p.Check, shortPath(res.StateDir, p.Path), statusWord(p))
		fmt.Fprintf(w, "          %s\n", oneLine(p.Message))
		if p.Fix != "" && p.Status != doctor.StatusFixed {
			fmt.Fprintf(w, "          fix: %s\n", oneLine(p.Fix))
		}
		if p.Edit != "" {
			fmt.Fprintf(w, "          edit by hand: %s\n", oneLine(p.Edit))
		}
		if p.Error != "" {
			fmt.Fprintf(w, "          %s\n", oneLine(p.Error))
		}
		if p.Backup != "" {
			fmt.Fprintf(w, "          backup: %s\n", p.Backup)
		}
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "\nnote: %s", n)
	}
	if len(res.Notes) > 0 {
		fmt.Fprintln(w)
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

func statusWord(p doctor.Problem) string {
	switch p.Status {
	case doctor.StatusWouldFix:
		if p.Gate == doctor.GateYes {
			return "fixable with --fix --yes"
		}
		return "fixable with --fix"
	case doctor.StatusFixed:
		return "fixed: " + oneLine(p.Fix)
	case doctor.StatusRefused:
		return "fix refused"
	case doctor.StatusFailed:
		if p.Fix == "" {
			return "check failed: could not read"
		}
		return "fix failed"
	}
	return "report only"
}

// paint colours a severity word for a terminal (never when NO_COLOR is set or w is not one).
func paint(on bool, severity, text string) string {
	if !on {
		return text
	}
	code := map[string]string{"error": "31", "warning": "33", "info": "36"}[severity]
	if code == "" {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

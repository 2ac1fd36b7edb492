package report

import (
	"fmt"
	"io"

	"github.com/clawdoctor/clawdoctor/internal/export"
	"github.com/clawdoctor/clawdoctor/internal/recovery"
)

// Recover renders what clawdoctor recover found and wrote: one row per original, the reasons,
// then the steps that bring the files into OpenClaw.
func Recover(w io.Writer, res *recovery.Result, f Format) error {
	if f != JSON {
		res = escaped(res)
	}
	if f == JSON {
		if res.Sessions == nil {
			res.Sessions = []recovery.Session{}
		}
		if res.Files == nil {
			res.Files = []export.File{}
		}
		return WriteJSON(w, res)
	}
	fmt.Fprintf(w, "database %s (agent %s)\n", res.DB, res.Agent)
	if len(res.Sessions) == 0 {
		fmt.Fprintln(w, "every original the migration check compares is in the database: nothing to recover")
	} else {
		t := NewTable(w)
		if f == Markdown {
			t = NewMarkdownTable(w)
		}
		t.Header("session", "state", "database events", "import kept", "first lost line", "lines added", "file")
		for _, s := range res.Sessions {
			file, lost := s.File, "-"
			if file == "" {
				file = "-"
			}
			if s.FirstLost > 0 {
				lost = fmt.Sprint(s.FirstLost)
			}
			if err := t.Append(s.Session, string(s.State), s.DBEvents, s.ImportKept, lost, s.AddedLines, file); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
		for _, s := range res.Sessions {
			fmt.Fprintf(w, "%s (%s): %s\n", s.Session, s.Original, s.Reason)
			for _, ch := range s.Changes {
				fmt.Fprintf(w, "  repaired line %d of the original: %s (%s)\n", ch.Line, ch.Action, ch.Reason)
			}
			for _, ch := range s.Kept {
				fmt.Fprintf(w, "  kept as the database holds it, event seq %d: repair would %s it (%s)\n", ch.Line-1, ch.Action, ch.Reason)
			}
			for _, sk := range s.Skipped {
				fmt.Fprintf(w, "  left out, %s\n", sk)
			}
		}
	}
	for _, u := range res.Unchecked {
		fmt.Fprintf(w, "not compared: %s\n", u)
	}
	var installs []recovery.Session
	for _, s := range res.Sessions {
		if s.File != "" {
			installs = append(installs, s)
		}
	}
	if len(installs) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nwrote %d transcript(s) into %s (the originals copied to %s)\n", len(installs), res.Out, "originals/")
	fmt.Fprintln(w, "to bring them into OpenClaw (tested with 2026.9.6), with the gateway stopped (openclaw gateway stop):")
	for _, s := range installs {
		if s.Retire != "" {
			fmt.Fprintf(w, "  cmp %s %s && rm %s   # the original, copied, must leave sessions/\n", s.Retire, s.OriginalCopy, s.Retire)
		}
		fmt.Fprintf(w, "  cp %s %s\n", s.File, s.Install)
	}
	fmt.Fprintln(w, "  openclaw doctor --session-sqlite recover")
	fmt.Fprintln(w, "OpenClaw checks that the database's events begin each file, imports the rest and archives the file; then run clawdoctor doctor.")
	return nil
}

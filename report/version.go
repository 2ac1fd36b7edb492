package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/buildinfo"
)

// Version renders what `clawdoctor version` (and --version) prints: the version, the commit
// and its date, the toolchain and platform, and the OpenClaw releases followed per era.
func Version(w io.Writer, i buildinfo.Info, f Format) error {
	if f == JSON {
		return WriteJSON(w, i)
	}
	commit := i.Commit
	switch {
	case commit == "":
		commit = "unknown (not built from a git checkout)"
	case i.Modified:
		commit += " (with uncommitted changes)"
	}
	date := i.Date
	if date == "" {
		date = "unknown"
	}
	fmt.Fprintf(w, "clawdoctor %s\n", i.Version)
	fmt.Fprintf(w, "commit:   %s\n", commit)
	fmt.Fprintf(w, "date:     %s\n", date)
	fmt.Fprintf(w, "go:       %s %s\n", i.Go, i.Platform)
	fmt.Fprintf(w, "openclaw: JSONL era %s (default %s); SQLite era %s (default %s)\n",
		strings.Join(i.OpenClaw.JSONL.Verified, ", "), i.OpenClaw.JSONL.Default,
		strings.Join(i.OpenClaw.SQLite.Verified, ", "), i.OpenClaw.SQLite.Default)
	return nil
}

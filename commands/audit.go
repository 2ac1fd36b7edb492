package commands

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clawdoctor/clawdoctor/internal/audit"
	"github.com/clawdoctor/clawdoctor/report"
)

func auditCommand() *cli.Command {
	return &cli.Command{
		Name:      "audit",
		Usage:     "read-only forensic checks with stable rule ids",
		ArgsUsage: "[PATH...]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "table", Usage: "output format: table, json, markdown or sarif"},
			&cli.StringFlag{Name: "fail-on", Value: "error", Usage: "exit 1 when a finding reaches this severity: error, warning, info or never"},
			&cli.StringSliceFlag{Name: "logs", Usage: "gateway log file (openclaw-YYYY-MM-DD.log or console/journal text); repeat or glob", TakesFile: true},
			&cli.IntFlag{Name: "max-line", Usage: "line cap in bytes (default 64 MiB)"},
			&cli.StringFlag{Name: "sarif-root", Usage: "SARIF uris are relative to this dir (default: the git work tree holding the first PATH, else the current dir)", TakesFile: true},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "text output: repeat the hint under every finding"},
		},
		Description: `Audit transcripts, sessions dirs or a whole state dir, without writing anything. A
directory is walked for every transcript-like file (live, topic, .reset./.deleted./.bak
archives, .gz/.zst) with or without a sessions.json beside it. With no PATH the state dir is
audited (--agent for one agent). Findings carry a stable rule id, a severity, the file, line and
entry id, and plain words on what to run; docs/audit.md lists every rule.

The text output has one line per finding, "path:line: severity rule: message", wrapped to the
terminal width, with the hint to run on an indented line, and a count per rule at the end. At
most 200 findings per rule and file are listed; the counts include the rest.

A SQLite-era agent (OpenClaw 2026.8+) is audited from its database: each session as the JSONL
its events hold, named <db>#<session id>, with the same rules; PATH may also be the database
(agents/<id>/agent/openclaw-agent.sqlite) or DB#SESSION (id or key). Nothing is written.

EXAMPLE
  clawdoctor audit --format sarif ~/.openclaw > audit.sarif
  clawdoctor audit --format sarif --sarif-root . testdata/sessions > audit.sarif
  clawdoctor audit --logs /tmp/openclaw/openclaw-2026-05-17.log --fail-on warning s.jsonl` + exitStatusHelp,
		Action: runAudit,
	}
}

// auditMemoryLimit is the soft heap limit of an audit run (peak RSS targets: 256 MiB for a
// 4 GiB transcript, 384 MiB for 16 GiB).
const auditMemoryLimit = 352 << 20

// dirMemoryLimit is the soft heap limit when directories are audited: many small scans side
// by side whose garbage the limit, not the pace, collects. doctorMemoryLimit is doctor's, which
// holds ~56 MB more through its audit (its peak RSS target: 256 MiB).
const (
	dirMemoryLimit    = 208 << 20
	doctorMemoryLimit = 232 << 20
)

// dirGCPercent is the GC pace when directories are audited; doctorGCPercent doctor's (see
// its command).
const (
	dirGCPercent    = 400
	doctorGCPercent = 100
)

// bigTranscript is the size from which a transcript given on the command line is audited at
// the default GC pace.
const bigTranscript = 256 << 20

func runAudit(c *cli.Context) error {
	g, err := globals(c)
	if err != nil {
		return err
	}
	format := report.Format(strings.ToLower(c.String("format")))
	switch format {
	case "table", "text":
		format = report.Text
	case report.JSON, report.Markdown, report.SARIF:
	default:
		return &usageError{msg: fmt.Sprintf("unknown --format %q", c.String("format")), hint: "clawdoctor audit --format sarif PATH"}
	}
	if g.JSON {
		format = report.JSON
	}
	failOn := strings.ToLower(c.String("fail-on"))
	var threshold audit.Severity
	if failOn != "never" {
		if threshold, err = audit.ParseSeverity(failOn); err != nil {
			return &usageError{msg: "--fail-on: " + err.Error(), hint: "clawdoctor audit --fail-on warning PATH"}
		}
	}
	var logs []string
	for _, l := range c.StringSlice("logs") {
		matches, err := filepath.Glob(l)
		if err != nil || len(matches) == 0 {
			logs = append(logs, l) // reported as unreadable if it does not exist
			continue
		}
		logs = append(logs, matches...)
	}
	paths := c.Args().Slice()
	opts := audit.Options{MaxLine: c.Int("max-line"), Now: g.Now, Logs: logs, Agent: g.Agent, Stdin: c.App.Reader, Release: g.OpenClaw.Release}
	if len(paths) == 0 {
		paths = []string{g.StateDir}
		if g.Agent != "" {
			paths = []string{filepath.Join(g.StateDir, "agents", g.Agent, "sessions")}
		}
	}
	if os.Getenv("GOMEMLIMIT") == "" && os.Getenv("GOGC") == "" {
		// A state dir is thousands of short-lived scans: collect less often (a third less CPU
		// on 10,000 sessions) and let the soft limit bound the heap. A big transcript's index is
		// long-lived (~30 bytes an entry, ~70 MB at 4 GiB, ~270 MB at 16 GiB): the default pace
		// keeps the heap near twice that, and the higher limit caps a 16 GiB one under its
		// 384 MiB target.
		gc, limit := dirGCPercent, int64(dirMemoryLimit)
		for _, p := range paths {
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Size() >= bigTranscript {
				gc, limit = 100, auditMemoryLimit
			}
		}
		debug.SetGCPercent(gc)
		debug.SetMemoryLimit(limit)
	}
	res, err := audit.Run(c.Context, paths, opts, newCounter(c, "audit"))
	if errors.Is(err, audit.ErrNoInput) && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(c.App.ErrWriter, "clawdoctor: error: %s\n", report.Escape(err.Error()))
		return status(exitPartial) // nothing could be read: skipped, never a clean pass
	}
	if err != nil && res == nil {
		return err
	}
	if err != nil {
		return err // cancelled
	}
	ro := report.AuditOptions{Width: report.Width(c.App.Writer), Color: report.Color(c.App.Writer), Verbose: c.Bool("verbose")}
	if format == report.SARIF {
		if ro.SARIFRoot = c.String("sarif-root"); ro.SARIFRoot == "" {
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			ro.SARIFRoot = report.SARIFRoot(paths, cwd)
		} else if ro.SARIFRoot, err = filepath.Abs(ro.SARIFRoot); err != nil {
			return err
		}
	}
	if err := report.Audit(c.App.Writer, res, format, ro); err != nil {
		return err
	}
	switch {
	case failOn != "never" && res.Reaches(threshold):
		return status(exitFindings)
	case len(res.Unreadable) > 0:
		return status(exitPartial)
	}
	return status(exitClean)
}

package commands

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clawdoctor/clawdoctor/audit"
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
		},
		Description: `Audit transcripts, sessions dirs or a whole state dir, without writing anything. A
directory is walked for every transcript-like file (live, topic, .reset./.deleted./.bak
archives, .gz/.zst) with or without a sessions.json beside it. With no PATH the state dir is
audited (--agent for one agent). Findings carry a stable rule id, a severity, the file, line and
entry id, and plain words on what to run; docs/audit.md lists every rule.

EXAMPLE
  clawdoctor audit --format sarif ~/.openclaw > audit.sarif
  clawdoctor audit --logs /tmp/openclaw/openclaw-2026-05-17.log --fail-on warning s.jsonl` + exitStatusHelp,
		Action: runAudit,
	}
}

// auditMemoryLimit is the soft heap limit of an audit run (peak RSS target: 256 MiB).
const auditMemoryLimit = 192 << 20

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
	opts := audit.Options{MaxLine: c.Int("max-line"), Now: g.Now, Logs: logs, Agent: g.Agent, Release: g.OpenClaw.Release}
	if len(paths) == 0 {
		paths = []string{g.StateDir}
		if g.Agent != "" {
			paths = []string{filepath.Join(g.StateDir, "agents", g.Agent, "sessions")}
		}
	}
	if os.Getenv("GOMEMLIMIT") == "" && os.Getenv("GOGC") == "" {
		// A state dir is thousands of short-lived scans: collect less often (a third less CPU
		// on 10,000 sessions), while the soft limit keeps the heap of a huge transcript's index
		// (~100 MB live) and so the peak RSS under the 256 MiB target.
		debug.SetGCPercent(400)
		debug.SetMemoryLimit(auditMemoryLimit)
	}
	res, err := audit.Run(c.Context, paths, opts, newCounter(c, "audit"))
	if err != nil && (errors.Is(err, audit.ErrNoInput) || res == nil) {
		return err
	}
	if err != nil {
		return err // cancelled
	}
	if err := report.Audit(c.App.Writer, res, format); err != nil {
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

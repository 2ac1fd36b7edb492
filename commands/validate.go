package commands

import (
	"github.com/urfave/cli/v2"

	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/jsonl"
	"github.com/clawdoctor/clawdoctor/report"
)

func validateCommand() *cli.Command {
	var opts jsonl.ValidateOptions
	return &cli.Command{
		Name:      "validate",
		Usage:     "check that files are well-formed JSONL, fast",
		ArgsUsage: "FILE|DB[#SESSION]... (- reads stdin)",
		Description: `Reads each file line by line in bounded memory (gzip and zstd archives such as
*.jsonl.reset.<ts>.zst are decompressed by their magic bytes) and checks that every line is
exactly one JSON value. It counts the byte-level anomalies of each line (bom, crlf, lone_cr,
nul, invalid_utf8, no_newline, too_long, blank) and lists the first bad lines as
FILE:LINE: reason. It writes nothing. JSON is checked on all cores, in batches whose line
numbers stay exact.

A SQLite-era agent database (agents/<id>/agent/openclaw-agent.sqlite) is validated session
by session, each as the JSONL its events hold; DB#SESSION (a session id or key) checks one.

EXAMPLE
  clawdoctor validate ~/.openclaw/agents/main/sessions/*.jsonl
  clawdoctor --json validate --max-line 1048576 big.jsonl.reset.2026-01-02T03-04-05.000Z.zst
  clawdoctor validate ~/.openclaw/agents/main/agent/openclaw-agent.sqlite

EXIT STATUS
  0  every file is clean
  1  bad lines or anomalies found
  2  usage error
  3  some files (or all) were unreadable (no permission, not a regular file); the rest was checked
  4  no file exists
  130 interrupted`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "max-line", Value: jsonl.DefaultMaxLine, Destination: &opts.MaxLine,
				Usage: "longest acceptable line in bytes; a longer one is a bad line and the scan goes on"},
			&cli.IntFlag{Name: "max-bad", Value: 10, Destination: &opts.MaxBad, Usage: "bad lines listed per file"},
			&cli.IntFlag{Name: "workers", Destination: &opts.Workers, Usage: "goroutines checking JSON (0: one per core, 1: on the reading goroutine)"},
		},
		Action: func(c *cli.Context) error {
			g, err := globals(c)
			if err != nil {
				return err
			}
			if c.NArg() == 0 {
				return &usageError{msg: "validate needs at least one FILE", hint: "clawdoctor validate ~/.openclaw/agents/main/sessions/*.jsonl"}
			}
			if opts.MaxLine <= 0 || opts.MaxBad < 0 || opts.Workers < 0 {
				return &usageError{msg: "--max-line must be positive, --max-bad and --workers not negative", hint: "clawdoctor validate --max-line 67108864 FILE"}
			}
			if opts.MaxBad == 0 {
				opts.MaxBad = -1 // --max-bad 0: list none
			}
			opts.Stdin = c.App.Reader
			res, err := agentdb.ValidatePaths(c.Context, c.Args().Slice(), opts, newCounter(c, "validate"))
			if err != nil {
				return err
			}
			format := report.Text
			if g.JSON {
				format = report.JSON
			}
			if err := report.Validate(c.App.Writer, res, format); err != nil {
				return err
			}
			s := res.Summary
			switch {
			case s.NotFound > 0 && s.NotFound == s.Files:
				return status(exitIO)
			case s.Unreadable > 0: // README: unreadable files are skipped, a partial run, even all of them
				return status(exitPartial)
			case s.Findings > 0:
				return status(exitFindings)
			}
			return nil
		},
	}
}

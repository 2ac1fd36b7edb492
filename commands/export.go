package commands

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/clawdoctor/clawdoctor/internal/export"
	"github.com/clawdoctor/clawdoctor/report"
)

func exportCommand() *cli.Command {
	var opts export.Options
	return &cli.Command{
		Name:  "export",
		Usage: "write the sessions of a SQLite-era agent out as JSONL files and a sessions.json",
		Description: `Reads the agent's database (agents/<id>/agent/openclaw-agent.sqlite, OpenClaw 2026.8+) from
a consistent snapshot, so a running gateway may keep writing, and writes OUTDIR/<sessionId>.jsonl
for each session, byte for byte the JSONL it was imported from (header included), plus
OUTDIR/sessions.json built from the session nodes. Every JSONL tool, clawdoctor's and OpenClaw
2026.6's, can then work on the copy. --archives adds the transcripts archived inside the
database (under their archive names) and copies the sessions dir's archive files.

--salvage reads a damaged database (zeroed or garbled pages, a truncated file, a -wal of
another database): it leaves out a -wal that makes the database fail SQLite's quick_check when
the main file alone passes, writes every session whose events read whole, and of the others
every event that can still be read, in seq order (the table is scanned past its damaged
pages); it names each session written in part with the seqs it lacks, and the rows no query
could read. Exit 3 when anything was lost.

Nothing is ever overwritten: when one output file exists, nothing is written. The database
and the state dir are never written; OUTDIR may not be inside the state dir's agents/.

EXAMPLE
  clawdoctor export --agent main --out /tmp/main-export
  clawdoctor export --agent main --out /tmp/one --session agent:main:main
  clawdoctor export --agent main --out /tmp/saved --salvage

EXIT STATUS
  0  exported
  2  usage error
  3  refused (an output file exists, OUTDIR inside the state dir) or the database changed,
     is damaged or has an unknown schema; nothing or not everything was written (--salvage:
     what could be read was written, and what was lost is named)
  4  I/O error`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "output dir (created when absent; existing files are never overwritten)", Destination: &opts.Out},
			&cli.StringSliceFlag{Name: "session", Usage: "export only this session id or key (repeatable)"},
			&cli.BoolFlag{Name: "archives", Usage: "also write the archived transcripts", Destination: &opts.Archives},
			&cli.BoolFlag{Name: "salvage", Usage: "read a damaged database past its damage: every session that reads whole, every event that can still be read of the others, and what was lost (exit 3)", Destination: &opts.Salvage},
		},
		Before: rejectLateFlags,
		Action: func(c *cli.Context) error {
			g, err := globals(c)
			if err != nil {
				return err
			}
			target, err := oneAgentOut(c, g, "export", opts.Out, "/tmp/main-export")
			if err != nil {
				return err
			}
			opts.SessionsDir, opts.StateDir, opts.Sessions = target.SessionsDir, g.StateDir, c.StringSlice("session")
			res, err := export.Run(c.Context, opts, newCounter(c, "export"))
			if errors.Is(err, export.ErrNotSQLite) {
				return &usageError{msg: err.Error(), hint: "its transcripts are in " + opts.SessionsDir + " already"}
			}
			if err != nil {
				return err
			}
			format := report.Text
			if g.JSON {
				format = report.JSON
			}
			if err := report.Export(c.App.Writer, res, format); err != nil {
				return err
			}
			if res.Salvage.Lost() || len(res.Skipped) > 0 {
				return status(exitPartial) // not every session was written whole
			}
			return nil
		},
	}
}

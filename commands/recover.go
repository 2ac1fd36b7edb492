package commands

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/clawdoctor/clawdoctor/internal/recovery"
	"github.com/clawdoctor/clawdoctor/report"
)

func recoverCommand() *cli.Command {
	var opts recovery.Options
	return &cli.Command{
		Name:  "recover",
		Usage: "write back, as JSONL, the history OpenClaw's SQLite import left out of a session",
		Description: `OpenClaw's SQLite import (2026.8+) keeps only the readable prefix of a damaged transcript and
exits 0; the original stays in agents/<id>/session-sqlite-import-archive/ (or in sessions/).
For each session whose original holds entries the database lacks, recover writes
OUTDIR/<sessionId>.jsonl: the database's events as they are, then the original's lines the
import did not read, repaired as 'clawdoctor repair' repairs them (the torn or garbled line
dropped), and, when the gateway wrote events after the import, one 'custom' entry that keeps
the conversation since then the active one. A copy of each original goes to OUTDIR/originals/.
Sessions whose original the database holds whole (the import only rewrote a BOM, CRLF or a
second header) are listed as complete.

The database's events are a prefix of each file written, so OpenClaw's own recover imports
the rest (tested with the real 2026.9.6):
  1. stop the gateway (openclaw gateway stop)
  2. cp OUTDIR/<sessionId>.jsonl ~/.openclaw/agents/<id>/sessions/<sessionId>.jsonl
  3. openclaw doctor --session-sqlite recover
  4. clawdoctor doctor   (the migration check: the original is covered)

recover never writes the state dir or the database; OUTDIR may not be inside the state dir's
agents/, and nothing existing in it is overwritten.

EXAMPLE
  clawdoctor recover --state-dir ~/.openclaw --agent main --out /tmp/recovered

EXIT STATUS
  0  nothing to recover (every original is in the database)
  1  files written: follow the steps above
  2  usage error
  3  some sessions could not be recovered (named, with why), or a file could not be compared
  4  I/O error`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "output dir (created when absent; existing files are never overwritten)", Destination: &opts.Out},
			&cli.StringSliceFlag{Name: "session", Usage: "recover only this session id or key (repeatable)"},
		},
		Before: rejectLateFlags,
		Action: func(c *cli.Context) error {
			g, err := globals(c)
			if err != nil {
				return err
			}
			target, err := oneAgentOut(c, g, "recover", opts.Out, "/tmp/recovered")
			if err != nil {
				return err
			}
			opts.SessionsDir, opts.StateDir, opts.Sessions = target.SessionsDir, g.StateDir, c.StringSlice("session")
			opts.Now = g.Now
			opts.Repair.Release = g.OpenClaw.Release
			res, err := recovery.Run(c.Context, opts, newCounter(c, "recover"))
			if errors.Is(err, recovery.ErrNotSQLite) {
				return &usageError{msg: err.Error(), hint: "repair its transcripts in place: clawdoctor repair " + opts.SessionsDir}
			}
			if err != nil {
				return err
			}
			format := report.Text
			if g.JSON {
				format = report.JSON
			}
			if err := report.Recover(c.App.Writer, res, format); err != nil {
				return err
			}
			switch {
			case res.Count(recovery.Incomplete) > 0 || len(res.Unchecked) > 0:
				return status(exitPartial)
			case res.Count(recovery.Recovered) > 0:
				return status(exitFindings)
			}
			return nil
		},
	}
}

package commands

import (
	"bufio"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/clawdoctor/clawdoctor/internal/doctor"
	"github.com/clawdoctor/clawdoctor/report"
)

func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:      "doctor",
		Usage:     "check everything and apply safe migrations with --fix",
		ArgsUsage: " ",
		Description: `doctor is what an operator runs first. It runs every check over the whole state dir
(audit rules, repair and cleanup plans as dry runs, and the migrations below), summarises them
per agent and says what to run next. Without --fix it writes nothing.

--fix applies the safe fixes: legacy config keys (comments and layout kept), stale lock files,
legacy session rows (missing sessionStartedAt, stale or Windows/relative sessionFile paths),
stale or shared CLI session bindings, and repairs of damaged transcripts that keep every entry
(BOM, NULs, glued lines, a final newline). Fixes that change, move or archive history — repairs
that drop lines, rewrite messages, insert results or relink parents, orphan transcripts, old
leftovers, oversized store blobs — also need --yes (or a "y" on a terminal). Every changed or
removed file is kept under <state-dir>/clawdoctor-backups/<time>/. SQLite-era agents
(agent/openclaw-agent.sqlite) are never written; their JSONL files are cross-checked against the
database instead. Live locks are reported with their holder and never touched.

EXAMPLES
  $ clawdoctor doctor --state-dir fixtures/demo
  $ clawdoctor doctor --fix
  $ clawdoctor doctor --fix --yes --json` + exitStatusHelp,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "fix", Usage: "apply the safe fixes (backups are kept)"},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "also apply fixes that archive or move history"},
			&cli.BoolFlag{Name: "force", Usage: "write even while a live lock says a gateway is running"},
			&cli.BoolFlag{Name: "follow-symlinks", Usage: "write into a sessions dir reached through a symlinked agents/<id> or sessions dir that leaves the state dir"},
			&cli.BoolFlag{Name: "rebuild-store", Usage: "re-attach orphan transcripts to sessions.json instead of archiving them"},
			&cli.StringFlag{Name: "config", Usage: "OpenClaw config file (default $OPENCLAW_CONFIG_PATH, else <state-dir>/openclaw.json)", TakesFile: true},
			&cli.StringFlag{Name: "backup-dir", Usage: "where backups go (default <state-dir>/clawdoctor-backups/<time>)", TakesFile: true},
			&cli.DurationFlag{Name: "lock-wait", Value: defaultLockWait, Usage: "how long to wait for a transcript whose .lock a live writer holds before refusing its fix"},
			&cli.DurationFlag{Name: "leftover-age", Usage: "leftovers younger than this are kept (default 168h)"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 0 {
				return &usageError{msg: "doctor takes no file arguments", hint: "clawdoctor doctor --state-dir DIR"}
			}
			g, err := globals(c)
			if err != nil {
				return err
			}
			if c.Bool("yes") && !c.Bool("fix") {
				return &usageError{msg: "--yes only makes sense with --fix", hint: "clawdoctor doctor --fix --yes"}
			}
			opts := doctor.Options{
				StateDir:       g.StateDir,
				Release:        g.OpenClaw.Release,
				ConfigPath:     c.String("config"),
				Fix:            c.Bool("fix"),
				Yes:            c.Bool("yes"),
				Force:          c.Bool("force"),
				FollowSymlinks: c.Bool("follow-symlinks"),
				RebuildStore:   c.Bool("rebuild-store"),
				Now:            g.Now,
				BackupDir:      c.String("backup-dir"),
				LeftoverAge:    c.Duration("leftover-age"),
				LockWait:       c.Duration("lock-wait"),
				Getenv:         os.Getenv,
			}
			if g.Agent != "" {
				opts.Agents = []string{g.Agent}
			}
			if opts.Fix && !opts.Yes && !g.JSON {
				opts.Confirm = ttyConfirm(c)
			}
			if os.Getenv("GOMEMLIMIT") == "" && os.Getenv("GOGC") == "" {
				// doctor audits every sessions dir, but holds the store, its rows and the dir
				// listing through the audit (~56 MB live on the 20,000-session bench dir): at
				// audit's pace of 400 the heap grew to the limit between collections, and fresh
				// pages and cache misses cost more than the collections saved (9.4 CPU-s a run
				// against 7.5 at 100); under audit's 208 MiB limit the 64 MiB buffer of a line
				// over the cap left no room and the collector ran back to back (4.7-5.2 s, at
				// 232 MiB 4.5-4.7 s, peak RSS 237-242 MiB: the target is 256).
				debug.SetGCPercent(doctorGCPercent)
				debug.SetMemoryLimit(doctorMemoryLimit)
			}
			res, err := doctor.Run(c.Context, opts)
			if res == nil {
				return configError(err, "doctor")
			}
			format := report.Text
			if g.JSON {
				format = report.JSON
			}
			if rerr := report.Doctor(c.App.Writer, res, format); rerr != nil {
				return rerr
			}
			if err != nil {
				return err // interrupted: the report says what was already done
			}
			open, _, bad, fixed := res.Counts()
			switch {
			case bad > 0:
				return status(exitPartial)
			case open > 0 || fixed > 0:
				return status(exitFindings)
			}
			return nil
		},
	}
}

// ttyConfirm asks on the terminal; with no terminal on stdin it answers no.
func ttyConfirm(c *cli.Context) func(string) bool {
	in, ok := c.App.Reader.(*os.File)
	if !ok || !term.IsTerminal(int(in.Fd())) {
		return nil
	}
	r := bufio.NewReader(in)
	return func(q string) bool {
		fmt.Fprintf(c.App.ErrWriter, "clawdoctor: %s [y/N] ", q)
		line, _ := r.ReadString('\n')
		line = strings.ToLower(strings.TrimSpace(line))
		return line == "y" || line == "yes"
	}
}

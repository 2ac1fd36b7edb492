package commands

import (
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/clawdoctor/clawdoctor/internal/openclaw"
	"github.com/clawdoctor/clawdoctor/jsonl"
	"github.com/clawdoctor/clawdoctor/repair"
	"github.com/clawdoctor/clawdoctor/report"
)

// defaultLockWait is how long repair and doctor wait for a transcript's live write lock: the
// acquire timeout of OpenClaw's older builds (its newer ones wait 60 s).
const defaultLockWait = 10 * time.Second

func repairCommand() *cli.Command {
	var opts repair.Options
	return &cli.Command{
		Name:      "repair",
		Usage:     "repair torn or malformed transcript lines and corrupt session stores, with backups",
		ArgsUsage: "[PATH...]",
		Description: `Repairs transcripts as OpenClaw's repairSessionFileIfNeeded does in the release followed
(--openclaw-version, else the one the state dir's openclaw.json says last wrote it, else
` + openclaw.DefaultVersion + `): unparseable lines dropped and, since 2026.6.11, role-less messages dropped,
empty assistant error turns and blank user turns rewritten with OpenClaw's texts, image blocks
with corrupt base64 replaced by a text block (2026.7.35 accepts unpadded base64), and "aborted"
results inserted for OpenAI code-mode
tool calls without results and for message tool calls before a delivery mirror. It salvages what
OpenClaw would drop: a BOM before the header, NUL runs, glued objects, a complete entry after a
torn one. Lines nobody changes are written back byte for byte. A sessions.json that does not
parse is salvaged entry by entry.

PATH is a transcript, a sessions dir or a state dir; without PATH the state dir's default agent
(--agent, --all-agents) is repaired. Every change is preceded by a backup <file>.bak-<pid>-<ms>
(or in --backup-dir) and written atomically (temp file, fsync, rename, fsync dir). A file whose
.lock a live process holds is waited for (--lock-wait, 10s: a gateway holds it while it
appends), then skipped with the holder named; SQLite-era agents are skipped.

EXAMPLE
  clawdoctor repair --dry-run ~/.openclaw/agents/main/sessions
  clawdoctor repair --relink --synthesize-header ~/.openclaw/agents/main/sessions/abc.jsonl` + `

EXIT STATUS
  0  nothing to repair
  1  repaired (with --dry-run: would repair)
  2  usage error
  3  some files were skipped (locked, SQLite era, no valid header); the rest was done
  4  I/O error
  130 interrupted`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Destination: &opts.DryRun, Usage: "print the plan, write nothing"},
			&cli.StringFlag{Name: "backup-dir", Destination: &opts.BackupDir, TakesFile: true, Usage: "put backups here instead of beside each file"},
			&cli.BoolFlag{Name: "force", Destination: &opts.Force, Usage: "repair files even when a live process holds their .lock"},
			&cli.BoolFlag{Name: "follow-symlinks", Destination: &opts.FollowSymlinks, Usage: "write into a sessions dir reached through a symlinked agents/<id> or sessions dir that leaves the state dir"},
			&cli.BoolFlag{Name: "synthesize-header", Destination: &opts.SynthesizeHeader, Usage: "give a file whose first line is an entry a session header (id from the file name, timestamp of the first entry, version 3, empty cwd)"},
			&cli.BoolFlag{Name: "relink", Destination: &opts.Relink, Usage: "re-parent entries whose parentId names no entry of the file onto the previous entry (null for the first)"},
			&cli.BoolFlag{Name: "only-invalid-utf8", Destination: &opts.OnlyInvalidUTF8, Usage: "change nothing but bytes that are not UTF-8, replaced by U+FFFD as OpenClaw's runtime read them (its SQLite import stops at them)"},
			&cli.BoolFlag{Name: "rebuild-store", Destination: &opts.RebuildStore, Usage: "add sessions.json entries for transcripts no entry references"},
			&cli.DurationFlag{Name: "lock-wait", Value: defaultLockWait, Destination: &opts.LockWait, Usage: "how long to wait for a transcript whose .lock a live writer holds before skipping it"},
			&cli.IntFlag{Name: "max-line", Value: jsonl.DefaultMaxLine, Destination: &opts.MaxLine, Usage: "longest line examined in bytes (default 64 MiB); a longer one is kept byte for byte, unexamined, never held in memory"},
		},
		Action: func(c *cli.Context) error {
			g, err := globals(c)
			if err != nil {
				return err
			}
			opts.Now = g.Now
			opts.Release = g.OpenClaw.Release
			if d, err := time.ParseDuration(os.Getenv("CLAWDOCTOR_TEST_PHASE_DELAY")); err == nil {
				opts.Phase = func(ph string) { // the SIGKILL crash test stops us between steps
					if ph != "renaming" { // the in-process tail tests' hook, not a step
						time.Sleep(d)
					}
				}
			}
			t := repair.Target{Paths: c.Args().Slice(), StateDir: g.StateDir, Agent: g.Agent, AllAgents: g.AllAgents}
			res, err := repair.Run(c.Context, t, opts, newCounter(c, "repair"))
			if res == nil {
				return err
			}
			res.OpenClaw = &g.OpenClaw
			format := report.Text
			if g.JSON {
				format = report.JSON
			}
			if rerr := report.Repair(c.App.Writer, res, format); rerr != nil {
				return rerr
			}
			if err != nil {
				return err // interrupted: the report names every file already replaced and its backup
			}
			s := res.Summary
			switch {
			case s.Failed > 0:
				return status(exitIO)
			case s.Skipped > 0:
				return status(exitPartial)
			case s.Repaired > 0:
				return status(exitFindings)
			}
			return nil
		},
	}
}

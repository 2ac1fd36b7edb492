package commands

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"github.com/clawdoctor/clawdoctor/internal/config"
	"github.com/clawdoctor/clawdoctor/internal/openclaw"
	"github.com/clawdoctor/clawdoctor/internal/retention"
	"github.com/clawdoctor/clawdoctor/internal/safefile"
	"github.com/clawdoctor/clawdoctor/jsonl"
	"github.com/clawdoctor/clawdoctor/report"
)

func cleanupCommand() *cli.Command {
	return &cli.Command{
		Name:  "cleanup",
		Usage: "OpenClaw-exact retention and disk budgets, dry-run or enforce",
		Description: `Plans session maintenance exactly as 'openclaw sessions cleanup' does (fix-missing,
stale prune by updatedAt, cap to maxEntries, archive removed transcripts as .deleted.<ts>,
archive retention, disk budget tiers, unreferenced-artifact sweep) with a reason for every
decision. Settings come from openclaw.json (session.maintenance); flags override them.

Nothing is written without --enforce: without it cleanup prints the plan (a dry run). With
--enforce the plan is applied: sessions.json is backed up and rewritten atomically, files are
archived or deleted only inside the sessions dir, never through symlinks, every deleted file
is listed with its size (and copied into --backup-dir when given), and nothing is written
while a gateway holds the store (unless --force). Unlike OpenClaw's own cleanup, a transcript
a kept row names (by sessionId or by the file name of its sessionFile, also another machine's
absolute path) is never removed, orphan transcripts are archived as .deleted.<ts>, never
deleted, and a sessions dir without sessions.json is refused (rebuild it with repair
--rebuild-store).

EXAMPLE
  clawdoctor cleanup --all-agents
  clawdoctor cleanup --json --max-disk-bytes 500mb --explain
  clawdoctor cleanup --enforce --backup-dir /tmp/removed` + exitStatusHelp,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "only print the plan (the default without --enforce)"},
			&cli.BoolFlag{Name: "enforce", Usage: "apply the plan, in mode enforce whatever session.maintenance.mode says"},
			&cli.StringFlag{Name: "backup-dir", Usage: "keep a copy of every deleted file (and of the old sessions.json) here", TakesFile: true},
			&cli.BoolFlag{Name: "keep-orphans", Usage: "archive the orphan transcripts a disk budget would delete (as OpenClaw deletes them), even if the budget is then not met"},
			&cli.BoolFlag{Name: "explain", Usage: "say why each entry and file is kept or removed"},
			&cli.StringFlag{Name: "store", Usage: "sessions.json to clean (attributed to the default agent)", TakesFile: true},
			&cli.StringFlag{Name: "config", Usage: "openclaw.json (default $OPENCLAW_CONFIG_PATH, else <state-dir>/openclaw.json)", TakesFile: true},
			&cli.StringFlag{Name: "active-key", Usage: "session key to preserve (the active session)"},
			&cli.BoolFlag{Name: "fix-missing", Usage: "remove entries whose transcript is missing or has no messages"},
			&cli.BoolFlag{Name: "fix-dm-scope", Usage: "retire direct-message rows when session.dmScope is main"},
			&cli.StringFlag{Name: "prune-after", Usage: "override pruneAfter (duration, default unit d: 30d, 12h)"},
			&cli.StringFlag{Name: "max-entries", Usage: "override maxEntries"},
			&cli.StringFlag{Name: "max-disk-bytes", Usage: "override maxDiskBytes (size: 500mb, 1gb)"},
			&cli.StringFlag{Name: "high-water-bytes", Usage: "override highWaterBytes (default 80% of maxDiskBytes)"},
			&cli.StringFlag{Name: "reset-archive-retention", Usage: "override resetArchiveRetention (duration, or false)"},
			&cli.BoolFlag{Name: "prune-model-runs", Usage: "also prune gateway model-run probes older than 24h (always from OpenClaw 2026.7.35)"},
			&cli.BoolFlag{Name: "cron-runs", Usage: "also apply cron.sessionRetention to isolated cron run rows"},
			&cli.BoolFlag{Name: "force", Usage: "write even when a gateway seems to hold the store"},
			&cli.BoolFlag{Name: "follow-symlinks", Usage: "write into a sessions dir reached through a symlinked agents/<id> or sessions dir that leaves the state dir"},
		},
		Action: runCleanup,
	}
}

// cleanupMemoryLimit is the soft heap limit of a cleanup run.
const cleanupMemoryLimit = 240 << 20

// sqliteMaintenance applies the override flags to the config for a SQLite-era store.
func sqliteMaintenance(m config.Maintenance, c *cli.Context) config.Maintenance {
	for flag, dst := range map[string]*any{"prune-after": &m.PruneAfter, "max-disk-bytes": &m.MaxDiskBytes, "high-water-bytes": &m.HighWaterBytes} {
		if v := c.String(flag); v != "" {
			*dst = v
		}
	}
	if v := c.String("max-entries"); v != "" {
		var n float64
		if _, err := fmt.Sscan(v, &n); err == nil {
			m.MaxEntries = n
		}
	}
	return m
}

func runCleanup(c *cli.Context) error {
	g, err := globals(c)
	if err != nil {
		return err
	}
	if c.String("store") != "" && (g.Agent != "" || g.AllAgents) {
		return &usageError{msg: "--store cannot be combined with --agent or --all-agents",
			hint: "clawdoctor cleanup --dry-run --store ~/.openclaw/agents/main/sessions/sessions.json"}
	}
	if c.Args().Len() > 0 {
		return &usageError{msg: "cleanup takes no arguments", hint: "clawdoctor cleanup --dry-run --store PATH"}
	}
	cfg, err := config.Open(c.String("config"), g.StateDir, os.Getenv)
	if err != nil {
		return configError(err, "cleanup")
	}
	settings, err := retention.Resolve(cfg.Session.Maintenance, cfg.Cron, retention.Overrides{
		PruneAfter: c.String("prune-after"), MaxEntries: c.String("max-entries"),
		MaxDiskBytes: c.String("max-disk-bytes"), HighWaterBytes: c.String("high-water-bytes"),
		ResetArchiveRetention: c.String("reset-archive-retention"),
	})
	if err != nil {
		return &usageError{msg: err.Error(), hint: "durations like 30d or 12h, sizes like 500mb or 1gb"}
	}
	home, _ := os.UserHomeDir()
	targets, err := retention.Targets(cfg, retention.Scope{StateDir: g.StateDir, Home: home,
		Store: c.String("store"), Agent: g.Agent, AllAgents: g.AllAgents})
	if errors.Is(err, retention.ErrUnknownAgent) {
		return &usageError{msg: err.Error(), hint: "clawdoctor stats --all-agents lists the agents"}
	}
	if err != nil {
		return err
	}
	apply := c.Bool("enforce") && !c.Bool("dry-run")
	opt := retention.RunOptions{StateDir: g.StateDir, DMScope: cfg.Session.DMScope, Force: c.Bool("force"), FollowSymlinks: c.Bool("follow-symlinks"),
		BackupDir: c.String("backup-dir"), Preview: !c.Bool("dry-run") && !apply,
		SQLite: retention.ResolveSQLite(sqliteMaintenance(cfg.Session.Maintenance, c)),
		Options: retention.Options{Settings: settings, Now: g.Now, DryRun: !apply, Enforce: c.Bool("enforce"),
			ActiveKey: c.String("active-key"), FixMissing: c.Bool("fix-missing"), FixDMScope: c.Bool("fix-dm-scope"),
			ModelRuns: c.Bool("prune-model-runs") || g.OpenClaw.Release.Has(openclaw.CleanupPrunesModelRuns), CronRuns: c.Bool("cron-runs"), Explain: c.Bool("explain"), KeepOrphans: c.Bool("keep-orphans")}}
	if os.Getenv("GOMEMLIMIT") == "" && os.Getenv("GOGC") == "" {
		// a plan's live data is ~1.6 KB an entry (160 MB for 100,000 entries and 200,000
		// files); without a limit the default pace lets the heap reach ~450 MiB (issue 14's
		// target: 300 MiB), with it the collector works ~15% more
		debug.SetMemoryLimit(cleanupMemoryLimit)
	}
	var results []report.CleanupStore
	code := exitClean
	var interrupted error
	for _, t := range targets {
		res, err := retention.Run(c.Context, t, opt)
		if interrupted = c.Context.Err(); interrupted != nil {
			if res.Plan != nil || res.SQLite != nil {
				results = append(results, res) // what was already applied, with its backup
			}
			break
		}
		if err != nil && res.Plan == nil && res.SQLite == nil {
			if len(targets) == 1 && !safefile.Unreadable(err) && !errors.Is(err, jsonl.ErrTooDeep) {
				return err
			}
			fmt.Fprintf(c.App.ErrWriter, "clawdoctor: error: %s\n", report.Escape(err.Error()))
			code = max(code, exitPartial)
			continue
		}
		results = append(results, res)
		switch {
		case err != nil:
			fmt.Fprintf(c.App.ErrWriter, "clawdoctor: error: %s\n", report.Escape(err.Error()))
			code = max(code, exitIO)
		case res.Partial():
			code = max(code, exitPartial)
		case res.Changes():
			code = max(code, exitFindings)
		}
	}
	format := report.Text
	if g.JSON {
		format = report.JSON
	}
	if len(results) > 0 {
		if err := report.Cleanup(c.App.Writer, results, format, c.Bool("explain")); err != nil {
			return err
		}
	}
	if interrupted != nil {
		return interrupted
	}
	return status(code)
}

package commands

import (
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/clawdoctor/clawdoctor/internal/config"
	"github.com/clawdoctor/clawdoctor/internal/store"
	"github.com/clawdoctor/clawdoctor/report"
)

func statsCommand() *cli.Command {
	return &cli.Command{
		Name:      "stats",
		Usage:     "show what is in the state dir",
		ArgsUsage: "[PATH...]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "markdown", Usage: "print the table as Markdown"},
			&cli.StringFlag{Name: "config", Usage: "openclaw.json to read agents.list, session.store and session.writeLock from (default: OpenClaw's lookup)", TakesFile: true},
		},
		Description: `Count, per agent, the sessions.json entries, live transcripts, archives by kind
(.reset./.deleted./.bak., .zst), orphans (files no entry references), entries whose transcript
is missing, write locks (live or stale), and the oldest and newest activity (entries'
updatedAt). Nothing is written and no transcript is read. With no PATH the state dir is used:
--agent ID, --all-agents, else "main" when it exists, else every agent. A PATH is a sessions
dir, a sessions.json or a state dir.

EXAMPLE
  clawdoctor stats --all-agents
  clawdoctor --json stats ~/.openclaw/agents/main/sessions | jq '.agents[0].orphans'` + statsExitHelp,
		Action: runStats,
	}
}

const statsExitHelp = `

EXIT STATUS
  0  the inventory was printed (stats is informational: problems are listed, not failed on)
  2  usage error (unknown agent, no agents under the state dir, bad PATH, a --config that cannot be read)
  3  partial: a sessions dir, sessions.json or agent database could not be read (named in the notes)
  4  I/O error`

func runStats(c *cli.Context) error {
	g, err := globals(c)
	if err != nil {
		return err
	}
	scope := store.Scope{StateDir: g.StateDir, Agent: g.Agent, All: g.AllAgents, Paths: c.Args().Slice()}
	var notes []string
	var staleMs int64
	if cfg, err := config.Open(c.String("config"), g.StateDir, os.Getenv); err != nil {
		var le *config.LoadError
		if !errors.As(err, &le) || le.Explicit {
			return configError(err, "stats")
		}
		notes = append(notes, fmt.Sprintf("config not used: %v", err))
	} else {
		for _, a := range cfg.Agents {
			scope.Configured = append(scope.Configured, a.ID)
		}
		scope.StoreTemplate = cfg.Session.Store
		if ms, ok := cfg.Session.WriteLock.StaleMs.(float64); ok && ms > 0 {
			staleMs = int64(ms)
		}
		scope.Home = os.Getenv("OPENCLAW_HOME")
		if scope.Home == "" {
			scope.Home, _ = os.UserHomeDir()
		}
	}
	targets, err := scope.Targets()
	switch {
	case errors.Is(err, store.ErrUnknownAgent):
		return &usageError{msg: err.Error(), hint: "clawdoctor stats --all-agents"}
	case errors.Is(err, store.ErrNoAgents):
		return &usageError{msg: err.Error(), hint: "clawdoctor --state-dir ~/.openclaw stats, or clawdoctor stats PATH/TO/sessions"}
	case errors.Is(err, os.ErrNotExist):
		return &usageError{msg: err.Error(), hint: "clawdoctor stats ~/.openclaw/agents/main/sessions"}
	case errors.Is(err, store.ErrNotSessionsDir):
		return &usageError{msg: err.Error(), hint: "clawdoctor stats ~/.openclaw/agents/main/sessions"}
	case err != nil:
		return err
	}
	opts := store.StatsOptions{Now: g.Now, Lock: store.LockOptions{StaleAfter: store.LockStaleAfter(os.Getenv, staleMs)}}
	stats, err := store.Inventory(c.Context, targets, opts, newCounter(c, "stats"))
	if err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	stats.Notes = append(notes, stats.Notes...)
	format := report.Text
	switch {
	case g.JSON:
		format = report.JSON
	case c.Bool("markdown"):
		format = report.Markdown
	}
	if err := report.Stats(c.App.Writer, stats, format); err != nil {
		return err
	}
	if stats.Partial() {
		return status(exitPartial) // a read that failed is never a clean pass
	}
	for _, a := range stats.Agents {
		if a.DB != nil && a.DB.Error != "" || a.Era.Unknown != "" {
			return status(exitPartial) // a read that fails is never a clean pass
		}
	}
	return nil
}

package commands

import (
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/compaction"
	"github.com/clawdoctor/clawdoctor/internal/hygiene"
	"github.com/clawdoctor/clawdoctor/internal/replay"
	"github.com/clawdoctor/clawdoctor/internal/store"
	"github.com/clawdoctor/clawdoctor/report"
)

func replayCommand() *cli.Command {
	return &cli.Command{
		Name:      "replay",
		Usage:     "show what OpenClaw would send to a model for a session, and what compaction would do",
		ArgsUsage: "FILE|DB#SESSION",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "provider", Usage: "provider the session would be sent to (anthropic, google, mistral, openai, openrouter, ...)"},
			&cli.StringFlag{Name: "model", Usage: "model id (e.g. claude-sonnet-4-5, gemini-2.5-pro, google/gemini-2.5-pro)"},
			&cli.StringFlag{Name: "api", Usage: "model api (anthropic-messages, google-generative-ai, openai-responses, openai-completions, ...); guessed from --provider when empty"},
			&cli.StringFlag{Name: "session", Usage: "replay this session (id or key) of the agent (--state-dir, --agent), from its transcript or, in the SQLite era, its database"},
			&cli.StringFlag{Name: "leaf", Usage: "replay from this entry id instead of the last entry"},
			&cli.BoolFlag{Name: "model-reasoning", Usage: "the model is a reasoning model (its catalog entry has reasoning: true)"},
			&cli.IntFlag{Name: "context-window", Value: compaction.DefaultContextWindow, Usage: "model context window in tokens"},
			&cli.IntFlag{Name: "reserve-tokens", Value: compaction.DefaultReserveTokens, Usage: "configured compaction.reserveTokens (OpenClaw raises it to --reserve-floor)"},
			&cli.IntFlag{Name: "reserve-floor", Value: compaction.ReserveTokensFloor, Usage: "OpenClaw reserveTokensFloor; 0 or -1 turns it off"},
			&cli.IntFlag{Name: "keep-recent-tokens", Value: compaction.DefaultKeepRecentTokens, Usage: "tokens of recent messages a compaction keeps"},
			&cli.StringFlag{Name: "boundary", Usage: "next-compaction boundary: late (pi-late, OC-core) or pi-0.58 (default: the release's, pi-0.58 for 2026.3.x, late after)"},
			&cli.StringFlag{Name: "estimator", Value: string(compaction.EstimatorPi), Usage: "token estimator: pi (chars/4) or cjk (OC-core)"},
			&cli.BoolFlag{Name: "recheck-compactions", Usage: "recompute the cut point of every stored compaction under both boundaries (loads the whole path)"},
			&cli.StringSliceFlag{Name: "allowed-tools", Usage: "tool-name allow-list for the tool-call input check"},
			&cli.StringFlag{Name: "summary-cmd", Usage: "run this command with the text compaction would summarize on stdin (no shell: write sh -c '...' for one)"},
			&cli.DurationFlag{Name: "summary-timeout", Value: time.Minute, Usage: "kill --summary-cmd after this long"},
			&cli.StringFlag{Name: "max-input-bytes", Value: "256MiB", Usage: "most transcript bytes a replay holds in memory: all of stdin (-), the path entries of a file"},
		},
		Description: `Replays one transcript offline: pi's context building (active leaf, last compaction,
summary wrapper texts, custom messages), then OpenClaw's provider hygiene for the chosen
provider/model (tool-call ids, pairing repair, turn validation, ...), then the compaction
decision (trigger, cut point, split turn, chunk plan, memory flush). Nothing is written; no
model is called.

A session of a SQLite-era agent is replayed from its database: --session KEY (or id), or
DB#SESSION as the argument (agents/<id>/agent/openclaw-agent.sqlite#agent:main:main).

EXAMPLE
  clawdoctor replay --provider anthropic --model claude-sonnet-4-5 s.jsonl
  clawdoctor replay --provider anthropic --model claude-sonnet-4-5 --session agent:main:main
  clawdoctor replay --json --provider mistral --model mistral-large-latest s.jsonl

For replay, exit 1 means a hygiene step changed the history or compaction would run, and
exit 3 that lines pi skips were skipped or --summary-cmd failed.` + exitStatusHelp,
		Action: runReplay,
	}
}

func runReplay(c *cli.Context) error {
	g, err := globals(c)
	if err != nil {
		return err
	}
	path := c.Args().First()
	switch {
	case c.String("session") != "" && c.NArg() == 0:
		targets, err := store.Targets(g.StateDir, g.Agent, false, nil)
		if err != nil {
			return err
		}
		if len(targets) != 1 {
			return &usageError{msg: "--session needs one agent", hint: "clawdoctor replay --agent main --session agent:main:main ..."}
		}
		if path, err = store.SessionSource(targets[0].SessionsDir, c.String("session")); err != nil {
			if errors.Is(err, store.ErrNoSession) || errors.Is(err, agentdb.ErrNoSession) {
				return &usageError{msg: err.Error(), hint: "clawdoctor stats lists the agent's sessions; give a session id or key"}
			}
			return err
		}
	case c.NArg() != 1 || c.String("session") != "":
		return &usageError{msg: "replay needs exactly one transcript FILE (or DB#SESSION), or --session ID|KEY",
			hint: "clawdoctor replay --provider anthropic --model claude-sonnet-4-5 s.jsonl"}
	}
	if c.String("provider") == "" || c.String("model") == "" {
		return &usageError{msg: "replay needs --provider and --model",
			hint: "clawdoctor replay --provider anthropic --model claude-sonnet-4-5 " + c.Args().First()}
	}
	// The global --openclaw-version, else the state dir's openclaw.json, else the default; a
	// release between verified ones replays as the older one (g.OpenClaw.Note says so).
	behaves, _ := g.OpenClaw.Release.Behaves()
	release, err := hygiene.ParseRelease(behaves.String())
	if err != nil {
		return &usageError{msg: err.Error(), hint: "--openclaw-version " + string(hygiene.DefaultRelease)}
	}
	var boundary compaction.Boundary // "": the release's (compaction.ReleaseBoundary)
	if b := c.String("boundary"); b != "" {
		if boundary, err = compaction.ParseBoundary(b); err != nil {
			return &usageError{msg: err.Error(), hint: "--boundary late"}
		}
	}
	est := compaction.Estimator(c.String("estimator"))
	if est != compaction.EstimatorPi && est != compaction.EstimatorCJK {
		return &usageError{msg: fmt.Sprintf("unknown estimator %q", est), hint: "--estimator pi or --estimator cjk"}
	}
	if c.Int("context-window") <= 0 {
		return &usageError{msg: "--context-window must be positive", hint: "--context-window 200000"}
	}
	floor := c.Int("reserve-floor")
	if floor <= 0 {
		floor = -1 // the library reads 0 as "OpenClaw's default"
	}
	var summaryArgv []string
	if s := c.String("summary-cmd"); s != "" {
		if summaryArgv, err = replay.SplitCommand(s); err != nil {
			return &usageError{msg: "--summary-cmd: " + err.Error(), hint: `--summary-cmd "sh -c 'wc -c'"`}
		}
	}
	maxInput, err := fixtures.ParseSize(c.String("max-input-bytes"))
	if err != nil || maxInput <= 0 {
		return &usageError{msg: fmt.Sprintf("--max-input-bytes %q: not a positive size", c.String("max-input-bytes")), hint: "--max-input-bytes 1GiB"}
	}
	opts := replay.Options{
		MaxInput: maxInput,
		Provider: c.String("provider"), Model: c.String("model"), API: c.String("api"),
		Release: release, Reasoning: c.Bool("model-reasoning"), Leaf: c.String("leaf"), NowMs: g.Now.UnixMilli(),
		AllowedTools: c.StringSlice("allowed-tools"), Recheck: c.Bool("recheck-compactions"),
		Compaction: compaction.Settings{
			ContextWindow: c.Int("context-window"), ReserveTokens: c.Int("reserve-tokens"),
			KeepRecentTokens: c.Int("keep-recent-tokens"), ReserveFloor: floor,
			Boundary: boundary, Estimator: est,
		},
	}
	var res *replay.Result
	if path == "-" {
		res, err = replay.Run(c.Context, c.App.Reader, "<stdin>", opts)
	} else {
		res, err = replay.RunFile(c.Context, path, opts)
	}
	if errors.Is(err, replay.ErrUnknownLeaf) {
		return &usageError{msg: err.Error(), hint: "clawdoctor replay --leaf <entry id on the file> ..."}
	}
	if err != nil {
		return err
	}
	if summaryArgv != nil {
		replay.Summarize(c.Context, res, summaryArgv, c.Duration("summary-timeout"))
	}
	if g.OpenClaw.Source != "default" {
		sel := g.OpenClaw
		res.OpenClaw = &sel
	}
	format := report.Text
	if g.JSON {
		format = report.JSON
	}
	if err := report.Replay(c.App.Writer, res, format); err != nil {
		return err
	}
	switch {
	case res.Context.SkippedLines > 0 || (res.Summary != nil && res.Summary.Error != ""):
		return status(exitPartial)
	case res.Changed() || res.Compaction.Trigger.WouldCompact:
		return status(exitFindings)
	}
	return status(exitClean)
}

package commands

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clawdoctor/clawdoctor/internal/view"
	"github.com/clawdoctor/clawdoctor/report"
)

func viewCommand() *cli.Command {
	return &cli.Command{
		Name:      "view",
		Usage:     "write an offline HTML page of a session, or of a whole state dir",
		ArgsUsage: "PATH",
		Description: `Writes a self-contained HTML page (inline script and style, no network, works from
file://) for PATH: a transcript (plain, .gz or .zst) gives one session page; a sessions dir,
a sessions.json or a state dir gives DIR/index.html (sessions table, disk use per agent and
kind, what cleanup would remove) and one page per transcript under DIR/sessions/<agent>/.

A session page shows the entry tree (branches, the active path, abandoned branches
collapsible), every message with its thinking, tool calls paired with their results and
images as thumbnails, compactions, model fallbacks, lost fallback prompts, message-tool
deliveries, every audit finding on its entry, a token timeline, and what OpenClaw would send
to each --replay target with the hygiene changes marked. Only the rows on screen are drawn,
so a 100,000-entry session opens in seconds; texts longer than --max-text are cut and the
page holds at most --text-budget of full texts (gzip'ed), so its size stays bounded.

--redact replaces every text (messages, thinking, tool arguments and results, summaries,
errors, labels, paths, the person parts of session keys) by its length and a hash keyed per
run: ids, types, models, tool names, token counts and the tree stay, so the page can be
attached to a bug report. PATH is only read.

EXAMPLE
  clawdoctor view --out s.html ~/.openclaw/agents/main/sessions/<id>.jsonl
  clawdoctor view --out-dir /tmp/view --logs /tmp/openclaw/openclaw-2026-05-01.log ~/.openclaw
  clawdoctor view --redact --replay anthropic/claude-sonnet-4-5 --out bug.html s.jsonl

For view, exit 0 means every page was written (findings do not change it) and exit 3 that
some transcripts got no page.` + exitStatusHelp,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "page file for a transcript (default <name>.html in --out-dir or the current dir)", TakesFile: true},
			&cli.StringFlag{Name: "out-dir", Usage: "dir for the pages (default " + view.DefaultOutDir + " for a dir, . for a transcript)", TakesFile: true},
			&cli.BoolFlag{Name: "open", Usage: "open the page in the default browser"},
			&cli.BoolFlag{Name: "redact", Usage: "replace texts by their length and a hash; keep ids and structure"},
			&cli.StringSliceFlag{Name: "replay", Usage: "provider/model to show what OpenClaw would send to (repeatable; \"none\" for no replay; default: the session's model, anthropic, openai, google)"},
			&cli.StringSliceFlag{Name: "logs", Usage: "gateway log files for audit (fallbacks, deliveries, CLI conflicts)", TakesFile: true},
			&cli.StringFlag{Name: "config", Usage: "openclaw.json for the cleanup column (default as cleanup finds it)", TakesFile: true},
			&cli.IntFlag{Name: "max-text", Value: view.DefaultMaxText, Usage: "bytes of one text kept in full"},
			&cli.Int64Flag{Name: "text-budget", Value: view.DefaultTextBudget, Usage: "bytes of full texts per page before compression"},
		},
		Action: runView,
	}
}

func runView(c *cli.Context) error {
	g, err := globals(c)
	if err != nil {
		return err
	}
	if c.NArg() != 1 {
		return &usageError{msg: "view needs exactly one PATH (a transcript, a sessions dir or a state dir)",
			hint: "clawdoctor view --out s.html ~/.openclaw/agents/main/sessions/<id>.jsonl"}
	}
	if c.Int("max-text") <= 0 || c.Int64("text-budget") <= 0 {
		return &usageError{msg: "--max-text and --text-budget must be positive", hint: "--max-text 65536 --text-budget 25165824"}
	}
	opts := view.Options{Out: c.String("out"), OutDir: c.String("out-dir"), Redact: c.Bool("redact"),
		Logs: c.StringSlice("logs"), Config: c.String("config"), Agent: g.Agent, Now: g.Now,
		MaxText: c.Int("max-text"), TextBudget: c.Int64("text-budget")}
	if rs := c.StringSlice("replay"); len(rs) > 0 {
		opts.Replays = []view.Target{}
		for _, s := range rs {
			if strings.EqualFold(s, "none") {
				continue
			}
			t, err := view.ParseTarget(s)
			if err != nil {
				return &usageError{msg: err.Error(), hint: "--replay anthropic/claude-sonnet-4-5 --replay openrouter/google/gemini-2.5-pro"}
			}
			opts.Replays = append(opts.Replays, t)
		}
	}
	res, err := view.Write(c.Context, c.Args().First(), opts)
	switch {
	case errors.Is(err, view.ErrOutForDir), errors.Is(err, view.ErrNotHTML):
		return &usageError{msg: err.Error(), hint: "clawdoctor view --out-dir /tmp/view " + c.Args().First()}
	case errors.Is(err, view.ErrNotOurs), errors.Is(err, view.ErrInside):
		return &usageError{msg: err.Error(), hint: "write the pages elsewhere: --out /tmp/s.html or --out-dir /tmp/view"}
	case err != nil:
		return err
	}
	format := report.Text
	if g.JSON {
		format = report.JSON
	}
	if err := report.View(c.App.Writer, res, format); err != nil {
		return err
	}
	if c.Bool("open") {
		if err := view.Open(res.Main()); err != nil {
			fmt.Fprintf(c.App.ErrWriter, "clawdoctor: warning: could not open a browser: %s\n", report.Escape(err.Error()))
		}
	}
	if len(res.Failed) > 0 {
		return status(exitPartial)
	}
	return nil
}

package commands

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/report"
)

func fixturesCommand() *cli.Command {
	return &cli.Command{
		Name:  "fixtures",
		Usage: "generate synthetic state dirs with known injected faults; list the shipped small fixtures",
		Description: `EXAMPLE
  clawdoctor fixtures generate --out /tmp/state --agents 2 --sessions 50 --size 20MiB --seed 7 --faults all
  clawdoctor fixtures generate --out /tmp/big --single-transcript --size 1GiB --seed 1
  clawdoctor fixtures list` + exitStatusHelp,
		Subcommands: []*cli.Command{fixturesGenerateCommand(), fixturesListCommand(), fixturesDemoCommand()},
	}
}

func fixturesGenerateCommand() *cli.Command {
	return &cli.Command{
		Name:  "generate",
		Usage: "write a realistic synthetic OpenClaw state dir, with faults injected at known places",
		Description: `Writes DIR/agents/<id>/sessions/ (sessions.json as OpenClaw writes it, transcripts from
several providers with tool calls, thinking, images, compactions and branches, .reset./.deleted.
archives, some zstd, checkpoints, trajectory sidecars), DIR/openclaw.json and DIR/manifest.json,
which lists every injected fault: kind, expected audit rule, file, line, entry id.
The same options and --seed give the same bytes. --size counts live transcript bytes.
--now sets the generator's clock (default 2026-05-01T00:00:00Z, not the wall clock).

FAULTS (--faults all, none, or a comma list)
  ` + faultHelp() + `

EXAMPLE
  clawdoctor fixtures generate --out /tmp/state --sessions 20 --seed 7 --faults torn,bom,unpaired
  clawdoctor fixtures generate --out /tmp/1g --single-transcript --size 1GiB --bad-lines 0.001` + exitStatusHelp,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "output `DIR` (created; must be empty or absent)", Required: true, TakesFile: true},
			&cli.IntFlag{Name: "agents", Value: 1, Usage: "number of agents"},
			&cli.IntFlag{Name: "sessions", Value: 3, Usage: "live sessions per agent"},
			&cli.StringFlag{Name: "size", Usage: "total bytes of live transcripts, e.g. 20MiB, 1GiB, 500KB (default: about 24KiB per session)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed"},
			&cli.StringFlag{Name: "faults", Value: "none", Usage: "faults to inject: all, none or a comma list (see above)"},
			&cli.IntFlag{Name: "fault-count", Value: 1, Usage: "inject each fault this many times"},
			&cli.IntFlag{Name: "entries", Usage: "with --single-transcript: stop after about N entries"},
			&cli.Float64Flag{Name: "bad-lines", Usage: "fraction of extra malformed lines (torn prefixes, NUL runs, log text), e.g. 0.001"},
			&cli.BoolFlag{Name: "single-transcript", Usage: "one agent, one session: a single transcript of --size bytes (benchmarks)"},
			&cli.IntFlag{Name: "files", Usage: "pad the sessions dirs with small archives up to N files"},
			&cli.BoolFlag{Name: "gateway-log", Usage: "also write logs/openclaw-<date>.log (fallback decisions, CLI session-id conflicts)"},
			&cli.BoolFlag{Name: "short-texts", Usage: "keep every text short and write no images (small samples like fixtures/demo)"},
			&cli.BoolFlag{Name: "relative-paths", Usage: "record compaction checkpoint files by name, not by absolute path as OpenClaw does, so the state dir can be moved (fixtures/demo)"},
			&cli.StringFlag{Name: "long-line", Usage: "size of the long-line fault's line (default 64MiB+4KiB, over the default line cap)"},
			&cli.StringFlag{Name: "sqlite-out", Usage: "also write a SQLite-era state `DIR` with the same sessions in agents/<id>/agent/openclaw-agent.sqlite (the real 2026.9.6 schema; benchmarks)", TakesFile: true},
		},
		Action: func(c *cli.Context) error {
			g, err := globals(c)
			if err != nil {
				return err
			}
			opts, err := generateOptions(c)
			if err != nil {
				return err
			}
			if globalString(c, "now") != "" {
				opts.Now = g.Now
			}
			opts.Progress = newCounter(c, "generate")
			m, err := fixtures.Generate(c.Context, c.String("out"), opts)
			if errors.Is(err, fixtures.ErrNotEmpty) {
				return &usageError{msg: err.Error(), hint: "give a new or empty --out dir: clawdoctor fixtures generate --out /tmp/state2"}
			}
			if err != nil {
				return err
			}
			format := report.Text
			if g.JSON {
				format = report.JSON
			}
			return report.Fixtures(c.App.Writer, c.String("out"), m, format)
		},
	}
}

func faultHelp() string {
	var b strings.Builder
	for i, k := range fixtures.Kinds {
		if i > 0 {
			b.WriteString("\n  ")
		}
		fmt.Fprintf(&b, "%-19s %s", k.Name, k.Rule)
	}
	return b.String()
}

func generateOptions(c *cli.Context) (fixtures.Options, error) {
	faults, err := fixtures.ParseFaults(c.String("faults"))
	if err != nil {
		return fixtures.Options{}, &usageError{msg: "--faults: " + err.Error(), hint: "--faults torn,bom,unpaired (or all, none)"}
	}
	o := fixtures.Options{
		Agents: c.Int("agents"), Sessions: c.Int("sessions"), Seed: c.Uint64("seed"), Faults: faults,
		FaultCount: c.Int("fault-count"), Entries: c.Int("entries"), BadLines: c.Float64("bad-lines"),
		Single: c.Bool("single-transcript"), Files: c.Int("files"), GatewayLog: c.Bool("gateway-log"),
		ShortTexts:    c.Bool("short-texts"),
		RelativePaths: c.Bool("relative-paths"),
		SQLiteOut:     c.String("sqlite-out"),
	}
	if s := c.String("size"); s != "" {
		n, err := fixtures.ParseSize(s)
		if err != nil {
			return o, &usageError{msg: "--size " + err.Error(), hint: "--size 1GiB (units B, KB, MB, GB, KiB, MiB, GiB)"}
		}
		o.Size = n
	}
	if s := c.String("long-line"); s != "" {
		n, err := fixtures.ParseSize(s)
		if err != nil || n < 1024 || n > 1<<31 {
			return o, &usageError{msg: "--long-line " + s + ": want a size between 1KiB and 2GiB", hint: "--long-line 2MiB"}
		}
		o.LongLine = int(n)
	}
	if o.BadLines < 0 || o.BadLines > 0.5 {
		return o, &usageError{msg: fmt.Sprintf("--bad-lines %g: want a fraction between 0 and 0.5", o.BadLines), hint: "--bad-lines 0.001"}
	}
	if o.Agents < 0 || o.Sessions < 0 || o.Entries < 0 || o.Files < 0 || o.FaultCount < 0 {
		return o, &usageError{msg: "--agents, --sessions, --entries, --files and --fault-count must not be negative", hint: "--agents 2 --sessions 50"}
	}
	return o, nil
}

func fixturesListCommand() *cli.Command {
	return &cli.Command{
		Name:        "list",
		Usage:       "list the small named fixtures shipped in the fixtures package",
		Description: "EXAMPLE\n  clawdoctor fixtures list --json" + exitStatusHelp,
		Action: func(c *cli.Context) error {
			g, err := globals(c)
			if err != nil {
				return err
			}
			format := report.Text
			if g.JSON {
				format = report.JSON
			}
			return report.FixtureList(c.App.Writer, fixtures.List, format)
		},
	}
}

func fixturesDemoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "write the shipped sample state dir (fixtures/demo) into a new dir, to try commands on",
		Description: `EXAMPLE
  clawdoctor fixtures demo --out /tmp/demo && clawdoctor --state-dir /tmp/demo doctor` + exitStatusHelp,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "output `DIR` (created; must be empty or absent)", Required: true, TakesFile: true},
		},
		Action: func(c *cli.Context) error {
			if _, err := globals(c); err != nil {
				return err
			}
			err := fixtures.WriteDemo(c.String("out"))
			if errors.Is(err, fixtures.ErrNotEmpty) {
				return &usageError{msg: err.Error(), hint: "give a new or empty --out dir: clawdoctor fixtures demo --out /tmp/demo2"}
			}
			if err != nil {
				return err
			}
			return report.FixturesDemo(c.App.Writer, c.String("out"))
		},
	}
}

// Package commands wires the clawdoctor command line (urfave/cli/v2) to the library packages.
// It parses flags into Options values, guards the "flag after argument" trap, shows progress
// on a TTY and maps errors to exit codes. It holds no JSONL knowledge and mutates no file.
package commands

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/clawdoctor/clawdoctor/internal/memguard"
)

// now is the clock; tests and --now replace it so runs are reproducible.
var now = time.Now

// Run runs clawdoctor with args (args[0] is the program name) and returns the exit status.
// Only main calls os.Exit.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := newApp(stdin, stdout, stderr)
	err := app.RunContext(ctx, args)
	if cause := context.Cause(ctx); err != nil && errors.Is(cause, memguard.ErrOverMemory) {
		err = cause // not an interrupt: the memory guard stopped the run
	}
	return exitStatus(stderr, err)
}

// newApp builds a fresh App for every run: Destination variables captured by command
// constructors must not be shared between runs (see STYLE.md, Part B).
func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:                 "clawdoctor",
		Usage:                "offline maintenance and forensics for OpenClaw session data",
		Version:              version(),
		Reader:               stdin,
		Writer:               stdout,
		ErrWriter:            stderr,
		EnableBashCompletion: true,
		Suggest:              true,
		HideHelpCommand:      false,
		Flags:                globalFlags(),
		Description: `clawdoctor reads the session data of an OpenClaw gateway
(~/.openclaw/agents/<id>/sessions: sessions.json and one JSONL transcript per session)
and repairs, audits, cleans and replays it without the gateway running.

Common flags (--state-dir, --agent, --all-agents, --json, --now, --no-progress) may be given
before or after the command name, but always before file arguments.` + exitStatusHelp,
		Commands: []*cli.Command{
			statsCommand(),
			repairCommand(),
			auditCommand(),
			cleanupCommand(),
			replayCommand(),
			viewCommand(),
			doctorCommand(),
			validateCommand(),
			exportCommand(),
			recoverCommand(),
			fixturesCommand(),
			completionCommand(),
			versionCommand(),
		},
		// App.Run must never call os.Exit: we map errors to codes in exitStatus.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return &usageError{msg: err.Error(), hint: "run 'clawdoctor --help' for the flags"}
		},
	}
	for _, cmd := range app.Commands {
		prepareCommand(cmd)
	}
	// --version prints what `clawdoctor version` prints (commit and date included), not
	// urfave's one line.
	cli.VersionPrinter = func(c *cli.Context) { _ = printVersion(c) }
	return app
}

// prepareCommand adds the common flags and the late-flag guard to cmd and its subcommands.
func prepareCommand(cmd *cli.Command) {
	cmd.Flags = append(cmd.Flags, globalFlags()...)
	before := cmd.Before
	cmd.Before = func(c *cli.Context) error {
		if err := rejectLateFlags(c); err != nil {
			return err
		}
		if _, err := globals(c); err != nil {
			return err
		}
		if before != nil {
			return before(c)
		}
		return nil
	}
	if cmd.OnUsageError == nil {
		name := cmd.Name
		cmd.OnUsageError = func(c *cli.Context, err error, _ bool) error {
			return &usageError{msg: err.Error(), hint: "run 'clawdoctor " + name + " --help' for its flags"}
		}
	}
	for _, sub := range cmd.Subcommands {
		prepareCommand(sub)
	}
}

const exitStatusHelp = `

EXIT STATUS
  0  clean: nothing found, nothing to do
  1  findings, or changes made / needed (dry run)
  2  usage error
  3  partial: some files were skipped (locked, refused) or unreadable, the rest was done
  4  I/O or internal error
  130 interrupted`

package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/config"
	"github.com/clawdoctor/clawdoctor/internal/export"
	"github.com/clawdoctor/clawdoctor/internal/memguard"
	"github.com/clawdoctor/clawdoctor/internal/safefile"
	"github.com/clawdoctor/clawdoctor/internal/store"
	"github.com/clawdoctor/clawdoctor/jsonl"
	"github.com/clawdoctor/clawdoctor/report"
)

// Exit codes shared by every command (README "Exit codes").
const (
	exitClean    = 0   // nothing found, nothing to do
	exitFindings = 1   // findings, or changes made / needed
	exitUsage    = 2   // bad flags or arguments
	exitPartial  = 3   // done, but some inputs were skipped or refused
	exitIO       = 4   // I/O or internal error
	exitSignal   = 130 // interrupted
)

// usageError is a mistake on the command line; it is printed with a hint showing the fix.
type usageError struct {
	msg, hint string
}

func (e *usageError) Error() string { return e.msg }

// statusError ends a run that already printed its report with a non-zero status.
type statusError struct{ code int }

func (e *statusError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// status returns nil for 0 and a statusError otherwise, for Actions that finished their output.
func status(code int) error {
	if code == exitClean {
		return nil
	}
	return &statusError{code: code}
}

// exitStatus prints err once, with the program prefix, and maps it to an exit code.
func exitStatus(stderr io.Writer, err error) int {
	var (
		usage *usageError
		st    *statusError
		coder cli.ExitCoder
	)
	switch {
	case err == nil:
		return exitClean
	case errors.As(err, &st):
		return st.code
	case errors.Is(err, memguard.ErrOverMemory):
		fmt.Fprintf(stderr, "clawdoctor: error: %s\n", report.Escape(err.Error()))
		return exitIO
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "clawdoctor: interrupted")
		return exitSignal
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "clawdoctor: error: %s\n", report.Escape(usage.msg))
		if usage.hint != "" {
			fmt.Fprintf(stderr, "clawdoctor: hint: %s\n", report.Escape(usage.hint))
		}
		return exitUsage
	case isFlagError(err): // before ExitCoder: urfave/cli reports an unknown command as exit 3
		fmt.Fprintf(stderr, "clawdoctor: error: %s\nclawdoctor: hint: run 'clawdoctor --help' for the commands and flags\n", report.Escape(err.Error()))
		return exitUsage
	case errors.As(err, &coder):
		if msg := strings.TrimSpace(err.Error()); msg != "" {
			fmt.Fprintf(stderr, "clawdoctor: error: %s\n", report.Escape(msg))
		}
		return coder.ExitCode()
	case refused(err), safefile.Unreadable(err), errors.Is(err, jsonl.ErrTooDeep):
		// stopped on purpose before writing, or an input that cannot be read: skipped, not
		// an I/O failure (README "Exit codes")
		fmt.Fprintf(stderr, "clawdoctor: error: %s\n", report.Escape(err.Error()))
		return exitPartial
	}
	fmt.Fprintf(stderr, "clawdoctor: error: %s\n", report.Escape(err.Error()))
	return exitIO
}

// refused reports errors that stop a run before it wrote anything, on purpose: a SQLite-era
// or unknown-era agent, an agent database that cannot be read consistently (damaged, unknown
// schema, busy, missing WAL, an undecodable event), an export that would overwrite.
func refused(err error) bool {
	var dbe *agentdb.Error
	return errors.As(err, &dbe) || errors.Is(err, store.ErrSQLiteEra) || errors.Is(err, store.ErrEraUnknown) ||
		errors.Is(err, export.ErrExists) || errors.Is(err, export.ErrInsideState)
}

// isFlagError recognises the flag package's parse errors, which urfave/cli returns unwrapped
// when a command has no OnUsageError.
func isFlagError(err error) bool {
	msg := err.Error()
	return strings.HasPrefix(msg, "flag provided but not defined") ||
		strings.HasPrefix(msg, "flag needs an argument") ||
		strings.HasPrefix(msg, "invalid value") ||
		strings.HasPrefix(msg, "Required flag") ||
		strings.HasPrefix(msg, "No help topic")
}

// configError turns a config that cannot be used into a usage error (exit 2): a command must
// not run on defaults when the config the user has, or named, cannot be read.
func configError(err error, command string) error {
	var le *config.LoadError
	if !errors.As(err, &le) {
		return err
	}
	return &usageError{msg: le.Error(),
		hint: "fix the file, or name the right one: clawdoctor " + command + " --config ~/.openclaw/openclaw.json (or $OPENCLAW_CONFIG_PATH)"}
}

// rejectLateFlags is every command's Before hook. urfave/cli v2 stops parsing flags at the
// first argument, so "clawdoctor repair f.jsonl --dry-run" would really repair. A file whose
// name starts with "-" must be written "./-name".
func rejectLateFlags(c *cli.Context) error {
	if c.Command != nil && len(c.Command.Subcommands) > 0 && c.Args().Present() && c.Command.Command(c.Args().First()) != nil {
		return nil // "fixtures generate --out D": the subcommand's own guard checks its arguments
	}
	for _, a := range c.Args().Slice() {
		if strings.HasPrefix(a, "-") && a != "-" {
			return &usageError{
				msg:  fmt.Sprintf("flag %s given after the file arguments", a),
				hint: "put flags first: clawdoctor " + c.Command.Name + " [flags] " + argsWord(c) + " (a file named like a flag: ./" + a + ")",
			}
		}
	}
	return nil
}

func argsWord(c *cli.Context) string {
	if c.Command.ArgsUsage != "" {
		return c.Command.ArgsUsage
	}
	return "ARG..."
}

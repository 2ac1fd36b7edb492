package commands

import (
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/clawdoctor/clawdoctor/internal/progress"
	"github.com/clawdoctor/clawdoctor/report"
)

// newCounter returns a progress bar on stderr when it is a terminal and neither --json nor
// --no-progress was given; otherwise a no-op counter. Progress never goes to stdout.
func newCounter(c *cli.Context, what string) progress.Counter {
	f, ok := c.App.ErrWriter.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) || globalBool(c, "no-progress") || globalBool(c, "json") {
		return progress.Noop
	}
	return &barCounter{bar: progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(f),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowBytes(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionEnableColorCodes(report.Color(f)),
	)}
}

type barCounter struct{ bar *progressbar.ProgressBar }

func (b *barCounter) SetTotal(n int64) { b.bar.ChangeMax64(n) }
func (b *barCounter) Add(n int64)      { _ = b.bar.Add64(n) }
func (b *barCounter) Done()            { _ = b.bar.Finish() }

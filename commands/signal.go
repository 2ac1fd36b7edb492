package commands

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/memguard"
	"github.com/clawdoctor/clawdoctor/internal/safefile"
	"github.com/clawdoctor/clawdoctor/report"
)

// interruptGrace is how long a run may take to stop cleanly after the first SIGINT or
// SIGTERM (every reader checks its context at each buffer); after it, or at a second signal,
// the run is abandoned at once: temp files are removed, locks released, and what was already
// changed is named on stderr. The total stays under the promised second.
var interruptGrace = 500 * time.Millisecond

// Main runs clawdoctor like Run and handles interrupts arriving on sigs: the first cancels
// the run's context; a second one, or the run not finishing within interruptGrace, ends it at
// once with status 130. A blocked read (stdin, a slow disk) can therefore never make an
// interrupt wait.
//
// The memory guard (internal/memguard) stops the run the same way when its heap passes the
// cap: out of memory is never how a command ends; it says so and exits 4.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, sigs <-chan os.Signal) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	over := make(chan error, 1)
	go memguard.Watch(ctx, 50*time.Millisecond, func(err error) { over <- err })
	done := make(chan int, 1)
	go func() { done <- Run(ctx, args, stdin, stdout, stderr) }()
	var overErr error
	select {
	case code := <-done:
		return code
	case <-sigs:
		cancel(nil)
	case overErr = <-over:
		cancel(overErr) // the readers stop at their next buffer; Run maps the cause to exit 4
	}
	timer := time.NewTimer(interruptGrace)
	defer timer.Stop()
	select {
	case code := <-done:
		return code
	case <-sigs:
	case <-timer.C:
	}
	if overErr != nil {
		safefile.Abort()
		fmt.Fprintf(stderr, "clawdoctor: error: %s\n", report.Escape(overErr.Error()))
		return exitIO
	}
	return abandon(stderr)
}

// abandon undoes what is in flight and says what had already been changed.
func abandon(stderr io.Writer) int {
	changed := safefile.Abort()
	fmt.Fprintln(stderr, "clawdoctor: interrupted")
	for _, c := range changed {
		fmt.Fprintf(stderr, "clawdoctor: already done before the interrupt: %s\n", report.Escape(c))
	}
	return exitSignal
}

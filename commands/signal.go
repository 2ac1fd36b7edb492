package commands

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/safefile"
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
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, sigs <-chan os.Signal) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- Run(ctx, args, stdin, stdout, stderr) }()
	select {
	case code := <-done:
		return code
	case <-sigs:
	}
	cancel()
	timer := time.NewTimer(interruptGrace)
	defer timer.Stop()
	select {
	case code := <-done:
		return code
	case <-sigs:
	case <-timer.C:
	}
	return abandon(stderr)
}

// abandon undoes what is in flight and says what had already been changed.
func abandon(stderr io.Writer) int {
	changed := safefile.Abort()
	fmt.Fprintln(stderr, "clawdoctor: interrupted")
	for _, c := range changed {
		fmt.Fprintf(stderr, "clawdoctor: already done before the interrupt: %s\n", c)
	}
	return exitSignal
}

package harness

import (
	"context"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// Command is exec.CommandContext for a reference driver. The reference tool is a shell wrapper
// whose node child outlived a killed harness (the wrapper died, node kept a core busy for the
// rest of the run), so each driver gets its own process group and cancelling ctx kills the whole
// group, not only the wrapper.
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	setGroup(cmd)
	cmd.Cancel = func() error { return KillGroup(cmd) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// SignalContext is cancelled on SIGINT or SIGTERM: with the drivers in their own process groups
// a Ctrl-C no longer reaches them, so the harness must cancel (and so kill) them itself.
func SignalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

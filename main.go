// Command clawdoctor repairs, audits, cleans and replays OpenClaw session data offline.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/clawdoctor/clawdoctor/commands"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := commands.Run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

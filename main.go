// Command clawdoctor repairs, audits, cleans and replays OpenClaw session data offline.
package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/clawdoctor/clawdoctor/commands"
)

func main() {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	os.Exit(commands.Main(os.Args, os.Stdin, os.Stdout, os.Stderr, sigs))
}

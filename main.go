// Command clawdoctor repairs, audits, cleans and replays OpenClaw session data offline.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/clawdoctor/clawdoctor/commands"
)

func main() {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	// CLAWDOCTOR_CPUPROFILE=FILE writes a CPU profile of the run (for the speed work of the
	// bench script: the binary as shipped, with its own GC settings, not a test harness).
	if p := os.Getenv("CLAWDOCTOR_CPUPROFILE"); p != "" {
		f, err := os.Create(p)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "clawdoctor: CLAWDOCTOR_CPUPROFILE: %v\n", err)
			os.Exit(4)
		}
		code := commands.Main(os.Args, os.Stdin, os.Stdout, os.Stderr, sigs)
		pprof.StopCPUProfile()
		f.Close()
		os.Exit(code)
	}
	os.Exit(commands.Main(os.Args, os.Stdin, os.Stdout, os.Stderr, sigs))
}

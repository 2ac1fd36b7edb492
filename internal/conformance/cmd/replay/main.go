// Command replay compares clawdoctor's replay with the real OpenClaw's (see internal/conformance/replaycheck);
// scripts/conformance.sh replay runs it.
package main

import (
	"os"

	"github.com/clawdoctor/clawdoctor/internal/conformance/replaycheck"
)

func main() {
	os.Exit(replaycheck.Main("replay", os.Args[1:], os.Stdout, os.Stderr))
}

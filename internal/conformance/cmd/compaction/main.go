// Command compaction compares clawdoctor's compaction with the real OpenClaw's (see internal/conformance/replaycheck);
// scripts/conformance.sh compaction runs it.
package main

import (
	"os"

	"github.com/clawdoctor/clawdoctor/internal/conformance/replaycheck"
)

func main() {
	os.Exit(replaycheck.Main("compaction", os.Args[1:], os.Stdout, os.Stderr))
}

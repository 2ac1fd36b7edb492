// Command repair compares clawdoctor's repair with the real OpenClaw's (see
// conformance/repaircheck); scripts/conformance.sh repair runs it.
package main

import (
	"os"

	"github.com/clawdoctor/clawdoctor/conformance/harness"
	"github.com/clawdoctor/clawdoctor/conformance/repaircheck"
)

func main() {
	os.Exit(harness.Main(repaircheck.Engine{}, os.Args[1:], os.Stdout, os.Stderr))
}

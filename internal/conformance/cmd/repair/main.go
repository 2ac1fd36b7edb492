// Command repair compares clawdoctor's repair with the real OpenClaw's (see
// internal/conformance/repaircheck); scripts/conformance.sh repair runs it.
package main

import (
	"os"

	"github.com/clawdoctor/clawdoctor/internal/conformance/harness"
	"github.com/clawdoctor/clawdoctor/internal/conformance/repaircheck"
)

func main() {
	os.Exit(harness.Main(repaircheck.Engine{}, os.Args[1:], os.Stdout, os.Stderr))
}

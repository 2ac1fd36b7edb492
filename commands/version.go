package commands

import (
	"github.com/urfave/cli/v2"

	"github.com/clawdoctor/clawdoctor/internal/buildinfo"
	"github.com/clawdoctor/clawdoctor/report"
)

// versionCommand prints what was built (buildinfo.Read); --version prints the same.
func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the version, commit, build date, Go version and the OpenClaw releases followed",
		Description: `Prints the version (stamped by scripts/release.sh, else the module version, else
"(devel)"), the git commit it was built from and that commit's date (a release build stamps no
clock of its own, so two builds of one commit are the same bytes), the Go toolchain and
platform, and the OpenClaw releases whose behaviour clawdoctor follows, per era. --version
prints the same. Put its output in a bug report.

EXIT STATUS
  0  printed
  2  usage error`,
		Action: func(c *cli.Context) error { return printVersion(c) },
	}
}

func printVersion(c *cli.Context) error {
	f := report.Text
	if globalBool(c, "json") {
		f = report.JSON
	}
	return report.Version(c.App.Writer, buildinfo.Read(), f)
}

func version() string { return buildinfo.Read().Version }

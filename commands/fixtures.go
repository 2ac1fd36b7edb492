package commands

import "github.com/urfave/cli/v2"

func fixturesCommand() *cli.Command {
	return &cli.Command{
		Name:      "fixtures",
		Usage:     "generate synthetic state dirs with known injected faults",
		ArgsUsage: "[PATH...]",
		Description: `EXAMPLE
  clawdoctor fixtures generate --out /tmp/state --sessions 100` + exitStatusHelp,
		Action: notYet("fixtures"),
	}
}

package commands

import "github.com/urfave/cli/v2"

func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:      "doctor",
		Usage:     "check everything and apply safe migrations with --fix",
		ArgsUsage: "[PATH...]",
		Description: `EXAMPLE
  clawdoctor doctor --state-dir fixtures/demo` + exitStatusHelp,
		Action: notYet("doctor"),
	}
}

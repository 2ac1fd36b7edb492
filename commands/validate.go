package commands

import "github.com/urfave/cli/v2"

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "check that files are well-formed JSONL, fast",
		ArgsUsage: "[PATH...]",
		Description: `EXAMPLE
  clawdoctor validate big.jsonl` + exitStatusHelp,
		Action: notYet("validate"),
	}
}

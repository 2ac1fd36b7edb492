package commands

import "github.com/urfave/cli/v2"

func auditCommand() *cli.Command {
	return &cli.Command{
		Name:      "audit",
		Usage:     "read-only forensic checks with stable rule ids",
		ArgsUsage: "[PATH...]",
		Description: `EXAMPLE
  clawdoctor audit --format sarif ~/.openclaw` + exitStatusHelp,
		Action: notYet("audit"),
	}
}

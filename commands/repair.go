package commands

import "github.com/urfave/cli/v2"

func repairCommand() *cli.Command {
	return &cli.Command{
		Name:      "repair",
		Usage:     "repair torn or malformed transcript lines and corrupt session stores, with backups",
		ArgsUsage: "[PATH...]",
		Description: `EXAMPLE
  clawdoctor repair --dry-run ~/.openclaw/agents/main/sessions` + exitStatusHelp,
		Action: notYet("repair"),
	}
}

package commands

import "github.com/urfave/cli/v2"

func cleanupCommand() *cli.Command {
	return &cli.Command{
		Name:      "cleanup",
		Usage:     "OpenClaw-exact retention and disk budgets, dry-run or enforce",
		ArgsUsage: "[PATH...]",
		Description: `EXAMPLE
  clawdoctor cleanup --dry-run --all-agents` + exitStatusHelp,
		Action: notYet("cleanup"),
	}
}

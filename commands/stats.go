package commands

import "github.com/urfave/cli/v2"

func statsCommand() *cli.Command {
	return &cli.Command{
		Name:      "stats",
		Usage:     "show what is in the state dir",
		ArgsUsage: "[PATH...]",
		Description: `EXAMPLE
   agents, sessions, transcripts, archives, orphans, locks:clawdoctor stats --all-agents` + exitStatusHelp,
		Action: notYet("stats"),
	}
}

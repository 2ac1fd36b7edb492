package commands

import "github.com/urfave/cli/v2"

func replayCommand() *cli.Command {
	return &cli.Command{
		Name:      "replay",
		Usage:     "show what OpenClaw would send to a model for a session, and what compaction would do",
		ArgsUsage: "[PATH...]",
		Description: `EXAMPLE
  clawdoctor replay --provider anthropic --model claude-sonnet-4-5 s.jsonl` + exitStatusHelp,
		Action: notYet("replay"),
	}
}

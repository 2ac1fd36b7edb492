package commands

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

// oneAgentOut resolves the one agent that export and recover (cmd) read: both write to --out DIR
// (out) and take no arguments. Every refusal is a usage error with a hint for cmd; example is
// the --out of the first hint.
func oneAgentOut(c *cli.Context, g Globals, cmd, out, example string) (store.Target, error) {
	if out == "" || c.NArg() > 0 {
		return store.Target{}, &usageError{msg: cmd + " needs --out DIR and no arguments", hint: fmt.Sprintf("clawdoctor %s --agent main --out %s", cmd, example)}
	}
	targets, err := store.Targets(g.StateDir, g.Agent, false, nil)
	if errors.Is(err, store.ErrUnknownAgent) || errors.Is(err, store.ErrNoAgents) {
		return store.Target{}, &usageError{msg: err.Error(), hint: "clawdoctor " + cmd + " --state-dir ~/.openclaw --agent main --out DIR"}
	}
	if err != nil {
		return store.Target{}, err
	}
	if len(targets) != 1 {
		return store.Target{}, &usageError{msg: cmd + " works on one agent", hint: "clawdoctor " + cmd + " --agent main --out DIR"}
	}
	return targets[0], nil
}

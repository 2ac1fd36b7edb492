package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Scope is what a command line asks to work on.
type Scope struct {
	StateDir string
	Agent    string   // --agent ("" for the default)
	All      bool     // --all-agents
	Paths    []string // PATH arguments: sessions dirs, sessions.json files or state dirs
	// Configured are the agents.list ids of the config (nil without a config); they are
	// listed first and may have no sessions dir yet.
	Configured []string
	// StoreTemplate is session.store of the config ("" for the default layout): a path that
	// may hold {agentId} and a leading ~ (expanded with Home). Without {agentId} every agent
	// shares one store, which is then visited once.
	StoreTemplate string
	Home          string
}

// Targets turns the scope into sessions dirs. With Paths, each is a sessions dir, a
// sessions.json file (its dir is used) or a state dir (its agents, narrowed by Agent/All).
// Without Paths the agents of StateDir are used: the one named by Agent, every one with All,
// else "main" when present, else every one.
func (s Scope) Targets() ([]Target, error) {
	if len(s.Paths) == 0 {
		return s.stateTargets(s.StateDir, s.Configured, s.StoreTemplate)
	}
	var out []Target
	for _, p := range s.Paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			if filepath.Base(p) != StoreFile {
				return nil, fmt.Errorf("%s: %w", p, ErrNotSessionsDir)
			}
			p = filepath.Dir(p)
		}
		if fi, err := os.Stat(filepath.Join(p, "agents")); err == nil && fi.IsDir() && filepath.Base(p) != "sessions" {
			ts, err := s.stateTargets(p, nil, "")
			if err != nil {
				return nil, err
			}
			out = append(out, ts...)
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		t := Target{SessionsDir: abs}
		if id, root, ok := agentOfSessionsDir(abs); ok {
			t.Agent, t.StateDir = id, root
		}
		out = append(out, t)
	}
	return out, nil
}

func (s Scope) stateTargets(stateDir string, configured []string, template string) ([]Target, error) {
	agents, err := Agents(stateDir, configured)
	if err != nil {
		return nil, err
	}
	if len(agents) == 0 {
		return nil, fmt.Errorf("%w under %s", ErrNoAgents, filepath.Join(stateDir, "agents"))
	}
	sel, err := Select(agents, s.Agent, s.All)
	if err != nil {
		return nil, err
	}
	var out []Target
	seen := map[string]bool{}
	for _, a := range sel {
		t := Target{Agent: a.ID, SessionsDir: a.SessionsDir, StateDir: stateDir}
		if template != "" {
			t.StorePath = StorePathFor(template, a.ID, s.Home)
			t.SessionsDir = filepath.Dir(t.StorePath)
		}
		if seen[t.Store()] {
			continue
		}
		seen[t.Store()] = true
		out = append(out, t)
	}
	return out, nil
}

// StorePathFor resolves a session.store template for an agent as OpenClaw's resolveStorePath
// does: {agentId} is replaced by the normalized id, a leading ~ is the home dir, and a
// relative result is taken from the current directory.
func StorePathFor(template, agentID, home string) string {
	p := strings.ReplaceAll(template, "{agentId}", NormalizeAgentID(agentID))
	if p == "~" {
		p = home
	} else if strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
		p = filepath.Join(home, p[2:])
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p
}

// errIsMissingDir reports a sessions dir that does not exist (a configured agent that never
// ran).
func errIsMissingDir(err error) bool { return errors.Is(err, os.ErrNotExist) }

package store

import (
	"errors"
	"fmt"
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// DefaultAgentID is the agent OpenClaw uses when none is configured.
const DefaultAgentID = "main"

// ErrUnknownAgent is returned by Select for an agent id the state dir does not have.
var ErrUnknownAgent = errors.New("unknown agent id")

var (
	reAgentID      = lazyre.New(`(?i)^[a-z0-9][a-z0-9_-]{0,63}$`)
	reAgentInvalid = lazyre.New(`[^a-z0-9_-]+`)
)

// NormalizeAgentID normalizes an agent id as OpenClaw does (store.md §1.2): trimmed; empty →
// "main"; a valid id is lower-cased; otherwise lower-cased, runs of invalid characters
// become "-", leading and trailing "-" are stripped, it is cut to 64 characters, and an empty
// result is "main". Example: "My Agent!" → "my-agent".
func NormalizeAgentID(id string) string {
	id = strings.TrimSpace(id)
	if id == "" {
		return DefaultAgentID
	}
	if reAgentID.MatchString(id) {
		return strings.ToLower(id)
	}
	s := reAgentInvalid.ReplaceAllString(strings.ToLower(id), "-")
	s = strings.Trim(s, "-")
	if len(s) > 64 {
		s = s[:64]
	}
	if s == "" {
		return DefaultAgentID
	}
	return s
}

// Agent is one agent of a state dir.
type Agent struct {
	ID          string `json:"id"`
	Dir         string `json:"dir"`          // <state>/agents/<id>
	SessionsDir string `json:"sessions_dir"` // <state>/agents/<id>/sessions
	OnDisk      bool   `json:"on_disk"`      // the sessions dir exists
	Configured  bool   `json:"configured"`   // listed by the caller (agents.list[] of the config)
}

// StorePath is the agent's sessions.json.
func (a Agent) StorePath() string { return filepath.Join(a.SessionsDir, StoreFile) }

// Agents lists the agents of stateDir: the configured ids first (normalized, de-duplicated,
// in the caller's order), then every other agents/<id>/sessions directory on disk, sorted.
// Symlinked agent dirs are skipped, as OpenClaw's discovery does. The config is not read
// here: pass its agents.list[] ids (nil when there is no config).
func Agents(stateDir string, configured []string) ([]Agent, error) {
	root := filepath.Join(stateDir, "agents")
	var out []Agent
	seen := map[string]bool{}
	for _, id := range configured {
		id = NormalizeAgentID(id)
		if seen[id] {
			continue
		}
		seen[id] = true
		a := agentAt(root, id)
		a.Configured = true
		out = append(out, a)
	}
	ents, err := os.ReadDir(root)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	var disk []Agent
	for _, e := range ents {
		if !e.IsDir() || seen[e.Name()] { // symlinks are not dirs here
			continue
		}
		a := agentAt(root, e.Name())
		if a.OnDisk {
			disk = append(disk, a)
		}
	}
	sort.Slice(disk, func(i, j int) bool { return disk[i].ID < disk[j].ID })
	return append(out, disk...), nil
}

func agentAt(root, id string) Agent {
	a := Agent{ID: id, Dir: filepath.Join(root, id), SessionsDir: filepath.Join(root, id, "sessions")}
	if st, err := os.Lstat(a.SessionsDir); err == nil && st.IsDir() {
		a.OnDisk = true
	}
	return a
}

// Select picks the agents a command works on: the one named by id (which must exist on disk
// or be configured), every agent when all is set, else "main" when the state dir has it, else
// every agent.
func Select(agents []Agent, id string, all bool) ([]Agent, error) {
	if id != "" {
		want := NormalizeAgentID(id)
		for _, a := range agents {
			if a.ID == want || a.ID == id {
				return []Agent{a}, nil
			}
		}
		ids := make([]string, len(agents))
		for i, a := range agents {
			ids[i] = a.ID
		}
		return nil, fmt.Errorf("%w %q (agents: %s)", ErrUnknownAgent, id, strings.Join(ids, ", "))
	}
	if !all {
		for _, a := range agents {
			if a.ID == DefaultAgentID && (a.OnDisk || a.Configured) {
				return []Agent{a}, nil
			}
		}
	}
	return agents, nil
}

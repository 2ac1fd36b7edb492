package retention

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/config"
)

// ErrUnknownAgent is returned by Targets for an --agent id that is neither configured nor on disk.
var ErrUnknownAgent = errors.New("unknown agent id")

// Target is one store a cleanup run works on.
type Target struct {
	Agent string // the agent the store is attributed to
	Store string // absolute path of its sessions.json
}

// Scope is how the user chose the stores (store.md §1.2).
type Scope struct {
	StateDir  string
	Home      string // for a session.store template starting with ~
	Store     string // --store: that file, attributed to the default agent
	Agent     string // --agent
	AllAgents bool   // --all-agents: configured agents plus agent dirs on disk
}

// Targets resolves --store, --agent, --all-agents and the default agent as OpenClaw's
// sessions cleanup does, de-duplicated by resolved store path.
func Targets(cfg *config.Config, s Scope) ([]Target, error) {
	if s.Store != "" {
		abs, err := filepath.Abs(s.Store)
		if err != nil {
			return nil, err
		}
		return []Target{{Agent: cfg.DefaultAgentID(), Store: abs}}, nil
	}
	ids := cfg.AgentIDs()
	known := map[string]bool{}
	for _, id := range ids {
		known[id] = true
	}
	onDisk := func(id string) bool {
		_, err := os.Stat(filepath.Join(s.StateDir, "agents", id, "sessions"))
		return err == nil
	}
	if s.Agent != "" {
		id := config.NormalizeAgentID(s.Agent)
		if !known[id] && !onDisk(id) {
			return nil, fmt.Errorf("%w %q", ErrUnknownAgent, s.Agent)
		}
		return []Target{{Agent: id, Store: cfg.StorePath(s.StateDir, s.Home, id)}}, nil
	}
	if !s.AllAgents {
		id := cfg.DefaultAgentID()
		return []Target{{Agent: id, Store: cfg.StorePath(s.StateDir, s.Home, id)}}, nil
	}
	dirs, _ := os.ReadDir(filepath.Join(s.StateDir, "agents"))
	for _, de := range dirs {
		id := config.NormalizeAgentID(de.Name())
		if de.IsDir() && !known[id] && id == de.Name() && onDisk(id) {
			known[id] = true
			ids = append(ids, id)
		}
	}
	var out []Target
	seen := map[string]bool{}
	for _, id := range ids {
		p := cfg.StorePath(s.StateDir, s.Home, id)
		if !seen[p] {
			seen[p] = true
			out = append(out, Target{Agent: id, Store: p})
		}
	}
	return out, nil
}

// RunOptions are Options plus what applying needs.
type RunOptions struct {
	Options
	StateDir string // for the running-gateway check
	DMScope  string // session.dmScope of the config
	Force    bool   // write even while a live lock or a gateway shows a writer
	// FollowSymlinks lets a sessions dir reached through a symlink out of the state dir be
	// written (--follow-symlinks).
	FollowSymlinks bool
	// Preview is set when the run is a dry run only because --enforce was not given; the plan
	// then says how to apply it.
	Preview bool
	// BackupDir, when set, receives a copy of every file the run deletes (and of the old
	// sessions.json), under the file's name, before it is removed.
	BackupDir string
	// SQLite are the settings for a SQLite-era store (ResolveSQLite of the same config);
	// zero means OpenClaw's defaults.
	SQLite SQLiteSettings
}

// Outcome is what a cleanup run did, or would do, to one store.
type Outcome struct {
	Plan    *Plan
	Applied *Applied // nil for a dry run
	Refused string   // why the store was not touched (SQLite era, live gateway, store changed)
	Now     time.Time
	// SQLite is the plan of a SQLite-era store (Plan is nil then), and Command the OpenClaw
	// command that applies it (set when a real run was refused).
	SQLite  *SQLitePlan
	Command string
}

// Changes reports whether the plan would change the store.
func (o *Outcome) Changes() bool {
	if o.SQLite != nil {
		return o.SQLite.Summary.WouldMutate
	}
	return o.Plan != nil && o.Plan.Changes()
}

// Partial reports whether some of the plan was not carried out.
func (o *Outcome) Partial() bool {
	return o.Refused != "" || (o.Applied != nil && len(o.Applied.Skipped) > 0)
}

// Run plans the cleanup of one store and, unless DryRun, applies it: the same planning code
// serves both, and nothing is written while Refusal finds a reason.
func Run(ctx context.Context, t Target, opt RunOptions) (Outcome, error) {
	if dir, ok := IsSQLiteStore(t); ok {
		return runSQLite(ctx, t, dir, opt)
	}
	out := Outcome{Now: opt.Now}
	l, err := GatherWith(ctx, t.Store, t.Agent, GatherOptions{FixMissing: opt.FixMissing})
	if err != nil {
		return out, err
	}
	l.Input.DMScope = opt.DMScope
	p := Make(&l.Input, opt.Options)
	out.Plan = p
	if len(l.Dropped) > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("%d rows a current gateway drops on load (not objects or unsafe sessionId) are left in place: %s", len(l.Dropped), strings.Join(l.Dropped, ", ")))
	}
	if opt.DryRun {
		if opt.Preview && p.Changes() {
			p.Notes = append(p.Notes, "dry run: cleanup writes nothing without --enforce; run it again with --enforce to apply this plan")
		}
		return out, nil
	}
	if !p.Changes() {
		out.Applied = &Applied{AppliedCount: len(l.Input.Entries)}
		return out, nil
	}
	if why := Refusal(l.SessionsDir, opt.StateDir, opt.Now, opt.Force, opt.FollowSymlinks); why != "" {
		out.Refused = why
		return out, nil
	}
	if l.Missing {
		// Without a store every transcript counts as unreferenced: applying would archive or
		// delete the whole history of a store that was only lost.
		out.Refused = fmt.Sprintf("%s does not exist, so every transcript in %s would count as unreferenced; rebuild the store first: clawdoctor repair --rebuild-store %s", l.Input.StorePath, l.SessionsDir, l.SessionsDir)
		return out, nil
	}
	applied, err := ApplyWith(ctx, l, p, ApplyOptions{Now: opt.Now, BackupDir: opt.BackupDir})
	out.Applied = &applied
	if errors.Is(err, ErrStoreChanged) {
		out.Refused = err.Error()
		return out, nil
	}
	return out, err
}

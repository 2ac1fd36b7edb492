package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/clawdoctor/clawdoctor/config"
	"github.com/clawdoctor/clawdoctor/store"
)

// fileInfo is one file of a sessions dir.
type fileInfo struct {
	name    string
	path    string
	kind    store.Name
	size    int64
	mtime   time.Time
	symlink bool
}

// agentState is what doctor read about one agent before deciding anything.
type agentState struct {
	id        string
	dir       string // sessions dir
	storePath string
	resolver  store.Resolver
	store     *store.Store // nil when missing or corrupt
	storeErr  error
	era       store.Era
	// dbSessions and dbEvents count the database of a SQLite-era agent (set by checkSQLite).
	dbSessions int
	dbEvents   int64
	sqlite     string // path of agent/openclaw-agent.sqlite when it holds sessions (SQLite era)
	files      []fileInfo
	// liveLocks lists lock files held by a live process: a gateway is writing here.
	liveLocks []string

	entries, transcripts int
	// repairCandidates are the transcripts the audit found damage in that repair changes;
	// checkRepairPlan plans only these.
	repairCandidates map[string]bool
	entriesCache     []store.Entry
	dirty            bool // store edited in memory by fixes; written once at the end
	dirtyProblems    []*Problem
}

// storeEntries is a.store.Entries(), parsed once for every check of the run (the checks run
// before any fix edits the store; a fix reads its entry again with Get).
func (a *agentState) storeEntries() []store.Entry {
	if a.entriesCache == nil {
		a.entriesCache = a.store.Entries()
	}
	return a.entriesCache
}

// readOnly says why this agent's files must not be written, or "".
func (a *agentState) readOnly(force bool) string {
	if a.sqlite != "" {
		return "SQLite-era agent (" + a.sqlite + "): JSONL and sessions.json are legacy input and are never written"
	}
	if a.era.Unknown != "" {
		return "era unknown, nothing is written: " + a.era.Unknown
	}
	if len(a.liveLocks) > 0 && !force {
		return fmt.Sprintf("a live process holds %s: stop the gateway or pass --force", filepath.Base(a.liveLocks[0]))
	}
	return ""
}

// state is everything one run read.
type state struct {
	opts                   Options
	configPath             string
	staleMs                int64  // session.writeLock.staleMs from the config, 0 when unset
	configText, configOrig []byte // the config as edited by fixes, and as read
	agents                 []*agentState
}

func inspect(ctx context.Context, opts Options) (*state, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	st := &state{opts: opts}
	if p := config.Find(opts.ConfigPath, opts.StateDir, getenv); p != "" {
		if _, err := os.Stat(p); err == nil {
			st.configPath = p
			// A config that does not parse is reported by checkConfig; here it only costs
			// the configured lock threshold.
			if cfg, err := config.Load(p); err == nil {
				if f, ok := cfg.Session.WriteLock.StaleMs.(float64); ok && f > 0 {
					st.staleMs = int64(f)
				}
			}
		} else if opts.ConfigPath != "" {
			return nil, fmt.Errorf("config %s: %w", p, err)
		}
	}
	if _, err := os.Stat(opts.StateDir); err != nil {
		return nil, fmt.Errorf("state dir: %w", err)
	}
	ids, err := agentIDs(opts)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		a, err := readAgent(opts, id)
		if err != nil {
			return nil, err
		}
		st.agents = append(st.agents, a)
	}
	return st, nil
}

// agentIDs lists the agents with a sessions dir on disk, or the requested ones.
func agentIDs(opts Options) ([]string, error) {
	if len(opts.Agents) > 0 {
		for _, id := range opts.Agents {
			if _, err := os.Stat(filepath.Join(opts.StateDir, "agents", id)); err != nil {
				return nil, fmt.Errorf("agent %q: %w", id, err)
			}
		}
		return opts.Agents, nil
	}
	des, err := os.ReadDir(filepath.Join(opts.StateDir, "agents"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, de := range des {
		if de.IsDir() { // symlinked agent dirs are skipped, as OpenClaw's discovery does
			ids = append(ids, de.Name())
		}
	}
	sort.Strings(ids)
	return ids, nil
}

func readAgent(opts Options, id string) (*agentState, error) {
	a := &agentState{id: id, dir: filepath.Join(opts.StateDir, "agents", id, "sessions")}
	a.storePath = filepath.Join(a.dir, store.StoreFile)
	a.resolver = store.NewResolver(a.dir, id, opts.StateDir)
	a.era = store.DetectEra(a.dir)
	if a.era.SQLite {
		a.sqlite = a.era.DB
	}
	des, err := os.ReadDir(a.dir)
	if errors.Is(err, os.ErrNotExist) {
		return a, nil
	}
	if err != nil {
		return nil, err
	}
	for _, de := range des {
		if de.IsDir() {
			continue
		}
		info, err := de.Info()
		if err != nil {
			continue // vanished while listing
		}
		f := fileInfo{name: de.Name(), path: filepath.Join(a.dir, de.Name()), kind: store.Classify(de.Name()),
			size: info.Size(), mtime: info.ModTime(), symlink: info.Mode()&os.ModeSymlink != 0}
		a.files = append(a.files, f)
		if f.kind.Kind.IsPrimary() {
			a.transcripts++
		}
	}
	if exists(a.storePath) {
		s, err := store.Load(a.storePath)
		if err != nil {
			a.storeErr = err
		} else {
			a.store = s
			a.entries = s.Len()
		}
	}
	return a, nil
}

// fileEra returns the agents whose sessions.json and JSONL files are the live store (not
// SQLite-era ones, which checkSQLite covers), and with withStore only those whose store parsed.
func (st *state) fileEra(withStore bool) []*agentState {
	var out []*agentState
	for _, a := range st.agents {
		if a.sqlite == "" && (!withStore || a.store != nil) {
			out = append(out, a)
		}
	}
	return out
}

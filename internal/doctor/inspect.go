package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/config"
	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/internal/retention"
	"github.com/clawdoctor/clawdoctor/internal/store"
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
	// foldCase is set when the sessions dir is on a case-insensitive file system (macOS,
	// Windows): a row naming "ABC.jsonl" references the listed "abc.jsonl".
	foldCase  bool
	id        string
	dir       string // sessions dir
	storePath string
	resolver  store.Resolver
	store     *store.Store // nil when missing or corrupt
	storeErr  error
	readErr   error     // the sessions dir could not be listed
	tempNotes []string  // temps of killed runs removed before the store was written
	era       store.Era // store.DetectEra: whether the agent is in the SQLite era, and why
	// dbSessions and dbEvents count the database of a SQLite-era agent (set by checkSQLite).
	dbSessions int
	dbEvents   int64
	sqlite     string // path of agent/openclaw-agent.sqlite when it holds sessions (SQLite era)
	refuse     string // why nothing of this agent may be written (store.CheckWrite), or ""
	files      []fileInfo
	// listing is every name of the sessions dir as listed once (sorted by name), for the
	// cleanup plan and has
	listing []retention.DirEntry
	// liveLocks lists lock files held by a live process: a gateway is writing here.
	liveLocks []string

	entries, transcripts int
	// repairCandidates are the transcripts the audit found damage in that repair changes;
	// checkRepairPlan plans only these.
	repairCandidates map[string]bool
	// importCandidates are the live transcripts with audit findings of importRules, which
	// checkImport reads as OpenClaw's SQLite import would.
	importCandidates map[string]bool
	entriesCache     []rowView
	dirty            bool // store edited in memory by fixes; written once at the end
	dirtyProblems    []*Problem
}

// rowView is what the checks read of one store entry: the entry with only rowFieldNames in Obj
// (Raw still aliases the store's bytes), and the sizes of its blob fields. A full entry of a
// generated 20,000-session store is ~2.6 KB of parsed members; the view is a few hundred bytes.
type rowView struct {
	store.Entry
	blobSizes [2]int // FieldSize of each of blobFields
	// the agent resolver's Transcript and Candidates of the entry, resolved once for the
	// checks that read them (three resolved every row again, a fifth of their time)
	transcript store.Transcript
	candidates []string
}

// rowFieldNames are the members the checks read through store.Entry's accessors and the
// resolver (sessionId, sessionFile, checkpoints, CLI bindings, clocks).
var rowFieldNames = [...]string{"sessionId", "sessionFile", "sessionStartedAt", "updatedAt",
	"cliSessionBindings", "cliSessionIds", "claudeCliSessionId", "compactionCheckpoints"}

// blobSize is FieldSize(blobFields[i]) of the full entry.
func (v rowView) blobSize(i int) int { return v.blobSizes[i] }

// storeEntries is the store's entries, in file order, read once for every check of the run
// (the checks run before any fix edits the store; a fix reads its entry again with Get).
func (a *agentState) storeEntries() []rowView {
	if a.entriesCache == nil {
		es := a.store.RawEntries()
		a.entriesCache = make([]rowView, len(es))
		// one part per core: the views are independent, and doctor waits for them after the
		// audit (a quarter of a second for 20,000 rows on one core)
		parts := 1
		if len(es) >= 4096 {
			parts = runtime.GOMAXPROCS(0)
		}
		var wg sync.WaitGroup
		for p := range parts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var buf []byte
				for i := p * len(es) / parts; i < (p+1)*len(es)/parts; i++ {
					v := &a.entriesCache[i]
					*v, buf = view(es[i].Key, es[i].Raw, buf)
					v.transcript = a.resolver.Transcript(v.Entry)
					v.candidates = a.resolver.CandidatesOf(v.Entry, v.transcript)
				}
			}()
		}
		wg.Wait()
	}
	return a.entriesCache
}

// view reads the rowFieldNames and blob sizes of one entry from its text, which is valid JSON (its
// store parsed), without parsing the whole entry: its members are split (store.Members), the
// rowFieldNames among them are copied into a small object and parsed. As in a full parse, a
// repeated field's last value counts, and a value that is not an object has no Obj.
func view(key string, raw json.RawMessage, scratch []byte) (rowView, []byte) {
	v := rowView{Entry: store.Entry{Key: key, Raw: raw}}
	ms, ok := store.Members(raw)
	if !ok {
		return v, scratch
	}
	var picked [len(rowFieldNames)]json.RawMessage
	for _, m := range ms {
		name := m.Key
		if name == "" && json.Unmarshal(m.KeyTok, &name) != nil {
			continue
		}
		if i := slices.Index(rowFieldNames[:], name); i >= 0 {
			picked[i] = m.Value
		}
		if i := slices.Index(blobFields, name); i >= 0 {
			v.blobSizes[i] = len(m.Value)
		}
	}
	b := append(scratch[:0], '{')
	for i, val := range picked {
		if val == nil {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, jsonobj.Quote(rowFieldNames[i])...)
		b = append(b, ':')
		b = append(b, val...)
	}
	b = append(b, '}')
	obj, err := jsonobj.Parse(bytes.Clone(b))
	if err != nil {
		obj, _ = jsonobj.Parse(raw) // cannot happen for members of a parsed object
	}
	v.Obj = obj
	return v, b
}

// entries returns the views' entries (for the resolver's References).
func entries(vs []rowView) []store.Entry {
	out := make([]store.Entry, len(vs))
	for i, v := range vs {
		out[i] = v.Entry
	}
	return out
}

// readOnly says why this agent's files must not be written, or "": the one write rule of
// every writer (store.CheckWrite: SQLite era, a sessions dir reached through a symlink out of
// the state dir, a live or unusable lock, a running gateway), decided once per run.
func (a *agentState) readOnly() string { return a.refuse }

// sqliteEra reports whether the agent's sessions live in SQLite (store.DetectEra).
func (a *agentState) sqliteEra() bool { return a.era.SQLite }

// state is everything one run read.
type state struct {
	opts                   Options
	configPath             string
	staleMs                int64  // session.writeLock.staleMs from the config, 0 when unset
	configText, configOrig []byte // the config as edited by fixes, and as read
	agents                 []*agentState
	temps                  *store.Temps // the temps killed runs left, each directory listed once for the run's repairs
}

func inspect(ctx context.Context, opts Options) (*state, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	st := &state{opts: opts, temps: store.NewTemps()}
	// A config named by --config or $OPENCLAW_CONFIG_PATH must load; the default one is
	// reported by checkConfig when it does not parse, and here only costs the lock threshold.
	cfg, err := config.Open(opts.ConfigPath, opts.StateDir, getenv)
	var le *config.LoadError
	switch {
	case errors.As(err, &le) && le.Explicit:
		return nil, err
	case err == nil && cfg.Path != "":
		st.configPath = cfg.Path
		if f, ok := cfg.Session.WriteLock.StaleMs.(float64); ok && f > 0 {
			st.staleMs = int64(f)
		}
	case le != nil:
		st.configPath = le.Path
	case err != nil:
		return nil, err
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
		a, err := readAgent(ctx, opts, id, st.staleMs)
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

func readAgent(ctx context.Context, opts Options, id string, staleMs int64) (*agentState, error) {
	a := &agentState{id: id, dir: filepath.Join(opts.StateDir, "agents", id, "sessions")}
	a.storePath = filepath.Join(a.dir, store.StoreFile)
	a.resolver = store.NewResolver(a.dir, id, opts.StateDir)
	a.era = store.DetectEra(a.dir)
	if a.era.SQLite {
		a.sqlite = a.era.DB
	}
	// sessions.json is parsed while the dir is listed (a 25 MB store and a 33,000-name
	// listing each took about as long); its result is dropped when the dir cannot be listed.
	type loaded struct {
		s     *store.Store
		err   error
		found bool
	}
	storeDone := make(chan loaded, 1)
	go func() {
		if _, err := os.Lstat(a.storePath); err != nil {
			storeDone <- loaded{}
			return
		}
		s, err := store.Load(a.storePath)
		storeDone <- loaded{s, err, true}
	}()
	var err error
	// a live lock held briefly (a gateway appending a turn) is waited for before the agent is
	// made read-only for the run (issue 31)
	store.WaitLock(ctx, opts.LockWait, func() bool {
		err = store.CheckWrite(store.WriteScope{SessionsDir: a.dir, StateDir: opts.StateDir, Now: opts.Now,
			LockStale: store.LockStaleAfter(opts.Getenv, staleMs), Force: opts.Force, FollowSymlinks: opts.FollowSymlinks})
		return errors.Is(err, store.ErrLocked)
	})
	if err != nil {
		a.refuse = err.Error()
		switch {
		case a.era.SQLite:
			a.refuse = "SQLite-era agent: JSONL and sessions.json are legacy input and are never written (" + err.Error() + ")"
		case a.era.Unknown != "":
			a.refuse = "era unknown, nothing is written: " + a.era.Unknown
		}
	}
	// One listing for every check: every name with its lstat, made relative to the open dir
	// by one worker per core (retention.ListDir), and kept for the cleanup plan and for has.
	list, err := retention.ListDir(ctx, a.dir)
	if errors.Is(err, os.ErrNotExist) {
		return a, nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		a.readErr = err // reported by checkStore; nothing of this agent is written
		if a.refuse == "" {
			a.refuse = "its sessions dir cannot be read: " + err.Error()
		}
		return a, nil
	}
	a.listing = list
	a.files = make([]fileInfo, 0, len(list))
	for _, le := range list {
		if le.Type.IsDir() && !store.Classify(le.Name).Kind.IsLock() { // a directory under a lock's name is reported
			continue
		}
		if !le.Stated {
			continue // vanished while listing
		}
		f := fileInfo{name: le.Name, path: filepath.Join(a.dir, le.Name), kind: store.Classify(le.Name),
			size: le.Size, mtime: le.ModTime, symlink: le.Type&fs.ModeSymlink != 0}
		a.files = append(a.files, f)
		if f.kind.Kind.IsPrimary() {
			if a.transcripts == 0 && !f.symlink {
				a.foldCase = store.CaseInsensitiveDir(a.dir, f.name)
			}
			a.transcripts++
		}
	}
	if ld := <-storeDone; ld.found {
		if ld.err != nil {
			a.storeErr = ld.err
		} else {
			a.store = ld.s
			a.entries = ld.s.Len()
		}
	}
	return a, nil
}

// has reports whether path exists (an lstat that succeeds): for a name of the sessions dir,
// from the listing inspect made (a 20,000-session store's rows were an lstat each, twice);
// for any other path, from an lstat now.
func (a *agentState) has(path string) bool {
	if a.listing == nil || filepath.Dir(path) != a.dir {
		return exists(path)
	}
	name := filepath.Base(path)
	i, ok := slices.BinarySearchFunc(a.listing, name, func(e retention.DirEntry, n string) int { return strings.Compare(e.Name, n) })
	return ok && a.listing[i].Stated
}

// fileEra returns the agents whose sessions.json and JSONL files are the live store (not
// SQLite-era ones, which checkSQLite covers), and with withStore only those whose store parsed.
func (st *state) fileEra(withStore bool) []*agentState {
	var out []*agentState
	for _, a := range st.agents {
		if !a.sqliteEra() && (!withStore || a.store != nil) {
			out = append(out, a)
		}
	}
	return out
}

package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/safefile"
	"github.com/clawdoctor/clawdoctor/internal/session"
	"github.com/clawdoctor/clawdoctor/internal/store"
	"github.com/clawdoctor/clawdoctor/jsonl"
	"github.com/clawdoctor/clawdoctor/repair"
)

// checks report their problems in this order (runChecks runs the audit first); each returns
// the problems it found with their planned fixes.
var checks = []check{
	{run: checkConfig},
	{run: checkSQLite},
	{run: checkStore},
	{run: checkLocks},
	{run: checkLeftovers},
	{run: checkRows, apart: true},
	{run: checkCLIBindings, apart: true},
	{run: checkOversized, apart: true},
	{run: checkMissing, apart: true},
	{run: checkAudit, first: true},
	{run: checkRepairPlan, apart: true}, // before checkOrphans: a damaged orphan is repaired, then archived
	{run: checkImport, apart: true},     // after checkRepairPlan: its fix runs after the repair's
	{run: checkOrphans, apart: true},
	{run: checkCleanupPlan, apart: true, early: true},
}

// check is one of checks. first marks a check run before the others; apart marks one that
// only reads what inspect, the first checks and the others before it in order wrote (the
// store's row views are built before), so the apart checks run side by side (see runChecks).
type check struct {
	run          func(context.Context, *state) ([]Problem, error)
	first, apart bool
	// early marks a check that reads only what inspect loaded (no other check's notes, no row
	// view): it starts with the audit (see runChecks). The cleanup plan (which gathers the
	// store itself) is the longest such check, about half a second of one core on the
	// 20,000-session dir; started after the audit, it ended last.
	early bool
}

// runChecks runs every check and returns their problems in the order of checks. The audit
// runs first although it is reported after the store's checks: it reads every transcript and
// allocates as it goes, and the collector's cost grows with what is live meanwhile. Run after
// the row checks it found their views and problems live (~85 MB of a 20,000-session store;
// ~70 collections marking all of it) and doctor cost 1.36–1.40× the CPU of the audit alone;
// run first, 1.26–1.34× (20,000-session bench dir, background frozen). It needs only what
// inspect loaded, and no check reads what another found, except checkRepairPlan, which plans
// the files the audit found damage in, and checkOrphans, which skips a transcript whose lock
// checkLocks found live.
//
// Then the cheap checks that note things on the agents (live locks, database counts) run in
// order, and the rest, which only read, run one per core: the audit keeps both cores busy,
// but after it these were one goroutine's work (~a fifth of doctor's time on that dir).
func runChecks(ctx context.Context, st *state) ([]Problem, error) {
	found := make([][]Problem, len(checks))
	errs := make([]error, len(checks))
	// The early checks start at once, beside the audit: a state dir's audit first checks the
	// store on one core (~0.4 s of the 20,000-session dir) before its transcripts keep both
	// busy, and the cleanup plan (~0.5 s of one core) fits there.
	earlyDone := make(chan struct{})
	go func() {
		defer close(earlyDone)
		for i, c := range checks {
			if c.early {
				found[i], errs[i] = c.run(ctx, st)
			}
		}
	}()
	fail := func(err error) ([]Problem, error) {
		<-earlyDone // nothing runs on after doctor returns
		return nil, err
	}
	for i, c := range checks {
		if c.first {
			if found[i], errs[i] = c.run(ctx, st); errs[i] != nil {
				return fail(errs[i])
			}
		}
	}
	var apart []int
	for i, c := range checks {
		switch {
		case c.first, c.early:
		case c.apart:
			apart = append(apart, i)
		default:
			if found[i], errs[i] = c.run(ctx, st); errs[i] != nil {
				return fail(errs[i])
			}
		}
	}
	for _, a := range st.agents {
		if a.store != nil {
			a.storeEntries() // built once here, read by the checks below side by side
		}
	}
	next := make(chan int, len(apart))
	for _, i := range apart {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(apart)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				found[i], errs[i] = checks[i].run(ctx, st)
			}
		}()
	}
	wg.Wait()
	<-earlyDone
	for _, err := range errs {
		if err != nil {
			return nil, err // the first in the order of checks
		}
	}
	var out []Problem
	for _, ps := range found {
		out = append(out, ps...)
	}
	return out, nil
}

// guard fills p.refused when the agent's files must not be written.
func guard(st *state, a *agentState, p *Problem) {
	if why := a.readOnly(); why != "" && p.apply != nil {
		p.refused = why
	}
}

// unreadable is a file or dir doctor could not read: a failed check, never a clean pass.
func unreadable(a *agentState, path, why string) Problem {
	return Problem{Check: "read.unreadable", Severity: "error", Agent: a.id, Path: path, Gate: GateNone,
		Message: why + ": nothing about it is checked or fixed", failed: why}
}

func checkStore(_ context.Context, st *state) ([]Problem, error) {
	var out []Problem
	for _, a := range st.agents {
		if a.readErr != nil {
			out = append(out, unreadable(a, a.dir, a.readErr.Error()))
		}
		if a.storeErr != nil && !errors.Is(a.storeErr, store.ErrCorrupt) {
			out = append(out, unreadable(a, a.storePath, a.storeErr.Error()))
			continue
		}
		if a.storeErr != nil {
			p := Problem{Check: "store.corrupt", Severity: "error", Agent: a.id, Path: a.storePath,
				Message:  fmt.Sprintf("sessions.json does not parse (%v): OpenClaw reads it as empty and forgets every session on its next write", a.storeErr),
				Fix:      "salvage it entry by entry and re-attach the transcripts no salvaged entry references, as clawdoctor repair --rebuild-store does (backup kept)",
				Gate:     GateYes,
				Evidence: map[string]any{"run": "clawdoctor repair --rebuild-store " + quote(a.dir)}}
			// issue 30: doctor --fix --yes finishes what repair --rebuild-store would do
			dir, agent, path := a.dir, a.id, a.storePath
			p.apply = func(b *Backups) (string, error) {
				dst, err := b.target(path)
				if err != nil {
					return "", err
				}
				done := repair.RepairStore(context.Background(), dir, agent, repair.Options{Now: st.opts.Now, RebuildStore: true, BackupDir: filepath.Dir(dst),
					Force: st.opts.Force, FollowSymlinks: st.opts.FollowSymlinks, Release: st.opts.Release, Temps: st.temps})
				switch done.Status {
				case repair.StatusRepaired, repair.StatusClean:
					return done.BackupPath, nil
				}
				return done.BackupPath, fmt.Errorf("%s: %s", done.Status, done.Reason)
			}
			guard(st, a, &p)
			out = append(out, p)
		}
	}
	return out, nil
}

// checkLocks inspects every transcript and store lock with OpenClaw's staleness rules.
func checkLocks(_ context.Context, st *state) ([]Problem, error) {
	var out []Problem
	for _, a := range st.agents {
		for _, f := range a.files {
			if !f.kind.Kind.IsLock() {
				continue
			}
			ls, err := store.InspectLockFile(f.path, lockOptions(st, f))
			if errors.Is(err, safefile.ErrNotRegular) {
				// A FIFO or directory under a lock's name: OpenClaw can neither take nor
				// release it (reading a FIFO hangs it); every writer refuses this agent.
				a.liveLocks = append(a.liveLocks, f.path)
				out = append(out, Problem{Check: "lock.unusable", Severity: "error", Agent: a.id, Path: f.path,
					Message: fmt.Sprintf("%v: OpenClaw cannot take or release this lock; clawdoctor writes nothing for this agent until it is removed by hand", err),
					Gate:    GateNone, failed: "unreadable lock: " + err.Error()})
				continue
			}
			if errors.Is(err, os.ErrNotExist) {
				continue // released since the listing
			}
			if err != nil {
				return nil, err
			}
			if a.sqlite != "" {
				// OpenClaw 2026.8+ keeps sessions in SQLite and never reads a .jsonl.lock:
				// import leaves the old ones in sessions/. Nothing to fix, nothing blocked.
				out = append(out, Problem{Check: lockCheck(ls), Severity: "info", Agent: a.id, Path: f.path, Bytes: f.size, Gate: GateNone,
					Message:  fmt.Sprintf("a JSONL-era lock file (%s) left in sessions/ of a SQLite-era agent: OpenClaw 2026.8+ does not use it, so it blocks nothing; clawdoctor never writes this agent (delete it by hand if you like)", lockState(ls)),
					Evidence: map[string]any{"pid": ls.PID, "reasons": ls.Reasons}})
				continue
			}
			if !ls.Stale {
				a.liveLocks = append(a.liveLocks, f.path)
				out = append(out, Problem{Check: "lock.live", Severity: "warning", Agent: a.id, Path: f.path,
					Message: fmt.Sprintf("held by a live process (pid %d%s): a gateway is writing here; clawdoctor will not touch this agent's files without --force", ls.PID, holder(ls)),
					Gate:    GateNone, Evidence: map[string]any{"pid": ls.PID, "createdAt": ls.CreatedAt}})
				continue
			}
			path := f.path
			p := Problem{Check: "lock.stale", Severity: "warning", Agent: a.id, Path: f.path, Bytes: f.size,
				Message:  fmt.Sprintf("stale lock (%s): OpenClaw waits on it and may time out every model in the fallback chain", strings.Join(ls.Reasons, ", ")),
				Fix:      "move the lock file to the backup dir",
				Gate:     GateFix,
				Evidence: map[string]any{"pid": ls.PID, "reasons": ls.Reasons},
				apply:    func(b *Backups) (string, error) { return b.Move(path) }}
			guard(st, a, &p)
			out = append(out, p)
		}
	}
	return out, nil
}

func lockCheck(ls store.Lock) string {
	if ls.Stale {
		return "lock.stale"
	}
	return "lock.live"
}

func lockState(ls store.Lock) string {
	if ls.Stale {
		return "stale: " + strings.Join(ls.Reasons, ", ")
	}
	return fmt.Sprintf("held by pid %d%s", ls.PID, holder(ls))
}

func holder(ls store.Lock) string {
	if ls.Note != "" {
		return ", " + ls.Note
	}
	return ""
}

// leftoverKinds are files that OpenClaw or clawdoctor left behind after a crash or an old
// rotation; none is read by the gateway.
var leftoverKinds = map[store.Kind]string{
	store.KindStoreBackup:      "legacy sessions.json rotation backup",
	store.KindStoreTemp:        "sessions.json write temp",
	store.KindRepairTemp:       "repair temp",
	store.KindRepairBackup:     "repair backup",
	store.KindSkillsPromptTemp: "skills prompt temp",
}

func checkLeftovers(_ context.Context, st *state) ([]Problem, error) {
	var out []Problem
	for _, a := range st.fileEra(false) {
		for _, f := range a.files {
			what, ok := leftoverKinds[f.kind.Kind]
			if !ok {
				continue
			}
			age := st.opts.Now.Sub(f.mtime)
			if age < st.opts.LeftoverAge {
				continue // young: a writer may still own it, or the user may still want it
			}
			path := f.path
			p := Problem{Check: "store.leftover", Severity: "info", Agent: a.id, Path: f.path, Bytes: f.size,
				Message: fmt.Sprintf("%s, %s old, %s", what, humanAge(age), humanBytes(f.size)),
				Fix:     "move it to the backup dir (delete that dir to free the space)",
				Gate:    GateYes,
				apply:   func(b *Backups) (string, error) { return b.Move(path) }}
			guard(st, a, &p)
			out = append(out, p)
		}
	}
	return out, nil
}

var reWindowsPath = func(s string) bool {
	return len(s) >= 3 && s[1] == ':' && (s[2] == '\\' || s[2] == '/') || strings.HasPrefix(s, `\\`)
}

// checkRows finds legacy session rows and plans one atomic store write per agent.
func checkRows(_ context.Context, st *state) ([]Problem, error) {
	var out []Problem
	for _, a := range st.fileEra(true) {
		r := a.resolver
		for _, e := range a.storeEntries() {
			if e.Obj == nil {
				continue
			}
			key := e.Key
			t := e.transcript
			sf := e.SessionFile()
			// sessionFile in another OS's or a relative form.
			if sf != "" && (reWindowsPath(sf) || !filepath.IsAbs(sf)) && t.Path != "" && !t.Outside && a.has(t.Path) {
				norm := t.Path
				out = append(out, rowProblem(st, a, key, "store.legacy-session-file",
					sessionFileMessage(sf),
					"set sessionFile to "+norm, func(e *store.Entry) error { return e.Obj.SetValue("sessionFile", norm) }))
			}
			// A generated sessionFile naming another session's transcript while the right one exists.
			if t.Stale {
				right := filepath.Join(r.SessionsDir, e.SessionID()+".jsonl")
				if a.has(right) {
					out = append(out, rowProblem(st, a, key, "store.stale-session-file",
						fmt.Sprintf("sessionFile %q names another session's transcript while %s exists", sf, filepath.Base(right)),
						"set sessionFile to "+right, func(e *store.Entry) error { return e.Obj.SetValue("sessionFile", right) }))
				}
			}
			// sessionStartedAt missing: later OpenClaw builds use it for the daily reset.
			if _, ok := e.SessionStartedAt(); !ok && t.Path != "" && !t.Outside {
				if ms, ok := headerMillis(t.Path); ok {
					out = append(out, rowProblem(st, a, key, "store.missing-started-at",
						"sessionStartedAt is missing; daily resets fall back to older clocks",
						fmt.Sprintf("set sessionStartedAt to %d (the transcript header's timestamp)", ms),
						func(e *store.Entry) error { return e.Obj.SetValue("sessionStartedAt", ms) }))
				}
			}
		}
	}
	return out, nil
}

// rowProblem is a fix that edits one store entry in memory; the store is written once per
// agent, after every fix ran (see flushStores).
func rowProblem(st *state, a *agentState, key, check, msg, fix string, edit func(*store.Entry) error) Problem {
	p := Problem{Check: check, Severity: "warning", Agent: a.id, Path: a.storePath, Message: key + ": " + msg, Fix: fix, Gate: GateFix,
		Evidence: map[string]any{"key": key}}
	p.apply = storeEdit(a, key, edit)
	p.edits = a
	guard(st, a, &p)
	return p
}

func storeEdit(a *agentState, key string, edit func(*store.Entry) error) func(*Backups) (string, error) {
	return func(*Backups) (string, error) {
		e, ok := a.store.Get(key)
		if !ok || e.Obj == nil {
			return "", fmt.Errorf("entry %q vanished", key)
		}
		if err := edit(&e); err != nil {
			return "", err
		}
		if err := a.store.Set(key, e); err != nil {
			return "", err
		}
		a.dirty = true
		return "", nil
	}
}

func sessionFileMessage(sf string) string {
	if reWindowsPath(sf) {
		return fmt.Sprintf("sessionFile %q is a Windows path: on this POSIX host it is not absolute, so OpenClaw cannot use it and only finds the transcript by its fallback name", sf)
	}
	return fmt.Sprintf("sessionFile %q is relative: the gateway writes absolute paths, and tools that resolve it against their working directory miss the transcript", sf)
}

// headerMillis reads the header timestamp of a transcript as epoch ms.
func headerMillis(path string) (int64, bool) {
	f, err := jsonl.Open(path, nil)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	l, err := jsonl.NewReader(f, jsonl.Options{MaxLine: 1 << 20}).Next()
	if err != nil || l.Bytes == nil {
		return 0, false
	}
	h, ok, err := session.DecodeHeader(l.Bytes)
	if err != nil || !ok {
		return 0, false
	}
	t, err := time.Parse(time.RFC3339Nano, h.Timestamp)
	if err != nil {
		return 0, false
	}
	return t.UnixMilli(), true
}

// checkCLIBindings finds CLI session ids that disagree inside one entry, or that two keys share.
func checkCLIBindings(_ context.Context, st *state) ([]Problem, error) {
	var out []Problem
	type owner struct {
		agent   *agentState
		key     string
		updated int64
	}
	shared := map[string][]owner{} // provider + id → owners
	for _, a := range st.fileEra(true) {
		for _, e := range a.storeEntries() {
			byProv := map[string]map[string][]string{} // provider → id → sources
			for _, cs := range e.CLISessions() {
				if cs.SessionID == "" {
					continue
				}
				if byProv[cs.Provider] == nil {
					byProv[cs.Provider] = map[string][]string{}
				}
				byProv[cs.Provider][cs.SessionID] = append(byProv[cs.Provider][cs.SessionID], cs.Source)
			}
			upd, _ := e.UpdatedAt()
			for _, prov := range slices.Sorted(maps.Keys(byProv)) {
				ids := byProv[prov]
				if len(ids) > 1 {
					prov, key := prov, e.Key
					out = append(out, rowProblem(st, a, key, "cli.binding-mismatch",
						fmt.Sprintf("%s CLI session ids disagree (%s): the next run may resume one id and collide with the other (\"Session ID … is already in use\")", prov, describeIDs(ids)),
						"clear the "+prov+" binding so the next run starts the CLI session fresh",
						func(e *store.Entry) error { return clearCLI(e, prov) }))
					continue
				}
				for id := range ids {
					shared[prov+"\x00"+id] = append(shared[prov+"\x00"+id], owner{a, e.Key, upd})
				}
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(shared)) {
		owners := shared[k]
		if len(owners) < 2 {
			continue
		}
		prov, id, _ := strings.Cut(k, "\x00")
		sort.SliceStable(owners, func(i, j int) bool { return owners[i].updated > owners[j].updated })
		var keys []string
		for _, o := range owners {
			keys = append(keys, o.key)
		}
		for _, o := range owners[1:] { // the most recently updated key keeps the session
			out = append(out, rowProblem(st, o.agent, o.key, "cli.shared-session-id",
				fmt.Sprintf("%s CLI session %s is also bound to %s (most recent): two keys resuming one CLI session collide", prov, id, owners[0].key),
				"clear this key's "+prov+" binding (the most recently used key keeps it)",
				func(e *store.Entry) error { return clearCLI(e, prov) }))
		}
		_ = keys
	}
	return out, nil
}

func describeIDs(ids map[string][]string) string {
	var parts []string
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		parts = append(parts, strings.Join(ids[id], "+")+"="+id)
	}
	return strings.Join(parts, ", ")
}

// clearCLI does what OpenClaw's clearCliSession does for one provider: drop the binding, its
// cliSessionIds mirror and, for claude-cli, the legacy claudeCliSessionId.
func clearCLI(e *store.Entry, provider string) error {
	for _, field := range []string{"cliSessionBindings", "cliSessionIds"} {
		sub, ok, err := e.Obj.GetObject(field)
		if err != nil || !ok {
			continue
		}
		if sub.Delete(provider) {
			b, err := sub.MarshalJSON()
			if err != nil {
				return err
			}
			if err := e.Obj.Set(field, b); err != nil {
				return err
			}
		}
	}
	if provider == "claude-cli" {
		e.Obj.Delete("claudeCliSessionId")
	}
	return nil
}

// oversizedField is the size above which a regenerated blob field is worth stripping.
const oversizedField = 256 << 10

var blobFields = []string{"skillsSnapshot", "systemPromptReport"}

func checkOversized(_ context.Context, st *state) ([]Problem, error) {
	var out []Problem
	for _, a := range st.fileEra(true) {
		for _, e := range a.storeEntries() {
			var big []string
			var total int
			for i, f := range blobFields {
				if n := e.blobSize(i); n >= oversizedField {
					big = append(big, fmt.Sprintf("%s %s", f, humanBytes(int64(n))))
					total += n
				}
			}
			if len(big) == 0 {
				continue
			}
			fields := append([]string(nil), blobFields...)
			p := rowProblem(st, a, e.Key, "store.oversized-entry",
				"oversized blobs ("+strings.Join(big, ", ")+"): every store write re-serializes them and large stores wedge the gateway",
				"strip "+strings.Join(blobFields, " and ")+" (OpenClaw regenerates them on the next run)",
				func(e *store.Entry) error {
					for _, f := range fields {
						e.Obj.Delete(f)
					}
					return nil
				})
			p.Gate = GateYes
			p.Bytes = int64(total)
			out = append(out, p)
		}
	}
	return out, nil
}

// checkMissing reports entries whose transcript is gone (cleanup --fix-missing is the fix).
func checkMissing(_ context.Context, st *state) ([]Problem, error) {
	var out []Problem
	for _, a := range st.fileEra(true) {
		var missing []string
		for _, e := range a.storeEntries() {
			found := false
			for _, c := range e.candidates {
				if a.has(c) {
					found = true
					break
				}
			}
			if !found {
				missing = append(missing, e.Key)
			}
		}
		if len(missing) > 0 {
			out = append(out, Problem{Check: "store.missing-transcript", Severity: "warning", Agent: a.id, Path: a.storePath,
				Message:  fmt.Sprintf("%d of %d entries have no transcript on disk (%s): their history will appear to reset", len(missing), a.store.Len(), strings.Join(firstN(missing, 3), ", ")),
				Gate:     GateNone,
				Evidence: map[string]any{"keys": missing, "run": "clawdoctor cleanup --dry-run --fix-missing --state-dir " + quote(st.opts.StateDir) + " --agent " + a.id}})
		}
	}
	return out, nil
}

// checkOrphans finds primary transcripts no entry references; --fix --yes archives them as
// .deleted.<ts> (OpenClaw's doctor does the same, but only interactively), or --rebuild-store
// re-attaches them as entries.
func checkOrphans(_ context.Context, st *state) ([]Problem, error) {
	var out []Problem
	for _, a := range st.fileEra(false) {
		if a.storeErr != nil {
			continue // a corrupt store references nothing we can see: repair it first
		}
		var views []rowView
		if a.store != nil {
			views = a.storeEntries()
		}
		r := a.resolver
		refs := r.ReferencesOf(entries(views), func(i int) store.Transcript { return views[i].transcript })
		for _, e := range views { // an entry's own <sessionId>.jsonl is never an orphan
			for _, c := range e.candidates {
				refs[filepath.Base(c)] = append(refs[filepath.Base(c)], e.Key)
			}
		}
		var folded map[string]bool // on a case-insensitive file system: a name in another case is the same file
		if a.foldCase {
			folded = make(map[string]bool, len(refs))
			for name := range refs {
				folded[strings.ToLower(name)] = true
			}
		}
		stamp := store.ArchiveTime(st.opts.Now)
		for _, f := range a.files {
			if !f.kind.Kind.IsPrimary() || f.symlink {
				continue
			}
			if _, ok := refs[f.name]; ok || folded[strings.ToLower(f.name)] {
				continue
			}
			if locked(a, f.path) {
				continue
			}
			if age := st.opts.Now.Sub(f.mtime); age < orphanGrace {
				continue // the gateway may have created it and not yet written its store entry
			}
			path := f.path
			p := Problem{Check: "store.orphan-transcript", Severity: "warning", Agent: a.id, Path: f.path, Bytes: f.size,
				Message: fmt.Sprintf("no sessions.json entry references this transcript (%s, last written %s ago)", humanBytes(f.size), humanAge(st.opts.Now.Sub(f.mtime))),
				Fix:     "rename to " + f.name + ".deleted." + stamp,
				Gate:    GateYes}
			if st.opts.RebuildStore && a.store != nil {
				sid := f.kind.SessionID
				key := "agent:" + a.id + ":recovered:" + sid
				p.Fix = "re-attach as store entry " + key
				p.Gate = GateFix
				mtime := f.mtime
				p.apply = func(*Backups) (string, error) { return "", attach(a, key, sid, path, mtime) }
				p.edits = a
			} else {
				p.apply = func(*Backups) (string, error) {
					dst := path + ".deleted." + stamp
					if _, err := safefile.Confine(a.dir, dst); err != nil {
						return "", err
					}
					return dst, safefile.Rename(path, dst)
				}
			}
			guard(st, a, &p)
			out = append(out, p)
		}
	}
	return out, nil
}

func locked(a *agentState, path string) bool {
	for _, l := range a.liveLocks {
		if l == path+".lock" {
			return true
		}
	}
	return false
}

// attach adds a store entry for an orphan transcript: session id, file and updatedAt from
// the file's last write.
func attach(a *agentState, key, sid, path string, mtime time.Time) error {
	if _, ok := a.store.Get(key); ok {
		return fmt.Errorf("entry %q already exists", key)
	}
	raw, err := json.Marshal(map[string]any{"sessionId": sid, "sessionFile": path, "updatedAt": mtime.UnixMilli()})
	if err != nil {
		return err
	}
	var e store.Entry
	e.Raw = raw
	if err := a.store.Set(key, e); err != nil {
		return err
	}
	a.dirty = true
	return nil
}

func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string(nil), s[:n]...), fmt.Sprintf("and %d more", len(s)-n))
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// orphanGrace protects a transcript the gateway has just created: its sessions.json entry
// is written after the file.
const orphanGrace = 10 * time.Minute

func humanAge(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d >= 48*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	case d >= time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d >= time.Minute:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("%ds", int(d.Seconds()))
}

// lockOptions applies the configured and environment staleness threshold (store.md §6.1).
func lockOptions(st *state, f fileInfo) store.LockOptions {
	opts := store.LockOptions{Now: st.opts.Now, Store: f.kind.Kind == store.KindStoreLock}
	if !opts.Store {
		opts.StaleAfter = store.LockStaleAfter(st.opts.Getenv, st.staleMs)
	}
	return opts
}

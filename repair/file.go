package repair

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/openclaw"
	"github.com/clawdoctor/clawdoctor/internal/progress"
	"github.com/clawdoctor/clawdoctor/internal/safefile"
	"github.com/clawdoctor/clawdoctor/internal/store"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// Status of one file after a run.
const (
	StatusRepaired = "repaired" // changed (or, in a dry run, would be)
	StatusClean    = "clean"    // nothing to do
	StatusSkipped  = "skipped"  // refused or left alone on purpose; Reason says why
	StatusFailed   = "failed"   // an I/O error; Reason says which
)

// FileResult is the outcome for one file.
type FileResult struct {
	Path        string   `json:"path"`
	Kind        string   `json:"kind"` // transcript or store
	Status      string   `json:"status"`
	Reason      string   `json:"reason"`
	Counts               // droppedLines, salvagedLines, ...
	StoreCounts          // store salvage counters
	BackupPath  string   `json:"backupPath"`
	BytesBefore int64    `json:"bytesBefore"`
	BytesAfter  int64    `json:"bytesAfter"`
	Compression string   `json:"compression,omitempty"`
	Changes     []Change `json:"changes,omitempty"`
	MoreChanges int      `json:"moreChanges,omitempty"`
	Notes       []Note   `json:"notes,omitempty"`
	MoreNotes   int      `json:"moreNotes,omitempty"`
	// Busy is set on a file skipped because a live process held its write lock (after
	// Options.LockWait); Reason names the holder and the lock.
	Busy bool `json:"busy,omitempty"`
}

// Summary adds up a run.
type Summary struct {
	Files    int  `json:"files"`
	Repaired int  `json:"repaired"`
	Clean    int  `json:"clean"`
	Skipped  int  `json:"skipped"`
	Failed   int  `json:"failed"`
	DryRun   bool `json:"dryRun"`
	Counts
	StoreCounts
}

// Result is the outcome of a run over many files.
type Result struct {
	Files   []FileResult `json:"files"`
	Summary Summary      `json:"summary"`
	// OpenClaw is the release whose rules applied and why (set by the caller that chose it).
	OpenClaw *openclaw.Selection `json:"openclaw,omitempty"`
}

func (r *Result) add(f FileResult) {
	r.Files = append(r.Files, f)
	s := &r.Summary
	s.Files++
	switch f.Status {
	case StatusRepaired:
		s.Repaired++
	case StatusClean:
		s.Clean++
	case StatusSkipped:
		s.Skipped++
	case StatusFailed:
		s.Failed++
	}
	s.Counts.add(f.Counts)
	s.StoreCounts.add(f.StoreCounts)
}

func (o *Options) pid() int {
	if o.PID != 0 {
		return o.PID
	}
	return os.Getpid()
}

func (o *Options) phase(name string) {
	if o.Phase != nil {
		o.Phase(name)
	}
}

func (o *Options) now() time.Time {
	if o.Now.IsZero() {
		return time.Now()
	}
	return o.Now
}

// backupPath names the backup of path: OpenClaw's "<file>.bak-<pid>-<ms>" beside it, or the
// same name inside opts.BackupDir.
func (o *Options) backupPath(path string) string {
	name := safefile.BackupName(path, o.pid(), o.now())
	if o.BackupDir != "" {
		name = filepath.Join(o.BackupDir, filepath.Base(name))
	}
	return name
}

// RepairFile plans and, unless opts.DryRun, applies the repair of one transcript. For the
// whole repair it holds the transcript's write lock the way OpenClaw takes it (a gateway
// waits meanwhile; see store.AcquireWriteLock), and first removes temp files that killed
// clawdoctor runs left beside it. A small file without a .lock that needs nothing is read and
// reported clean without the lock (cleanUnlocked). The backup is taken first (a hard link when possible), the
// repaired stream goes to a temp file beside the original that is fsynced and renamed over it,
// then the directory is fsynced. Bytes a writer appended during the repair are carried into
// the new file (tailGuard). A compressed archive is rewritten in the same compression. The
// original mtime is kept. root, when not empty, is the sessions dir the file must stay inside.
func RepairFile(ctx context.Context, root, path string, opts Options, c progress.Counter) FileResult {
	c = progress.OrNoop(c)
	res := FileResult{Path: path, Kind: "transcript"}
	fail := func(err error) FileResult {
		res.Status, res.Reason = StatusFailed, err.Error()
		return res
	}
	skip := func(why string) FileResult {
		res.Status, res.Reason = StatusSkipped, why
		return res
	}
	// A file that cannot be read is skipped (exit 3, named in the report), never a clean pass
	// and not an I/O failure: that is for writes that fail.
	failOrSkip := func(err error) FileResult {
		if safefile.Unreadable(err) {
			return skip("unreadable: " + err.Error())
		}
		return fail(err)
	}
	lst, err := os.Lstat(path)
	if err != nil {
		return failOrSkip(err)
	}
	if lst.Mode()&fs.ModeSymlink != 0 {
		return skip("symlink: not followed (repair its target inside its own sessions dir)")
	}
	if err := safefile.NotRegular(path, lst.Mode()); err != nil {
		return skip(err.Error())
	}
	if root != "" {
		abs, err := filepath.Abs(path)
		if err != nil {
			return fail(err)
		}
		if _, err := safefile.Confine(root, abs); err != nil {
			return skip(err.Error())
		}
	}
	if why := refusal(filepath.Dir(path), path, opts); why != "" {
		return skip(why)
	}
	if opts.DryRun {
		var why string
		wait := opts.LockWait
		if opts.Force {
			wait = 0
		}
		var live, unusable bool
		store.WaitLock(ctx, wait, func() bool {
			live, unusable, why = liveLock(path, opts.now())
			return live && !unusable // a FIFO or directory lock does not go away by waiting
		})
		if live {
			if !opts.Force {
				if unusable {
					return skip(why + " (--force repairs anyway)")
				}
				res.Busy = true
				return skip(why + waited(wait) + " (--force repairs anyway)")
			}
			res.Notes = append(res.Notes, Note{What: why + ": repaired anyway (--force)"})
		}
	} else {
		if clean, ok := cleanUnlocked(ctx, path, lst, opts, res); ok {
			c.Add(lst.Size())
			return clean
		}
		var lock *store.WriteLock
		var err error
		store.WaitLock(ctx, opts.LockWait, func() bool {
			lock, err = acquireWriteLock(path, opts.LockStale, opts.Temps)
			return errors.Is(err, store.ErrLocked) && !opts.Force
		})
		switch {
		case errors.Is(err, store.ErrLocked) || errors.Is(err, store.ErrBadLock):
			if !opts.Force {
				w := ""
				if errors.Is(err, store.ErrLocked) {
					w = waited(opts.LockWait)
					res.Busy = true
				}
				return skip(err.Error() + w + " (--force repairs anyway)")
			}
			res.Notes = append(res.Notes, Note{What: err.Error() + ": repaired anyway (--force), without the write lock"})
			res.Notes = append(res.Notes, tempNotes(opts.Temps, store.LockPath(path), path)...)
		case err != nil:
			return fail(err)
		default:
			defer lock.Release()
			if !lock.Helper {
				res.Notes = append(res.Notes, Note{What: "the write lock names clawdoctor's own pid: OpenClaw 2026.6.11 may take it over while the repair runs"})
			}
			// the temps of killed runs, of the lock and of the transcript, that taking the
			// lock removed
			for _, n := range lock.Removed {
				res.Notes = append(res.Notes, Note{What: n})
			}
		}
		if lst, err = os.Lstat(path); err != nil { // as it is now that we hold the lock
			return fail(err)
		}
	}
	plain := isPlain(path)
	if !opts.DryRun && !opts.SynthesizeHeader && !opts.OnlyInvalidUTF8 && plain {
		out, handled := repairOverlapped(ctx, path, lst, opts, res)
		c.Add(lst.Size())
		if handled {
			return out
		}
	}
	plan, err := PlanStream(ctx, opener(path, plainLimit(plain, lst), &res), path, opts)
	if err != nil {
		return failOrSkip(err)
	}
	c.Add(lst.Size())
	res.takePlan(plan, lst.Size())
	switch {
	case plan.Skip != "":
		return skip(plan.Skip)
	case !plan.Changed():
		res.Status, res.Reason = StatusClean, plan.Empty
		return res
	}
	res.Status = StatusRepaired
	if res.Compression == jsonl.Plain.String() {
		res.BytesAfter = plan.BytesAfter
	} else {
		res.BytesAfter = -1 // known after compressing
	}
	opts.phase("planned")
	if opts.DryRun {
		res.BackupPath = opts.backupPath(path)
		res.Reason = "dry run: nothing written"
		return res
	}
	st, err := os.Lstat(path)
	if err != nil {
		return fail(err)
	}
	if !grewOnly(st, lst) || (!plain && st.Size() != lst.Size()) {
		return fail(fmt.Errorf("%s: %w", path, ErrChanged))
	}
	backup := opts.backupPath(path)
	if opts.BackupDir != "" {
		if err := os.MkdirAll(opts.BackupDir, 0o700); err != nil {
			return fail(err)
		}
	}
	backup, err = takeBackup(path, backup, opts.BackupDir != "")
	if err != nil {
		return fail(err)
	}
	res.BackupPath = backup
	opts.phase("backup")
	var ro safefile.ReplaceOptions
	var guard *tailGuard
	if plain {
		guard = newTailGuard(path, lst, plan.BytesBefore)
		guard.phase = opts.phase
		defer guard.close()
		ro.BeforeRename = guard.beforeRename
	}
	err = safefile.ReplaceWith(path, ro, func(w io.Writer) error {
		if plain {
			src, err := safefile.Open(backup) // the backup holds the planned bytes, whatever happens to path
			if err != nil {
				return err
			}
			defer src.Close()
			if _, err := ApplyFile(ctx, plan, src, w); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			return nil
		}
		src, err := jsonl.Open(backup, nil)
		if err != nil {
			return err
		}
		defer src.Close()
		jw, err := jsonl.NewWriter(w, src.Compression)
		if err != nil {
			return err
		}
		if _, err := Apply(ctx, plan, src, jw); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return jw.Close()
	})
	if err != nil {
		return fail(err)
	}
	opts.phase("replaced")
	mtime := lst.ModTime()
	if guard != nil {
		finishTail(guard, &res)
		mtime = guard.mtime
	}
	_ = os.Chtimes(path, time.Time{}, mtime)
	if nst, err := os.Stat(path); err == nil {
		res.BytesAfter = nst.Size()
	}
	return res
}

// takePlan copies into r what the plan of a file of size bytes says (before r's status).
func (r *FileResult) takePlan(p *Plan, size int64) {
	r.Counts = p.Counts
	r.Changes, r.MoreChanges = p.Changes, p.MoreChanges
	r.Notes = append(r.Notes, p.Notes...)
	r.MoreNotes = p.MoreNotes
	r.BytesBefore, r.BytesAfter = size, size
}

// acquireWriteLock is store.AcquireWriteLock; tests count the locks a run takes through it.
var acquireWriteLock = store.AcquireWriteLock

// cleanMax is the largest file cleanUnlocked reads before the write lock is taken.
const cleanMax = 4 << 20

// cleanUnlocked reports a small transcript that needs no repair as clean without taking its
// write lock: the lock is a temp written, fsynced and linked, a helper process started, then
// the lock removed (~1.6 ms), and on a state dir of 27,000 clean files it made `repair` take
// 51.7 s where the dry run took 8.2 s; a gateway also waited on each of those locks. A plan
// that reads the file without the lock is what the dry run does; when it finds anything to
// change, the file is planned again under the lock, as always, so nothing is written from an
// unlocked read. Only files without a .lock (a lock of any kind goes the locked way: it is
// skipped, taken over or waited on as before) and of at most cleanMax bytes (a big file to
// repair would be read twice; reading a small one costs less than its lock). The stale temps
// of killed runs beside a clean file are removed, as taking the lock did.
func cleanUnlocked(ctx context.Context, path string, lst os.FileInfo, opts Options, res FileResult) (FileResult, bool) {
	if lst.Size() > cleanMax || opts.SynthesizeHeader {
		return res, false
	}
	lock := store.LockPath(path)
	if _, err := os.Lstat(lock); !errors.Is(err, fs.ErrNotExist) {
		return res, false
	}
	// a plan that inserts anything is dropped: it must not take ids from the caller's NewID
	// (a deterministic one, as the conformance harness's, would then number the real plan on)
	opts.NewID = func() string { return "repair-unlocked-plan" }
	plan, err := PlanStream(ctx, opener(path, plainLimit(isPlain(path), lst), &res), path, opts)
	if err != nil || plan.Skip != "" || plan.Changed() {
		return res, false // the locked way plans it again and says what it finds
	}
	res.takePlan(plan, lst.Size())
	res.Status, res.Reason = StatusClean, plan.Empty
	res.Notes = append(res.Notes, tempNotes(opts.Temps, lock, path)...)
	return res, true
}

// finishTail carries bytes appended during the rename and notes what was carried; bytes it
// could not carry make the repair a failure that names where they are.
func finishTail(g *tailGuard, res *FileResult) {
	n, err := g.afterRename()
	if err != nil {
		res.Status = StatusFailed
		where, kerr := g.keepInBackup(res.BackupPath)
		if kerr != nil {
			res.Reason = fmt.Sprintf("%v; they are only in the old file, which could not be kept: %v", err, kerr)
			return
		}
		res.Reason = fmt.Sprintf("%v; %s", err, where)
		return
	}
	if total := g.carried - g.planned; total > 0 {
		res.Notes = append(res.Notes, Note{What: fmt.Sprintf("%d bytes appended by a live writer during the repair were carried over unchanged", total)})
	}
	_ = n
}

// tempNotes removes the temps killed runs left beside paths (store.Temps.RemoveStale) and says so.
func tempNotes(temps *store.Temps, paths ...string) []Note {
	var out []Note
	for _, s := range temps.RemoveStale(paths...) {
		out = append(out, Note{What: s})
	}
	return out
}

// plainLimit is how many bytes of an uncompressed file the plan reads: those that existed when
// the repair began (later ones are a live writer's tail, carried byte for byte); -1 for no
// limit.
func plainLimit(plain bool, st os.FileInfo) int64 {
	if !plain {
		return -1
	}
	return st.Size()
}

// Target is what one command-line run works on.
type Target struct {
	Paths     []string // transcripts, sessions dirs or state dirs; empty: StateDir
	StateDir  string
	Agent     string // only this agent of a state dir
	AllAgents bool
}

// Run repairs every transcript (and the sessions.json) the target names. Transcripts are
// repaired side by side, one per core (each under its own write lock, with its own backup and
// temp), and reported in the target's order. A sessions.json waits for every transcript before
// it in that order and runs alone: a store is not rewritten while a lock of its directory is
// live, and the run's own transcript locks would be. A transcript over bigFile runs alone too,
// so a run holds one big file's buffers at a time. With opts.NewID set, files are repaired one
// at a time, so that its ids follow the files' order. The dry run of a 20,000-session state dir
// (26,992 files) took 8.2 s one file at a time, 5.2 s on two cores.
func Run(ctx context.Context, t Target, opts Options, c progress.Counter) (*Result, error) {
	c = progress.OrNoop(c)
	res := &Result{}
	res.Summary.DryRun = opts.DryRun
	if opts.Temps == nil {
		opts.Temps = store.NewTemps() // each directory listed once for the run, not once a file
	}
	jobs, err := expand(t, opts.RebuildStore)
	if err != nil {
		return nil, err
	}
	var total int64
	sizes := make([]int64, len(jobs))
	for i, j := range jobs {
		if st, err := os.Stat(j.path); err == nil && !j.store {
			sizes[i] = st.Size()
			total += st.Size()
		}
	}
	c.SetTotal(total)
	defer c.Done()

	type outcome struct {
		r    FileResult
		ran  bool
		late bool // finished after the run was interrupted
	}
	out := make([]outcome, len(jobs))
	workers := max(1, runtime.GOMAXPROCS(0))
	if opts.NewID != nil {
		workers = 1 // a caller's ids (tests, fixtures) number the inserted entries in file order
	}
	slots := make(chan struct{}, workers) // a transcript takes one, a big one all
	var wg sync.WaitGroup
	for i, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		switch {
		case j.err != nil:
			out[i] = outcome{r: FileResult{Path: j.path, Kind: "dir", Status: StatusSkipped, Reason: "unreadable: " + j.err.Error()}, ran: true}
		case j.store:
			wg.Wait()
			out[i] = outcome{r: repairStore(ctx, j.root, j.agent, opts), ran: true}
		default:
			w := 1
			if sizes[i] > bigFile {
				w = workers
			}
			for range w {
				slots <- struct{}{}
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := RepairFile(ctx, j.root, j.path, opts, c)
				out[i] = outcome{r: r, ran: true, late: errors.Is(ctx.Err(), context.Canceled)}
				for range w {
					<-slots
				}
			}()
		}
	}
	wg.Wait()
	for _, o := range out {
		// a file interrupted is named only when it was replaced before the interrupt (with
		// its backup); one not begun is not named
		if o.ran && (!o.late || o.r.Status == StatusRepaired) {
			res.add(o.r)
		}
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return res, nil
}

// repairStore is RepairStore; tests see when Run calls it.
var repairStore = RepairStore

// bigFile is the size over which a transcript is repaired alone (see Run).
var bigFile int64 = 64 << 20 // a var: tests lower it

type job struct {
	path, root, agent string
	store             bool
	err               error // the dir could not be read
}

// expand turns a target into the files to repair, sorted by path within each sessions dir.
func expand(t Target, rebuild bool) ([]job, error) {
	var jobs []job
	addDir := func(dir, agent string) error {
		ents, err := os.ReadDir(dir)
		if safefile.Unreadable(err) {
			jobs = append(jobs, job{path: dir, err: err}) // reported as skipped
			return nil
		}
		if err != nil {
			return err
		}
		var names []string
		hasStore := false
		for _, e := range ents {
			if e.Name() == "sessions.json" {
				hasStore = true
			}
			if IsTranscriptName(e.Name()) {
				names = append(names, e.Name()) // a directory, symlink, FIFO or device is reported as skipped
			}
		}
		sort.Strings(names)
		if hasStore || agent != "" || (rebuild && len(names) > 0) {
			jobs = append(jobs, job{path: filepath.Join(dir, "sessions.json"), root: dir, agent: agentOf(dir, agent), store: true})
		}
		for _, n := range names {
			jobs = append(jobs, job{path: filepath.Join(dir, n), root: dir})
		}
		return nil
	}
	addState := func(state string) error {
		agents, err := Agents(state, t.Agent, t.AllAgents)
		if err != nil {
			return err
		}
		for _, a := range agents {
			if err := addDir(filepath.Join(state, "agents", a, "sessions"), a); err != nil {
				return err
			}
		}
		return nil
	}
	if len(t.Paths) == 0 {
		if t.StateDir == "" {
			return nil, errors.New("no state dir and no path given")
		}
		return jobs, addState(t.StateDir)
	}
	for _, p := range t.Paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		switch {
		case !st.IsDir() && filepath.Base(p) == "sessions.json":
			jobs = append(jobs, job{path: p, root: filepath.Dir(p), agent: agentOf(filepath.Dir(p), ""), store: true})
		case !st.IsDir():
			jobs = append(jobs, job{path: p})
		case isDir(filepath.Join(p, "agents")):
			if err := addState(p); err != nil {
				return nil, err
			}
		default:
			if err := addDir(p, ""); err != nil {
				return nil, err
			}
		}
	}
	return jobs, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// agentOf is the agent id of a sessions dir laid out as agents/<id>/sessions, else "main".
func agentOf(dir, agent string) string {
	if agent != "" {
		return agent
	}
	abs, _ := filepath.Abs(dir)
	if filepath.Base(abs) == "sessions" && filepath.Base(filepath.Dir(filepath.Dir(abs))) == "agents" {
		return filepath.Base(filepath.Dir(abs))
	}
	return "main"
}

// Agents lists the agents of a state dir that a run covers: the one named, else every agent
// with a sessions dir (all of them with all, "main" alone when it exists and all is false).
func Agents(state, agent string, all bool) ([]string, error) {
	if agent != "" {
		if !isDir(filepath.Join(state, "agents", agent, "sessions")) {
			return nil, fmt.Errorf("%s: no sessions dir for agent %q", state, agent)
		}
		return []string{agent}, nil
	}
	ents, err := os.ReadDir(filepath.Join(state, "agents"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && isDir(filepath.Join(state, "agents", e.Name(), "sessions")) {
			out = append(out, e.Name())
		}
	}
	if !all {
		for _, a := range out {
			if a == "main" {
				return []string{"main"}, nil
			}
		}
	}
	return out, nil
}

// opener opens path for a planning pass and records its compression in res. With limit >= 0
// only the first limit bytes are read.
func opener(path string, limit int64, res *FileResult) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		f, err := jsonl.Open(path, nil)
		if err != nil {
			return nil, err
		}
		res.Compression = f.Compression.String()
		if limit < 0 {
			return f, nil
		}
		return struct {
			io.Reader
			io.Closer
		}{io.LimitReader(f, limit), f}, nil
	}
}

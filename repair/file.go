package repair

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/clawdoctor/clawdoctor/jsonl"
	"github.com/clawdoctor/clawdoctor/openclaw"
	"github.com/clawdoctor/clawdoctor/progress"
	"github.com/clawdoctor/clawdoctor/safefile"
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

// RepairFile plans and, unless opts.DryRun, applies the repair of one transcript: the backup
// is taken first (a hard link when possible), the repaired stream goes to a temp file beside
// the original that is fsynced and renamed over it, then the directory is fsynced. A
// compressed archive is rewritten in the same compression. The original mtime is kept. root,
// when not empty, is the sessions dir the file must stay inside.
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
	lst, err := os.Lstat(path)
	if err != nil {
		return fail(err)
	}
	if lst.Mode()&fs.ModeSymlink != 0 {
		return skip("symlink: not followed (repair its target inside its own sessions dir)")
	}
	if !lst.Mode().IsRegular() {
		return skip("not a regular file")
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
	if why := sqliteEra(filepath.Dir(path)); why != "" {
		return skip(why)
	}
	if live, why := liveLock(path, opts.now()); live {
		if !opts.Force {
			return skip(why + " (--force repairs anyway)")
		}
		res.Notes = append(res.Notes, Note{What: why + ": repaired anyway (--force)"})
	}
	if !opts.DryRun && !opts.SynthesizeHeader && isPlain(path) {
		out, handled := repairOverlapped(ctx, path, lst, opts, res)
		c.Add(lst.Size())
		if handled {
			return out
		}
	}
	plan, err := PlanStream(ctx, opener(path, &res), path, opts)
	if err != nil {
		return fail(err)
	}
	c.Add(lst.Size())
	res.Counts = plan.Counts
	res.Changes, res.MoreChanges = plan.Changes, plan.MoreChanges
	res.Notes = append(res.Notes, plan.Notes...)
	res.MoreNotes = plan.MoreNotes
	res.BytesBefore, res.BytesAfter = lst.Size(), lst.Size()
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
	if st.Size() != lst.Size() || !st.ModTime().Equal(lst.ModTime()) {
		return fail(fmt.Errorf("%s: %w", path, ErrChanged))
	}
	backup := opts.backupPath(path)
	if opts.BackupDir != "" {
		if err := os.MkdirAll(opts.BackupDir, 0o700); err != nil {
			return fail(err)
		}
	}
	if err := takeBackup(path, backup); err != nil {
		return fail(err)
	}
	res.BackupPath = backup
	opts.phase("backup")
	err = safefile.Replace(path, func(w io.Writer) error {
		if res.Compression == jsonl.Plain.String() {
			src, err := os.Open(backup) // the backup holds the planned bytes, whatever happens to path
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
	_ = os.Chtimes(path, time.Time{}, lst.ModTime())
	if nst, err := os.Stat(path); err == nil {
		res.BytesAfter = nst.Size()
	}
	return res
}

// Target is what one command-line run works on.
type Target struct {
	Paths     []string // transcripts, sessions dirs or state dirs; empty: StateDir
	StateDir  string
	Agent     string // only this agent of a state dir
	AllAgents bool
}

// Run repairs every transcript (and the sessions.json) the target names.
func Run(ctx context.Context, t Target, opts Options, c progress.Counter) (*Result, error) {
	c = progress.OrNoop(c)
	res := &Result{}
	res.Summary.DryRun = opts.DryRun
	jobs, err := expand(t, opts.RebuildStore)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, j := range jobs {
		if st, err := os.Stat(j.path); err == nil && !j.store {
			total += st.Size()
		}
	}
	c.SetTotal(total)
	defer c.Done()
	for _, j := range jobs {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if j.store {
			res.add(RepairStore(ctx, j.root, j.agent, opts))
			continue
		}
		r := RepairFile(ctx, j.root, j.path, opts, c)
		if errors.Is(ctx.Err(), context.Canceled) {
			return res, ctx.Err()
		}
		res.add(r)
	}
	return res, nil
}

type job struct {
	path, root, agent string
	store             bool
}

// expand turns a target into the files to repair, sorted by path within each sessions dir.
func expand(t Target, rebuild bool) ([]job, error) {
	var jobs []job
	addDir := func(dir, agent string) error {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		var names []string
		hasStore := false
		for _, e := range ents {
			if e.Name() == "sessions.json" {
				hasStore = true
			}
			if e.Type().IsRegular() && IsTranscriptName(e.Name()) {
				names = append(names, e.Name())
			} else if e.Type()&fs.ModeSymlink != 0 && IsTranscriptName(e.Name()) {
				names = append(names, e.Name()) // reported as skipped, never followed
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

// opener opens path for a planning pass and records its compression in res.
func opener(path string, res *FileResult) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		f, err := jsonl.Open(path, nil)
		if err != nil {
			return nil, err
		}
		res.Compression = f.Compression.String()
		return f, nil
	}
}

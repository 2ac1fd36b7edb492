// Package export writes the sessions of a SQLite-era agent database back out as the JSONL
// files they were imported from: OUTDIR/<sessionId>.jsonl, byte for byte (header included),
// and OUTDIR/sessions.json built from the session nodes, so every JSONL tool (repair, audit,
// cleanup, replay, OpenClaw 2026.6 itself) can work on a copy. The database is read from a
// consistent snapshot (agentdb), so a live gateway may keep writing; nothing existing is ever
// overwritten, and nothing is written into the state dir's agents.
package export

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/progress"
	"github.com/clawdoctor/clawdoctor/internal/safefile"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

var (
	// ErrExists: an output file already exists; nothing was written.
	ErrExists = errors.New("output files already exist (export never overwrites)")
	// ErrInsideState: the output dir is inside the state dir's agents, where a JSONL file
	// beside a SQLite-era database would make the agent half-migrated.
	ErrInsideState = errors.New("the output dir is inside the state dir's agents")
	// ErrNotSQLite: the agent keeps its sessions in JSONL already.
	ErrNotSQLite = errors.New("the agent is not SQLite era: its sessions are JSONL files already")
)

// Options say what to export.
type Options struct {
	SessionsDir string   // the agent's sessions dir (its database is ../agent/openclaw-agent.sqlite)
	StateDir    string   // refused as an output location (with its agents/)
	Out         string   // output dir (created when absent)
	Sessions    []string // session ids or keys; empty means every session with events
	// Archives also writes the transcripts archived inside the database (under their archive
	// names) and copies the sessions dir's own archive files.
	Archives bool
}

// File is one written file.
type File struct {
	Path   string `json:"path"`
	Source string `json:"source"` // <db>#<session id>, archive name, or the copied file
	Key    string `json:"key,omitempty"`
	Events int64  `json:"events,omitempty"`
	Bytes  int64  `json:"bytes"`
}

// Skipped is a session that was not exported, with why.
type Skipped struct {
	Session string `json:"session"`
	Reason  string `json:"reason"`
}

// Result is what one export wrote.
type Result struct {
	DB       string    `json:"db"`
	Out      string    `json:"out"`
	Files    []File    `json:"files"`
	Store    string    `json:"store"`   // OUTDIR/sessions.json
	Entries  int       `json:"entries"` // rows written to it
	Skipped  []Skipped `json:"skipped,omitempty"`
	Snapshot string    `json:"snapshot"` // "copy" (the database had WAL frames) or "in place"
}

// item is one planned output file.
type item struct {
	name   string
	source string
	key    string
	write  func(w io.Writer) (events int64, err error)
}

// Run exports the agent. It plans every output name first and writes nothing when one of them
// exists or the output dir is refused.
func Run(ctx context.Context, opts Options, c progress.Counter) (*Result, error) {
	c = progress.OrNoop(c)
	defer c.Done()
	era := store.DetectEra(opts.SessionsDir)
	if !era.SQLite {
		if era.Unknown != "" {
			return nil, fmt.Errorf("%s: %w: %s", opts.SessionsDir, store.ErrEraUnknown, era.Unknown)
		}
		return nil, fmt.Errorf("%s: %w", opts.SessionsDir, ErrNotSQLite)
	}
	if err := checkOut(opts); err != nil {
		return nil, err
	}
	db, err := agentdb.OpenSessions(ctx, era.DB)
	if err != nil {
		return nil, err
	}
	res := &Result{DB: era.DB, Out: opts.Out, Store: filepath.Join(opts.Out, store.StoreFile), Snapshot: "in place"}
	if db.Copied {
		res.Snapshot = "copy"
	}
	items, st, err := plan(ctx, db, opts, res)
	if err == nil {
		err = writeAll(ctx, opts.Out, items, st, res, c)
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return res, err
}

func checkOut(opts Options) error {
	if opts.Out == "" {
		return fmt.Errorf("no output dir")
	}
	out, err := filepath.Abs(opts.Out)
	if err != nil {
		return err
	}
	if real, err := filepath.EvalSymlinks(out); err == nil {
		out = real
	}
	for _, root := range []string{opts.StateDir, filepath.Dir(filepath.Dir(opts.SessionsDir))} {
		if root == "" {
			continue
		}
		agents, err := filepath.Abs(filepath.Join(root, "agents"))
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(agents); err == nil {
			agents = real
		}
		if rel, err := filepath.Rel(agents, out); err == nil && (rel == "." || !strings.HasPrefix(rel, "..")) {
			return fmt.Errorf("%s: %w (%s); choose a dir outside it", opts.Out, ErrInsideState, agents)
		}
	}
	return nil
}

// plan lists every file to write and builds sessions.json from the nodes.
func plan(ctx context.Context, db *agentdb.DB, opts Options, res *Result) ([]item, *store.Store, error) {
	sessions, err := db.Sessions(ctx)
	if err != nil {
		return nil, nil, err
	}
	nodes, err := db.Nodes(ctx)
	if err != nil {
		return nil, nil, err
	}
	cold, err := db.ColdArchives(ctx)
	if err != nil {
		return nil, nil, err
	}
	want := map[string]bool{} // session ids asked for; nil map means all
	if len(opts.Sessions) > 0 {
		for _, s := range opts.Sessions {
			id, err := db.Resolve(ctx, s)
			if err != nil {
				return nil, nil, err
			}
			want[id] = true
		}
	}
	st := store.New()
	for _, n := range nodes {
		if len(want) > 0 && !want[n.SessionID] {
			continue
		}
		if err := st.Set(n.Key, store.Entry{Key: n.Key, Raw: n.Entry}); err != nil {
			return nil, nil, fmt.Errorf("%s: node %q: %w", db.Path, n.Key, err)
		}
	}
	res.Entries = st.Len()
	var items []item
	for _, s := range sessions {
		if len(want) > 0 && !want[s.ID] {
			continue
		}
		if !store.ValidSessionID(s.ID) {
			res.Skipped = append(res.Skipped, Skipped{s.ID, "not a safe file name"})
			continue
		}
		id := s.ID
		items = append(items, item{name: id + ".jsonl", source: agentdb.Ref(db.Path, id), key: s.Key, write: func(w io.Writer) (int64, error) {
			tr, err := db.Transcript(ctx, id)
			if err != nil {
				return 0, err
			}
			defer tr.Close()
			_, err = io.Copy(w, tr)
			return tr.Events, err
		}})
	}
	for _, cs := range cold {
		if len(want) == 0 || want[cs.SessionID] {
			res.Skipped = append(res.Skipped, Skipped{cs.SessionID, fmt.Sprintf("in cold storage (%s, %d events); restore it with OpenClaw first", cs.Name, cs.Events)})
		}
	}
	if !opts.Archives {
		return items, st, nil
	}
	archives, err := db.Archives(ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, a := range archives {
		if len(want) > 0 && !want[a.SessionID] {
			continue
		}
		if filepath.Base(a.Name) != a.Name || a.Name == "" || strings.HasPrefix(a.Name, ".") {
			res.Skipped = append(res.Skipped, Skipped{a.SessionID, fmt.Sprintf("archive name %q is not a safe file name", a.Name)})
			continue
		}
		a := a
		items = append(items, item{name: a.Name, source: a.Name, key: a.Key, write: func(w io.Writer) (int64, error) {
			blob, content, err := db.ArchiveContent(ctx, a)
			if err != nil {
				return 0, err
			}
			// The name says whether OpenClaw publishes it compressed: keep those bytes.
			if strings.HasSuffix(a.Name, ".zst") == (a.Encoding == "zstd") {
				content = blob
			}
			_, err = w.Write(content)
			return 0, err
		}})
	}
	l, err := store.List(opts.SessionsDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, err
	}
	for _, f := range l.Files {
		if !f.Class.Kind.IsArchive() || !f.Regular || strings.Contains(f.Name, "/") {
			continue
		}
		if len(want) > 0 && !want[strings.TrimSuffix(f.Class.Base, ".jsonl")] {
			continue
		}
		src := filepath.Join(opts.SessionsDir, f.Name)
		items = append(items, item{name: f.Name, source: src, write: func(w io.Writer) (int64, error) {
			in, err := os.Open(src)
			if err != nil {
				return 0, err
			}
			defer in.Close()
			_, err = io.Copy(w, in)
			return 0, err
		}})
	}
	return items, st, nil
}

// writeAll refuses when an output exists, then writes every file into a staging dir inside
// out and moves them in only when all of them were written: a database that fails half-way
// (a damaged event) leaves nothing behind. Each move is a hard link, which never replaces a
// file that appeared meanwhile.
func writeAll(ctx context.Context, out string, items []item, st *store.Store, res *Result, c progress.Counter) (err error) {
	var exist []string
	seen := map[string]bool{}
	for _, it := range append(items, item{name: store.StoreFile}) {
		if seen[it.name] {
			return fmt.Errorf("two outputs named %s", it.name)
		}
		seen[it.name] = true
		if _, err := os.Lstat(filepath.Join(out, it.name)); err == nil {
			exist = append(exist, it.name)
		}
	}
	if len(exist) > 0 {
		return fmt.Errorf("%s: %w: %s", out, ErrExists, strings.Join(exist[:min(len(exist), 5)], ", "))
	}
	_, statErr := os.Stat(out)
	if err := os.MkdirAll(out, 0o700); err != nil {
		return err
	}
	stage, err := os.MkdirTemp(out, ".clawdoctor-export-*")
	if err != nil {
		return err
	}
	defer func() {
		os.RemoveAll(stage)
		if err != nil && statErr != nil {
			os.Remove(out) // created here: remove it again (only if empty)
		}
	}()
	var files []File
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return err
		}
		f := File{Path: filepath.Join(out, it.name), Source: it.source, Key: it.key}
		err := safefile.Create(filepath.Join(stage, it.name), 0o600, func(w io.Writer) error {
			cw := &countWriter{w: w, c: c}
			n, err := it.write(cw)
			f.Events, f.Bytes = n, cw.n
			return err
		})
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	data, err := st.Marshal()
	if err != nil {
		return err
	}
	if err := safefile.Create(filepath.Join(stage, store.StoreFile), 0o600, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return err
	}
	var moved []string
	for _, name := range append(namesOf(items), store.StoreFile) {
		src, dst := filepath.Join(stage, name), filepath.Join(out, name)
		err := os.Link(src, dst)
		if err != nil && !errors.Is(err, os.ErrExist) {
			// No hard links here: rename, after making sure nothing took the name.
			if _, serr := os.Lstat(dst); serr == nil {
				err = os.ErrExist
			} else {
				err = os.Rename(src, dst)
			}
		}
		if err != nil {
			for _, m := range moved {
				os.Remove(m) // all or nothing
			}
			if errors.Is(err, os.ErrExist) {
				return fmt.Errorf("%s: %w: %s appeared meanwhile", out, ErrExists, name)
			}
			return err
		}
		moved = append(moved, filepath.Join(out, name))
	}
	if err := safefile.SyncDir(out); err != nil {
		return err
	}
	res.Files = files
	return nil
}

func namesOf(items []item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.name
	}
	return out
}

type countWriter struct {
	w io.Writer
	c progress.Counter
	n int64
}

func (cw *countWriter) Write(p []byte) (int, error) {
	n, err := cw.w.Write(p)
	cw.n += int64(n)
	cw.c.Add(int64(n))
	return n, err
}

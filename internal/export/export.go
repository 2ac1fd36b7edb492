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
	// Salvage reads a damaged database past its damage: every session that reads whole, and
	// every event that can still be read of the others (Result.Salvage says what was lost).
	Salvage bool
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
	// Salvage is set by a salvage run: what could not be read.
	Salvage *Salvage `json:"salvage,omitempty"`
}

// Item is one planned output file: its name in the output dir, where it comes from, and how
// to write it (the events written, for a transcript).
type Item struct {
	Name   string
	Source string
	Key    string
	Write  func(w io.Writer) (events int64, err error)
}

// Run exports the agent. It plans every output name first and writes nothing when one of them
// exists or the output dir is refused.
func Run(ctx context.Context, opts Options, c progress.Counter) (*Result, error) {
	c = progress.OrNoop(c)
	defer c.Done()
	era := store.DetectEra(opts.SessionsDir)
	salvageUnknown := opts.Salvage && era.Unknown != "" && era.DB != "" // a damaged database: what is left of it
	if !era.SQLite && !salvageUnknown {
		if era.Unknown != "" {
			return nil, fmt.Errorf("%s: %w: %s", opts.SessionsDir, store.ErrEraUnknown, era.Unknown)
		}
		return nil, fmt.Errorf("%s: %w", opts.SessionsDir, ErrNotSQLite)
	}
	if err := CheckOut(opts.Out, opts.StateDir, opts.SessionsDir); err != nil {
		return nil, err
	}
	if opts.Salvage {
		res := &Result{DB: era.DB, Out: opts.Out, Store: filepath.Join(opts.Out, store.StoreFile), Snapshot: "in place"}
		return res, runSalvage(ctx, opts, era.DB, res, c)
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
		items = append(items, Item{Name: store.StoreFile, Write: func(w io.Writer) (int64, error) {
			data, err := st.Marshal()
			if err == nil {
				_, err = w.Write(data)
			}
			return 0, err
		}})
		var files []File
		if files, err = WriteAll(ctx, opts.Out, items, c); err == nil {
			res.Files = files[:len(files)-1] // sessions.json is res.Store
		}
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return res, err
}

// CheckOut refuses an output dir inside the agents/ of stateDir or of the state dir holding
// sessionsDir, where a JSONL file beside a SQLite-era database would make the agent
// half-migrated.
func CheckOut(outDir, stateDir, sessionsDir string) error {
	if outDir == "" {
		return fmt.Errorf("no output dir")
	}
	out, err := filepath.Abs(outDir)
	if err != nil {
		return err
	}
	if real, err := filepath.EvalSymlinks(out); err == nil {
		out = real
	}
	for _, root := range []string{stateDir, filepath.Dir(filepath.Dir(sessionsDir))} {
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
			return fmt.Errorf("%s: %w (%s); choose a dir outside it", outDir, ErrInsideState, agents)
		}
	}
	return nil
}

// plan lists every file to write and builds sessions.json from the nodes.
func plan(ctx context.Context, db *agentdb.DB, opts Options, res *Result) ([]Item, *store.Store, error) {
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
	var items []Item
	for _, s := range sessions {
		if len(want) > 0 && !want[s.ID] {
			continue
		}
		if !store.ValidSessionID(s.ID) {
			res.Skipped = append(res.Skipped, Skipped{s.ID, "not a safe file name"})
			continue
		}
		id := s.ID
		items = append(items, Item{Name: id + ".jsonl", Source: agentdb.Ref(db.Path, id), Key: s.Key, Write: func(w io.Writer) (int64, error) {
			tr, err := db.Transcript(ctx, id)
			if err != nil {
				return 0, err
			}
			defer tr.Close()
			_, err = io.Copy(w, tr)
			return tr.Events, err
		}})
	}
	hot := map[string]bool{}
	for _, s := range sessions {
		hot[s.ID] = true
	}
	for _, cs := range cold {
		if len(want) > 0 && !want[cs.SessionID] || hot[cs.SessionID] {
			continue // a session restored from cold storage is exported from its events
		}
		if !store.ValidSessionID(cs.SessionID) {
			res.Skipped = append(res.Skipped, Skipped{cs.SessionID, "not a safe file name"})
			continue
		}
		// cold storage (sessions/cold/<sha256>.jsonl.zst or a blob): written from the archive,
		// once it verifies as OpenClaw verifies it before a restore
		if err := db.VerifyCold(ctx, opts.SessionsDir, cs); err != nil {
			res.Skipped = append(res.Skipped, Skipped{cs.SessionID, fmt.Sprintf("in cold storage, and its archive failed verification: %v", err)})
			continue
		}
		cs := cs
		items = append(items, Item{Name: cs.SessionID + ".jsonl", Source: agentdb.Ref(db.Path, cs.SessionID) + " (cold storage " + cs.Name + ")", Write: func(w io.Writer) (int64, error) {
			var n int64
			err := db.ColdEvents(ctx, opts.SessionsDir, cs, func(_ int64, line []byte) error {
				n++
				if _, err := w.Write(line); err != nil {
					return err
				}
				_, err := w.Write([]byte{'\n'})
				return err
			})
			return n, err
		}})
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
		items = append(items, Item{Name: a.Name, Source: a.Name, Key: a.Key, Write: func(w io.Writer) (int64, error) {
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
		items = append(items, Item{Name: f.Name, Source: src, Write: func(w io.Writer) (int64, error) {
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

// WriteAll refuses when an output exists, then writes every item into a staging dir inside
// out and moves them in only when all of them were written: a database that fails half-way
// (a damaged event) leaves nothing behind. Each move is a hard link, which never replaces a
// file that appeared meanwhile. It returns the files written, in the order of items.
func WriteAll(ctx context.Context, out string, items []Item, c progress.Counter) (files []File, err error) {
	c = progress.OrNoop(c)
	var exist []string
	seen := map[string]bool{}
	for _, it := range items {
		if seen[it.Name] {
			return nil, fmt.Errorf("two outputs named %s", it.Name)
		}
		seen[it.Name] = true
		if _, err := os.Lstat(filepath.Join(out, it.Name)); err == nil {
			exist = append(exist, it.Name)
		}
	}
	if len(exist) > 0 {
		return nil, fmt.Errorf("%s: %w: %s", out, ErrExists, strings.Join(exist[:min(len(exist), 5)], ", "))
	}
	_, statErr := os.Stat(out)
	if err := os.MkdirAll(out, 0o700); err != nil {
		return nil, err
	}
	stage, err := os.MkdirTemp(out, ".clawdoctor-export-*")
	if err != nil {
		return nil, err
	}
	defer func() {
		os.RemoveAll(stage)
		if err != nil && statErr != nil {
			os.Remove(out) // created here: remove it again (only if empty)
		}
	}()
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f := File{Path: filepath.Join(out, it.Name), Source: it.Source, Key: it.Key}
		if dir := filepath.Dir(it.Name); dir != "." {
			if err := os.MkdirAll(filepath.Join(stage, dir), 0o700); err != nil {
				return nil, err
			}
		}
		err := safefile.Create(filepath.Join(stage, it.Name), 0o600, func(w io.Writer) error {
			cw := &countWriter{w: w, c: c}
			n, err := it.Write(cw)
			f.Events, f.Bytes = n, cw.n
			return err
		})
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	var moved []string
	for _, name := range namesOf(items) {
		src, dst := filepath.Join(stage, name), filepath.Join(out, name)
		if dir := filepath.Dir(name); dir != "." {
			if err := os.MkdirAll(filepath.Join(out, dir), 0o700); err != nil {
				return nil, err
			}
		}
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
				return nil, fmt.Errorf("%s: %w: %s appeared meanwhile", out, ErrExists, name)
			}
			return nil, err
		}
		moved = append(moved, filepath.Join(out, name))
	}
	dirs := map[string]bool{out: true}
	for _, name := range namesOf(items) {
		dirs[filepath.Join(out, filepath.Dir(name))] = true
	}
	for d := range dirs {
		if err := safefile.SyncDir(d); err != nil {
			return nil, err
		}
	}
	return files, nil
}

func namesOf(items []Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Name
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

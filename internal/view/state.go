package view

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/audit"
	"github.com/clawdoctor/clawdoctor/internal/config"
	"github.com/clawdoctor/clawdoctor/internal/retention"
	"github.com/clawdoctor/clawdoctor/internal/safefile"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

// DefaultOutDir is where the pages of a directory go when Options.OutDir is empty.
const DefaultOutDir = "clawdoctor-view"

// stateData is what the state-dir page shows.
type stateData struct {
	Version   int          `json:"v"`
	Title     string       `json:"title"`
	Root      string       `json:"root"`
	Redacted  bool         `json:"redacted"`
	Generated string       `json:"generated"`
	Agents    []agentRec   `json:"agents"`
	Kinds     []string     `json:"kinds"`
	Rows      []rowRec     `json:"rows"`
	Findings  []findingRec `json:"findings"` // findings not about a transcript (stores, locks, logs)
	Failed    []string     `json:"failed"`
	Notes     []string     `json:"notes"`
}

type agentRec struct {
	ID          string                 `json:"id"`
	Dir         string                 `json:"dir"`
	SQLite      bool                   `json:"sqlite"`
	Kinds       map[string]store.Count `json:"kinds"`
	Files       store.Count            `json:"files"`
	Entries     int                    `json:"entries"` // sessions.json rows
	Corrupt     bool                   `json:"corrupt,omitempty"`
	Mode        string                 `json:"mode,omitempty"` // cleanup mode
	WouldRemove int                    `json:"wouldRemove"`    // rows cleanup would remove
	WouldFiles  int                    `json:"wouldFiles"`     // files cleanup would archive or delete
	FreedBytes  int64                  `json:"freedBytes"`
	CleanupNote string                 `json:"cleanupNote,omitempty"`
	LiveLocks   int                    `json:"liveLocks"`
	StaleLocks  int                    `json:"staleLocks"`
}

type rowRec struct {
	Agent    string `json:"agent"`
	Key      string `json:"key,omitempty"`
	SID      string `json:"sid,omitempty"`
	Channel  string `json:"channel,omitempty"`
	Chat     string `json:"chat,omitempty"`
	Updated  int64  `json:"updated,omitempty"`
	File     string `json:"file,omitempty"`
	Kind     string `json:"kind"` // file kind, "missing" when the row's transcript does not exist
	Size     int64  `json:"size"`
	Entries  int    `json:"entries"` // -1 when no page was made
	Findings int    `json:"findings"`
	Sev      string `json:"sev,omitempty"` // highest finding severity
	Cleanup  string `json:"cleanup,omitempty"`
	Why      string `json:"why,omitempty"`
	Page     string `json:"page,omitempty"`
}

// sessionJob is one transcript to give a page.
type sessionJob struct {
	agent, dir, name string
	display          string // how pages name it; "" for agents/<id>/sessions/<name>
	row              []int  // rows it belongs to
}

func writeState(ctx context.Context, path string, o Options) (*Result, error) {
	outDir := o.OutDir
	if outDir == "" {
		outDir = DefaultOutDir
	}
	root := path
	if !isDir(path) {
		root = filepath.Dir(path) // a sessions.json, or an agent database
	}
	var targets []store.Target
	if t, ok := dbTarget(path); ok {
		root = filepath.Dir(filepath.Dir(t.SessionsDir))
		targets = []store.Target{t}
	} else {
		var err error
		if targets, err = (store.Scope{Paths: []string{path}, Agent: o.Agent, All: o.Agent == ""}).Targets(); err != nil {
			return nil, err
		}
	}
	if err := checkOutDir(outDir, root); err != nil {
		return nil, err
	}
	var red *redactor
	if o.Redact {
		red = newRedactor()
	}
	tmp, err := os.MkdirTemp("", "clawdoctor-view-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	inv, err := store.Inventory(ctx, targets, store.StatsOptions{Now: o.Now}, nil)
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, t := range targets {
		if isDir(t.SessionsDir) {
			dirs = append(dirs, t.SessionsDir)
		}
	}
	// SQLite-era agents: every session of the database, exported as JSONL for the pages
	dbs := make([][]dbSession, len(targets))
	var exported []string
	for i, t := range targets {
		db := agentDB(ctx, t.SessionsDir)
		if db == "" {
			continue
		}
		dir := filepath.Join(tmp, itoa(i))
		if err := os.Mkdir(dir, 0o700); err != nil {
			return nil, err
		}
		if dbs[i], err = exportDB(ctx, db, dir); err != nil {
			return nil, err
		}
		for _, s := range dbs[i] {
			exported = append(exported, s.File)
		}
	}
	ares := &audit.Result{}
	if len(dirs) > 0 || len(o.Logs) > 0 {
		if ares, err = audit.Run(ctx, dirs, audit.Options{Now: o.Now, Logs: o.Logs}, nil); err != nil && len(exported) == 0 {
			return nil, err
		}
	}
	if len(exported) > 0 {
		dres, err := audit.Run(ctx, exported, audit.Options{Now: o.Now}, nil)
		if err != nil {
			return nil, err
		}
		ares.Findings = append(ares.Findings, dres.Findings...)
	}
	// what could not be read is named on the page and in the result (exit 3), never a clean
	// index of nothing (issue 31: an unreadable sessions dir or sessions.json, a FIFO or a
	// directory under a transcript's name gave an empty index and exit 0)
	var unread []string
	seen := map[string]bool{}
	fail := func(path, why string) {
		if seen[absPath(path)] {
			return
		}
		seen[absPath(path)] = true
		if red != nil {
			why = "could not be read" // an error text names paths
		}
		shown := path
		if rel, err := filepath.Rel(absPath(root), absPath(path)); err == nil && !strings.HasPrefix(rel, "..") {
			shown = filepath.ToSlash(rel)
		}
		if red != nil {
			shown = red.path(shown)
		}
		unread = append(unread, shown+": "+why)
	}
	for _, p := range ares.Unreadable {
		fail(p, "could not be read (not a regular file, no permission or over a cap): nothing of it is shown")
	}
	byPath := map[string][]audit.Finding{}
	for _, f := range ares.Findings {
		byPath[f.Path] = append(byPath[f.Path], f)
	}
	sd := &stateData{Version: dataVersion, Title: filepath.Base(absPath(root)), Root: absPath(root), Redacted: red != nil,
		Generated: o.Now.UTC().Format(time.RFC3339), Agents: []agentRec{}, Rows: []rowRec{}, Findings: []findingRec{},
		Failed: []string{}, Notes: []string{}}
	if red != nil {
		sd.Root = "(redacted)"
	}
	kinds := map[string]bool{}
	settings, cfgNote := cleanupSettings(o, targets)
	if cfgNote != "" {
		if red != nil { // the config's error names its path: the home directory
			cfgNote = "config not read: cleanup column uses OpenClaw's defaults"
		}
		sd.Notes = append(sd.Notes, cfgNote)
	}
	var jobs []*sessionJob
	pages := map[string]bool{}
	for i, t := range targets {
		a := inv.Agents[i]
		ag := agentRec{ID: agentID(t), Dir: t.SessionsDir, SQLite: a.Era.SQLite, Kinds: map[string]store.Count{}, Files: a.Files,
			Entries: a.Store.Entries, Corrupt: a.Store.Corrupt != "", LiveLocks: a.Locks.Live, StaleLocks: a.Locks.Stale}
		if red != nil {
			ag.Dir = "agents/" + ag.ID + "/sessions"
		}
		for k, c := range a.Kinds {
			ag.Kinds[string(k)] = c
			kinds[string(k)] = true
		}
		actions, files := map[string]retention.EntryAction{}, map[string]retention.FileAction{}
		if !a.NoDir && a.Store.Present && a.Store.Corrupt == "" {
			if l, err := retention.Gather(ctx, t.Store(), ag.ID); err == nil {
				plan := retention.Make(&l.Input, retention.Options{Settings: settings, Now: o.Now, DryRun: true})
				ag.Mode = plan.Summary.Mode
				for _, act := range plan.Actions {
					actions[act.Key] = act
				}
				for _, fa := range plan.Files {
					files[fa.Path] = fa
					ag.FreedBytes += fa.Bytes
				}
				ag.WouldRemove, ag.WouldFiles = len(plan.RemovedKeys()), len(plan.Files)
			} else {
				ag.CleanupNote = "cleanup plan not available: " + err.Error()
			}
		}
		if ag.SQLite {
			ag.CleanupNote = fmt.Sprintf("SQLite-era agent: OpenClaw 2026.8+ keeps its sessions in agent/%s (%d sessions shown from it, kind sqlite); JSONL files in sessions/ are not the live store", agentdb.FileName, len(dbs[i]))
		}
		sd.Agents = append(sd.Agents, ag)
		for _, s := range dbs[i] {
			j := &sessionJob{agent: ag.ID, dir: filepath.Dir(s.File), name: filepath.Base(s.File),
				display: "agents/" + ag.ID + "/agent/" + agentdb.FileName + "#" + s.ID}
			if red == nil {
				j.display = filepath.Join(filepath.Dir(t.SessionsDir), "agent", agentdb.FileName) + "#" + s.ID
			}
			j.row = append(j.row, len(sd.Rows))
			jobs = append(jobs, j)
			sd.Rows = append(sd.Rows, rowRec{Agent: ag.ID, Key: s.Key, SID: s.ID, Channel: s.Channel, Chat: s.Chat, Updated: s.Updated,
				File: agentdb.FileName + "#" + s.ID, Kind: "sqlite", Size: s.Bytes, Entries: -1})
		}

		st, err := store.Load(t.Store())
		if err != nil {
			if !errors.Is(err, store.ErrCorrupt) && !errors.Is(err, os.ErrNotExist) {
				fail(t.Store(), err.Error())
			}
			st = store.New() // store.corrupt is reported by audit
		}
		listing, err := store.List(t.SessionsDir)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			fail(t.SessionsDir, err.Error())
		}
		sizes := map[string]store.File{}
		for _, f := range listing.Files {
			sizes[f.Name] = f
		}
		byName := map[string]*sessionJob{}
		job := func(name string) *sessionJob {
			if j, ok := byName[name]; ok {
				return j
			}
			j := &sessionJob{agent: ag.ID, dir: t.SessionsDir, name: name}
			byName[name] = j
			jobs = append(jobs, j)
			return j
		}
		r := store.NewResolver(t.SessionsDir, t.Agent, t.StateDir)
		for _, e := range st.Entries() {
			row := rowRec{Agent: ag.ID, Key: e.Key, SID: e.SessionID(), Entries: -1}
			row.Channel, _ = e.String("lastChannel")
			if row.Channel == "" {
				row.Channel, _ = e.String("channel")
			}
			row.Chat, _ = e.String("chatType")
			if ms, ok := e.UpdatedAt(); ok {
				row.Updated = ms
			}
			if act, ok := actions[e.Key]; ok && act.Action != retention.ActKeep {
				row.Cleanup, row.Why = act.Action, act.Reason
			}
			tr := r.Transcript(e)
			switch {
			case tr.Path == "":
				row.Kind = "none"
			case tr.Outside:
				row.Kind, row.File = "outside", tr.Path
			default:
				name := filepath.Base(tr.Path)
				row.File = name
				if f, ok := sizes[name]; ok && f.Regular {
					row.Kind, row.Size = string(f.Class.Kind), f.Size
					j := job(name)
					j.row = append(j.row, len(sd.Rows))
				} else if ok {
					row.Kind = "unreadable"
					fail(tr.Path, "not a regular file")
				} else {
					row.Kind = "missing"
				}
			}
			sd.Rows = append(sd.Rows, row)
		}
		// transcripts no row names: orphans, archives, checkpoints
		for _, f := range listing.Files {
			if _, ok := byName[f.Name]; ok || !f.Regular || !audit.TranscriptLike(f.Name) {
				continue
			}
			row := rowRec{Agent: ag.ID, File: f.Name, Kind: string(f.Class.Kind), Size: f.Size, Entries: -1, Updated: f.ModTime.UnixMilli()}
			if fa, ok := files[f.Name]; ok {
				row.Cleanup, row.Why = fa.Action, fa.Reason
			}
			j := job(f.Name)
			j.row = append(j.row, len(sd.Rows))
			sd.Rows = append(sd.Rows, row)
		}
		for _, j := range byName {
			fa, ok := files[j.name]
			if !ok {
				continue
			}
			for _, ri := range j.row {
				if sd.Rows[ri].Cleanup == "" {
					sd.Rows[ri].Cleanup, sd.Rows[ri].Why = fa.Action, fa.Reason
				}
			}
		}
	}
	for k := range kinds {
		sd.Kinds = append(sd.Kinds, k)
	}
	sort.Strings(sd.Kinds)

	// per-session pages, in parallel; each page is written atomically
	back := "../../index.html"
	type done struct {
		j   *sessionJob
		p   Page
		err error
	}
	results := make([]done, len(jobs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	for k, j := range jobs {
		name := j.name
		if red != nil {
			name = red.path(name) // a page's name is the transcript's: redacted too
		}
		rel := filepath.ToSlash(filepath.Join("sessions", safeName(j.agent), pageName(name)))
		if pages[rel] {
			rel = strings.TrimSuffix(rel, ".html") + "-" + itoa(k) + ".html"
		}
		pages[rel] = true
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			src := filepath.Join(j.dir, j.name)
			display := src
			if red != nil {
				display = "agents/" + j.agent + "/sessions/" + red.path(j.name)
			}
			if j.display != "" {
				display = j.display
			}
			out := filepath.Join(outDir, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				results[k] = done{j: j, err: err}
				return
			}
			p, err := writeSessionFile(ctx, out, sessionInput{Path: src, Display: display, Findings: func() ([]audit.Finding, error) { return byPath[src], nil }, Back: back}, o, red)
			p.Path = rel
			results[k] = done{j: j, p: p, err: err}
		}()
	}
	wg.Wait()
	res := &Result{Redacted: o.Redact, Failed: unread}
	sd.Failed = append(sd.Failed, unread...)
	for _, d := range results {
		if d.err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			msg := d.j.agent + "/" + d.j.name + ": " + d.err.Error()
			if red != nil { // an error names paths and may quote the file
				msg = d.j.agent + "/" + red.path(d.j.name) + ": no page could be made"
			}
			res.Failed = append(res.Failed, msg)
			sd.Failed = append(sd.Failed, msg)
			continue
		}
		d.p.Path = filepath.Join(outDir, filepath.FromSlash(d.p.Path))
		res.Pages = append(res.Pages, d.p)
		rel, _ := filepath.Rel(outDir, d.p.Path)
		for _, ri := range d.j.row {
			row := &sd.Rows[ri]
			row.Entries, row.Findings, row.Page = d.p.Entries, d.p.Findings, filepath.ToSlash(rel)
			row.Sev = maxSeverity(byPath[filepath.Join(d.j.dir, d.j.name)])
		}
	}
	// findings about stores, locks and logs go on the index page
	transcript := map[string]bool{}
	for _, j := range jobs {
		transcript[filepath.Join(j.dir, j.name)] = true
	}
	for _, f := range ares.Findings {
		if transcript[f.Path] {
			continue
		}
		rec := findingRec{Rule: f.Rule, Sev: f.Severity.String(), Line: f.Line, E: -1, Msg: f.Message, Ev: f.Evidence, Path: f.Path}
		if red != nil {
			rec.Msg = "(redacted) " + ruleDescription(f.Rule)
			rec.Ev = red.redactEvidence(f.Evidence)
			rec.Path = relTo(root, f.Path)
		}
		sd.Findings = append(sd.Findings, rec)
	}
	if red != nil {
		redactRows(red, sd.Rows)
	}
	index := filepath.Join(outDir, "index.html")
	err = safefile.Replace(index, func(w io.Writer) error {
		js, err := marshal(sd)
		if err != nil {
			return err
		}
		data, err := pack(js)
		if err != nil {
			return err
		}
		return writePage(w, "state", safeTitle("clawdoctor view: "+sd.Title), data, nil)
	})
	if err != nil {
		return nil, err
	}
	res.Index = index
	return res, nil
}

// redactRows replaces session keys (and their mentions in cleanup reasons) by their
// redacted form.
func redactRows(red *redactor, rows []rowRec) {
	keys := map[string]string{}
	for i := range rows {
		if k := rows[i].Key; k != "" {
			keys[k] = red.sessionKey(k)
		}
	}
	files := map[string]string{}
	for i := range rows {
		if f := rows[i].File; f != "" && rows[i].Kind != "outside" {
			files[f] = red.path(f)
		}
	}
	for i := range rows {
		r := &rows[i]
		for k, rk := range keys {
			r.Why = strings.ReplaceAll(r.Why, k, rk)
		}
		for f, rf := range files {
			r.Why = strings.ReplaceAll(r.Why, f, rf)
		}
		if r.Key != "" {
			r.Key = keys[r.Key]
		}
		r.SID, r.Channel, r.Chat = red.id(r.SID), red.enum(r.Channel), red.enum(r.Chat)
		if r.Kind == "outside" {
			r.File = "(outside the sessions dir)"
		} else if r.File != "" {
			r.File = files[r.File]
		}
	}
}

func cleanupSettings(o Options, targets []store.Target) (retention.Settings, string) {
	stateDir := ""
	for _, t := range targets {
		if t.StateDir != "" {
			stateDir = t.StateDir
			break
		}
	}
	cfg, err := config.Load(config.Find(o.Config, stateDir, os.Getenv))
	note := ""
	if err != nil {
		cfg, note = &config.Config{}, "config not read ("+err.Error()+"): cleanup column uses OpenClaw's defaults"
	}
	s, err := retention.Resolve(cfg.Session.Maintenance, cfg.Cron, retention.Overrides{})
	if err != nil {
		s, _ = retention.Resolve(config.Maintenance{}, config.Cron{}, retention.Overrides{})
		note = "session.maintenance not usable (" + err.Error() + "): cleanup column uses OpenClaw's defaults"
	}
	return s, note
}

func agentID(t store.Target) string {
	if t.Agent != "" {
		return t.Agent
	}
	return filepath.Base(filepath.Dir(t.SessionsDir))
}

func maxSeverity(fs []audit.Finding) string {
	if len(fs) == 0 {
		return ""
	}
	m := audit.Info
	for _, f := range fs {
		m = max(m, f.Severity)
	}
	return m.String()
}

// safeName keeps an agent id usable as a directory name.
func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, s)
	if s == "" || s == "." || s == ".." {
		return "_"
	}
	return s
}

// checkOutDir refuses an output dir inside the data being viewed, or a non-empty dir that
// does not hold one of our index pages.
func checkOutDir(outDir, root string) error {
	absOut, absRoot := absPath(outDir), absPath(root)
	if rel, err := filepath.Rel(absRoot, absOut); err == nil && (rel == "." || !strings.HasPrefix(rel, "..")) {
		return fmt.Errorf("%s: %w (it is inside %s; choose another --out-dir)", outDir, ErrInside, root)
	}
	ents, err := os.ReadDir(outDir)
	if err != nil {
		if os.IsNotExist(err) {
			return os.MkdirAll(outDir, 0o755)
		}
		return err
	}
	if len(ents) > 0 && !ours(filepath.Join(outDir, "index.html")) {
		return fmt.Errorf("%s: %w (the dir is not empty and has no index.html of ours)", outDir, ErrNotOurs)
	}
	return nil
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func relTo(root, p string) string {
	if r, err := filepath.Rel(absPath(root), absPath(p)); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return filepath.Base(p)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

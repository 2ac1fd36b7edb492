package audit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/progress"
	"github.com/clawdoctor/clawdoctor/internal/store"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// ErrNoInput is returned when no path could be read at all.
var ErrNoInput = errors.New("nothing to audit")

// Run audits paths: transcript files (plain, .gz or .zst), sessions dirs and state dirs; a
// directory is walked for every sessions dir and transcript-like file in it. It never writes.
// Files that cannot be read are listed in Result.Unreadable and the run goes on; err is set
// only when nothing could be read or ctx was cancelled.
func Run(ctx context.Context, paths []string, opts Options, c progress.Counter) (*Result, error) {
	c = progress.OrNoop(c)
	defer c.Done()
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	res := &Result{}
	add := func(f Finding) {
		if !opts.Skip[f.Rule] {
			res.Findings = append(res.Findings, f)
		}
	}

	var dirs []*sessionsDir
	var files []string
	var dbs []dbInput // agent databases and "<db>#<session>" refs given as paths
	var firstErr error
	for _, p := range paths {
		if p == jsonl.Stdin && opts.Stdin != nil {
			files = append(files, p)
			continue
		}
		if db, session, ok := agentdb.ParseRef(p); ok {
			dbs = append(dbs, dbInput{db, session})
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			res.Unreadable = append(res.Unreadable, p)
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if !st.IsDir() {
			if agentdb.IsDBPath(p) {
				dbs = append(dbs, dbInput{path: p})
				continue
			}
			if filepath.Base(p) == "sessions.json" {
				sd, err := readSessionsDir(filepath.Dir(p))
				if err == nil {
					sd.transcripts = nil // only the store was asked for
					dirs = append(dirs, sd)
					continue
				}
			}
			files = append(files, p)
			continue
		}
		if TranscriptLike(filepath.Base(filepath.Clean(p))) {
			// a directory under a transcript's name: what was asked for cannot be read
			res.Unreadable = append(res.Unreadable, p)
			continue
		}
		found, unreadable, err := discover(p, opts.Agent)
		res.Unreadable = append(res.Unreadable, unreadable...)
		if err != nil {
			res.Unreadable = append(res.Unreadable, p)
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		dirs = append(dirs, found...)
	}

	if c != progress.Noop {
		// The bar's total: a stat per file, which nothing else needs (a 20,000-session dir's
		// 27,000 stats were not worth making when no bar is shown).
		var total int64
		for _, f := range files {
			total += size(f)
		}
		for _, d := range dirs {
			for _, t := range d.transcripts {
				total += size(filepath.Join(d.dir, t))
			}
			if d.era.SQLite {
				total += size(d.era.DB)
			}
		}
		for _, db := range dbs {
			total += size(db.path)
		}
		c.SetTotal(total)
	}

	// Logs first: their delivery times confirm message batching in transcripts.
	deliveries := map[string]int64{}
	for _, lp := range opts.Logs {
		fs, d, err := CheckLog(ctx, lp)
		if err != nil {
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			res.Unreadable = append(res.Unreadable, lp)
			continue
		}
		res.Summary.Files++
		res.Findings = append(res.Findings, fs...)
		for k, v := range d {
			deliveries[k] = v
		}
	}

	// Transcripts are audited side by side (one scan per core); everything else is cheap and
	// runs in order here.
	transcripts := append([]string(nil), files...)
	var bindings []cliBinding
	for _, db := range dbs {
		if err := auditDB(ctx, db.path, db.session, opts, deliveries, c, res, &bindings); err != nil {
			return res, err
		}
	}
	for _, d := range dirs {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		var referenced map[string]bool
		if d.storeNotFile {
			res.Unreadable = append(res.Unreadable, filepath.Join(d.dir, "sessions.json"))
		}
		for _, n := range d.notFiles {
			res.Unreadable = append(res.Unreadable, filepath.Join(d.dir, n))
		}
		if d.store {
			var sr storeResult
			c := &storeCheck{dir: d.dir, names: d.names, skip: opts.Skip, add: add, bindings: &bindings}
			if s := opts.Stores[d.dir]; s != nil {
				res.Summary.Files++
				sr = checkParsedStore(c, s)
			} else if data, err := store.ReadStoreFile(ctx, filepath.Join(d.dir, "sessions.json")); err != nil {
				res.Unreadable = append(res.Unreadable, filepath.Join(d.dir, "sessions.json"))
			} else {
				res.Summary.Files++
				c.data = data
				sr = checkStore(c)
			}
			if sr.ok {
				referenced = sr.referenced
			}
			// orphans only make sense against a store that parsed
			for _, name := range d.all {
				if opts.Skip["store.orphan-transcript"] {
					break
				}
				if referenced != nil && liveTranscript(name) && !referenced[name] {
					add(newFinding("store.orphan-transcript", filepath.Join(d.dir, name), 0, "", fmt.Sprintf("transcript %s is not referenced by any row of sessions.json; OpenClaw never loads it again and only disk-budget cleanup removes it", name),
						"Inspect it, then run: clawdoctor doctor --fix --yes to archive it (with --rebuild-store to re-attach it instead)",
						map[string]any{"store": filepath.Join(d.dir, "sessions.json")}))
				}
			}
		}
		if d.era.Unknown != "" {
			res.Unreadable = append(res.Unreadable, d.dir+": "+d.era.Unknown) // the live store may be a database we cannot read
		}
		if era := d.era; era.HalfMigrated {
			add(newFinding("store.sqlite-era", d.dir, 0, "", "half-migrated: "+strings.Join(era.Legacy, ", ")+" remain beside the SQLite database ("+strings.Join(era.Evidence, ", ")+
				"), which is what OpenClaw 2026.8+ reads; these JSONL files may be stale and clawdoctor refuses to write them", "Run "+store.HalfMigratedHint,
				map[string]any{"evidence": era.Evidence, "halfMigrated": true, "legacy": era.Legacy}))
		}
		if d.era.SQLite {
			// The live store of a SQLite-era agent: its database, audited like its files.
			if err := auditDB(ctx, d.era.DB, "", opts, deliveries, c, res, &bindings); err != nil {
				return res, err
			}
		}
		for _, l := range d.locks {
			if d.era.SQLite {
				break // OpenClaw 2026.8+ never reads a .jsonl.lock: the ones left behind block nothing
			}
			if err := checkLock(filepath.Join(d.dir, l), opts.Now, add); err != nil {
				res.Unreadable = append(res.Unreadable, filepath.Join(d.dir, l))
			}
		}
		for _, t := range d.transcripts {
			transcripts = append(transcripts, filepath.Join(d.dir, t))
		}
	}
	sharedBindings(bindings, add)
	for _, r := range checkFiles(ctx, transcripts, opts, deliveries, c) {
		for _, f := range r.findings {
			add(f)
		}
		res.Summary.Entries += r.entries
		if r.err != nil {
			res.Unreadable = append(res.Unreadable, r.path)
			continue
		}
		res.Summary.Files++
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	res.finish()
	if res.Summary.Files == 0 && firstErr != nil {
		return res, fmt.Errorf("%w: %w", ErrNoInput, firstErr)
	}
	return res, nil
}

// dbInput is an agent database to audit, whole or one session (id or key).
type dbInput struct{ path, session string }

func size(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

// fileResult is the audit of one transcript file.
type fileResult struct {
	path     string
	findings []Finding
	entries  int64
	err      error
}

// checkFiles audits paths with one worker per core and returns the results in path order.
// Alone, a big transcript's scan extracts its lines on every core (see scan.read); among
// others, files keep every core busy one per worker, and a big one among them is scanned as
// small ones are (its extracting workers would only compete with the other files for the
// cores, and hold their batches in memory beside them).
func checkFiles(ctx context.Context, paths []string, opts Options, deliveries map[string]int64, c progress.Counter) []fileResult {
	out := make([]fileResult, len(paths))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(paths), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fs, n, err := checkFile(ctx, paths[i], opts, deliveries, c, len(paths) == 1)
				out[i] = fileResult{path: paths[i], findings: fs, entries: n, err: err}
			}
		}()
	}
	for i := range paths {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// checkFile opens one transcript (plain, gzip or zstd by magic bytes; jsonl.Open sizes its
// buffers from the file, since a state dir holds thousands of small sessions) and audits it.
func checkFile(ctx context.Context, path string, opts Options, deliveries map[string]int64, c progress.Counter, alone bool) ([]Finding, int64, error) {
	open := func() (*jsonl.File, error) { return jsonl.Open(path, c.Add) }
	if path == jsonl.Stdin && opts.Stdin != nil {
		open = func() (*jsonl.File, error) { return jsonl.OpenStream(opts.Stdin, jsonl.Stdin) }
	}
	f, err := open()
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	s := newScan(ctx, path, opts)
	s.sizeHint = f.Size
	if f.Compression != jsonl.Plain {
		s.sizeHint *= 8
	}
	s.parallel = alone
	if len(deliveries) > 0 {
		s.deliveries = deliveries
	}
	return s.run(f)
}

package audit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clawdoctor/clawdoctor/jsonl"
	"github.com/clawdoctor/clawdoctor/progress"
	"github.com/clawdoctor/clawdoctor/store"
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
	add := func(f Finding) { res.Findings = append(res.Findings, f) }

	var dirs []*sessionsDir
	var files []string
	var firstErr error
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			res.Unreadable = append(res.Unreadable, p)
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if !st.IsDir() {
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
		found, err := discover(p, opts.Agent)
		if err != nil {
			res.Unreadable = append(res.Unreadable, p)
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		dirs = append(dirs, found...)
	}

	var total int64
	for _, f := range files {
		total += size(f)
	}
	for _, d := range dirs {
		for _, t := range d.transcripts {
			total += size(filepath.Join(d.dir, t))
		}
	}
	c.SetTotal(total)

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

	transcript := func(path string) error {
		fs, n, err := checkFile(ctx, path, opts, deliveries, c)
		res.Findings = append(res.Findings, fs...)
		res.Summary.Entries += n
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			res.Unreadable = append(res.Unreadable, path)
			return nil
		}
		res.Summary.Files++
		return nil
	}
	for _, f := range files {
		if err := transcript(f); err != nil {
			return res, err
		}
	}
	var bindings []cliBinding
	for _, d := range dirs {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		var referenced map[string]bool
		if d.store {
			data, err := os.ReadFile(filepath.Join(d.dir, "sessions.json"))
			if err != nil {
				res.Unreadable = append(res.Unreadable, filepath.Join(d.dir, "sessions.json"))
			} else {
				res.Summary.Files++
				sr := checkStore(d.dir, data, add, &bindings)
				if sr.ok {
					referenced = sr.referenced
				}
			}
			// orphans only make sense against a store that parsed
			for _, name := range d.all {
				if referenced != nil && liveTranscript(name) && !referenced[name] {
					add(newFinding("store.orphan-transcript", filepath.Join(d.dir, name), 0, "", fmt.Sprintf("transcript %s is not referenced by any row of sessions.json; OpenClaw never loads it again and only disk-budget cleanup removes it. Inspect it, then run: clawdoctor doctor --fix --yes to archive it (with --rebuild-store to re-attach it instead)", name),
						map[string]any{"store": filepath.Join(d.dir, "sessions.json")}))
				}
			}
		}
		if era := store.DetectEra(d.dir); era.SQLite {
			msg := "this agent's sessions live in SQLite (OpenClaw 2026.8+; " + strings.Join(era.Evidence, ", ") + "): these JSONL files may be stale copies and clawdoctor refuses to write them. Use openclaw doctor --session-sqlite inspect"
			if era.HalfMigrated {
				msg = "half-migrated: " + strings.Join(era.Legacy, ", ") + " remain beside the SQLite database (" + strings.Join(era.Evidence, ", ") + "), which is what OpenClaw 2026.8+ reads; clawdoctor refuses to write them. Run " + store.HalfMigratedHint
			}
			add(newFinding("store.sqlite-era", d.dir, 0, "", msg, map[string]any{"evidence": era.Evidence, "halfMigrated": era.HalfMigrated, "legacy": era.Legacy}))
		}
		for _, l := range d.locks {
			checkLock(filepath.Join(d.dir, l), opts.Now, add)
		}
		for _, t := range d.transcripts {
			if err := transcript(filepath.Join(d.dir, t)); err != nil {
				return res, err
			}
		}
	}
	sharedBindings(bindings, add)
	res.finish()
	if res.Summary.Files == 0 && firstErr != nil {
		return res, fmt.Errorf("%w: %v", ErrNoInput, firstErr)
	}
	return res, nil
}

func size(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

// checkFile opens one transcript (plain, gzip or zstd by magic bytes; jsonl.Open sizes its
// buffers from the file, since a state dir holds thousands of small sessions) and audits it.
func checkFile(ctx context.Context, path string, opts Options, deliveries map[string]int64, c progress.Counter) ([]Finding, int64, error) {
	f, err := jsonl.Open(path, c.Add)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	s := newScan(ctx, path, opts)
	s.sizeHint = f.Size
	if f.Compression != jsonl.Plain {
		s.sizeHint *= 8
	}
	if len(deliveries) > 0 {
		s.deliveries = deliveries
	}
	return s.run(f)
}

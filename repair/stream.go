package repair

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/safefile"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// errAbandoned stops a speculative write whose plan turned out to need no change, a second
// pass, or a refusal; safefile.Replace then removes the temp file.
var errAbandoned = errors.New("repair: speculative write abandoned")

// isPlain reports whether path is an uncompressed stream (by magic bytes).
func isPlain(path string) bool {
	f, err := safefile.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return jsonl.Detect(bufio.NewReaderSize(f, 16)) == jsonl.Plain
}

// repairOverlapped plans an uncompressed transcript and, from its first change on, writes the
// repaired temp file at the same time, so planning and writing (and the kernel's writeback)
// overlap instead of running one after the other. The temp file is only renamed over the
// original when the finished plan says so, after the file is checked again (it may only have
// grown: the appended tail is carried, see tailGuard) and the backup is taken; otherwise it is
// removed. handled is false when the plan needs a second
// pass: the caller then plans and applies one after the other.
func repairOverlapped(ctx context.Context, path string, lst os.FileInfo, opts Options, res FileResult) (out FileResult, handled bool) {
	type verdict struct {
		plan   *Plan
		commit bool
	}
	var (
		edits      = make(chan Edit, 256)
		verdicts   = make(chan verdict, 1)
		done       = make(chan error, 1)
		writerDead = make(chan struct{})
		started    bool
		backup     = opts.backupPath(path)
	)
	guard := newTailGuard(path, lst, lst.Size())
	guard.phase = opts.phase
	defer guard.close()
	start := func() {
		started = true
		go func() {
			defer close(writerDead)
			done <- safefile.ReplaceWith(path, safefile.ReplaceOptions{BeforeRename: guard.beforeRename}, func(w io.Writer) error {
				src, err := safefile.Open(path)
				if err != nil {
					return err
				}
				defer src.Close()
				a := applier{ctx: ctx, f: src, w: w}
				for e := range edits {
					if err := a.edit(e); err != nil {
						return err
					}
				}
				v := <-verdicts
				if !v.commit {
					return errAbandoned
				}
				if _, err := a.finish(v.plan); err != nil {
					return fmt.Errorf("%s: %w", path, err)
				}
				st, err := os.Lstat(path)
				if err != nil {
					return err
				}
				if !grewOnly(st, lst) {
					return fmt.Errorf("%s: %w", path, ErrChanged)
				}
				if opts.BackupDir != "" {
					if err := os.MkdirAll(opts.BackupDir, 0o700); err != nil {
						return err
					}
				}
				b, err := takeBackup(path, backup, opts.BackupDir != "") // before the rename
				if err != nil {
					return err
				}
				backup = b // read once the writer is done (end)
				opts.phase("backup")
				return nil
			})
		}()
	}
	emit := func(e Edit) {
		if !started {
			start()
		}
		select {
		case edits <- e:
		case <-writerDead:
		}
	}
	end := func(commit bool, p *Plan) error {
		if !started {
			return nil
		}
		close(edits)
		verdicts <- verdict{plan: p, commit: commit}
		return <-done
	}
	plan, second, err := planStream(ctx, opener(path, lst.Size(), &res), path, opts, emit)
	if err != nil {
		end(false, nil)
		res.Status, res.Reason = StatusFailed, err.Error()
		if safefile.Unreadable(err) {
			res.Status, res.Reason = StatusSkipped, "unreadable: "+err.Error()
		}
		return res, true
	}
	if second || (plan.Changed() && !started) {
		end(false, nil)
		return res, false
	}
	res.takePlan(plan, lst.Size())
	switch {
	case plan.Skip != "":
		end(false, nil)
		res.Status, res.Reason = StatusSkipped, plan.Skip
		return res, true
	case !plan.Changed():
		end(false, nil)
		res.Status, res.Reason = StatusClean, plan.Empty
		return res, true
	}
	opts.phase("planned")
	if err := end(true, plan); err != nil {
		if _, serr := os.Lstat(backup); serr == nil {
			res.BackupPath = backup
		}
		res.Status, res.Reason = StatusFailed, err.Error()
		return res, true
	}
	opts.phase("replaced")
	res.Status, res.BackupPath = StatusRepaired, backup
	finishTail(guard, &res)
	_ = os.Chtimes(path, time.Time{}, guard.mtime)
	res.BytesAfter = plan.BytesAfter
	if nst, err := os.Stat(path); err == nil {
		res.BytesAfter = nst.Size()
	}
	return res, true
}

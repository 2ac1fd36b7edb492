package repair

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

// TestCleanFilesTakeNoLock: a run takes the write lock only of the transcripts it may change.
// A small clean file is read and reported clean without its lock (the lock of each of 27,000
// clean files made a repair 6.3x its dry run); a file to repair, a clean one over cleanMax and
// a clean one that already has a .lock go the locked way and end as before. Stale temps beside
// a clean file are still removed.
func TestCleanFilesTakeNoLock(t *testing.T) {
	var mu sync.Mutex // Run repairs files side by side
	var locked []string
	acquireWriteLock = func(tr string, stale time.Duration, temps *store.Temps) (*store.WriteLock, error) {
		mu.Lock()
		locked = append(locked, filepath.Base(tr))
		mu.Unlock()
		return store.AcquireWriteLock(tr, stale, temps)
	}
	t.Cleanup(func() { acquireWriteLock = store.AcquireWriteLock })

	dir := sessionsDir(t)
	clean := hdr + "\n" + u1 + "\n" + a1 + "\n"
	write(t, filepath.Join(dir, "clean.jsonl"), clean, 0o644)
	write(t, filepath.Join(dir, "broken.jsonl"), damaged, 0o644)
	big := strings.Repeat(u1+"\n", cleanMax/len(u1)+1) // over cleanMax; repeated ids are not repair's business
	write(t, filepath.Join(dir, "big.jsonl"), hdr+"\n"+big, 0o644)
	write(t, filepath.Join(dir, "withlock.jsonl"), clean, 0o644)
	write(t, filepath.Join(dir, "withlock.jsonl.lock"), `{"pid":2147483646,"createdAt":"2026-01-01T00:00:00.000Z"}`, 0o644) // dead pid: stale
	deadTemp := filepath.Join(dir, ".clean.jsonl.clawdoctor-2147483646-1.tmp")
	write(t, deadTemp, "partial", 0o644)

	res, err := Run(context.Background(), Target{Paths: []string{dir}}, testOpts(), nil)
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	var notes []string
	for _, f := range res.Files {
		status[filepath.Base(f.Path)] = f.Status
		for _, n := range f.Notes {
			notes = append(notes, n.What)
		}
	}
	want := map[string]string{"clean.jsonl": StatusClean, "broken.jsonl": StatusRepaired, "big.jsonl": StatusClean, "withlock.jsonl": StatusClean}
	for name, st := range want {
		if status[name] != st {
			t.Errorf("%s: status %q, want %q (all: %v)", name, status[name], st, status)
		}
	}
	slices.Sort(locked)
	if fmt.Sprint(locked) != "[big.jsonl broken.jsonl withlock.jsonl]" {
		t.Errorf("locks taken of %v, want big, broken and withlock only", locked)
	}
	if _, err := os.Lstat(deadTemp); err == nil {
		t.Errorf("the dead run's temp beside the clean file is still there")
	}
	if !strings.Contains(strings.Join(notes, "\n"), filepath.Base(deadTemp)) {
		t.Errorf("the removed temp is not reported: %q", notes)
	}
}

// TestUnlockedPlanTakesNoIDs: the plan read without the lock, dropped because the file needs a
// repair, takes no id from the caller's NewID: the repair under the lock numbers its inserted
// results as a lone plan does (a deterministic NewID, as the conformance harness's, would
// otherwise start at 2).
func TestUnlockedPlanTakesNoIDs(t *testing.T) {
	dir := sessionsDir(t)
	p := filepath.Join(dir, "s1.jsonl")
	write(t, p, lines(hdr, u1, codeMode("stop", "call_1", "exec")), 0o644)
	res := RepairFile(context.Background(), dir, p, testOpts(), nil)
	if res.Status != StatusRepaired || res.InsertedToolResults != 1 {
		t.Fatalf("result %+v", res)
	}
	if got, want := read(t, p), lines(hdr, u1, codeMode("stop", "call_1", "exec"), synth("a1", "call_1", "exec", 1)); got != want {
		t.Errorf("repaired file\n%s\nwant\n%s", got, want)
	}
}

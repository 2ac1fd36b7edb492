package store_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

// TestTempsListsOnce: a Temps lists a directory once for the run, so a run that replaces many
// files of one directory reads it once, not once a file (repairing 1,000 of 9,000 files took
// 20 s with a listing each, 9.5 s with one). What the listing saw is examined again at removal:
// a dead run's temp is removed and reported once, a live run's stays (and stays listed), one
// gone since the listing is passed over silently; a temp that appears after the listing waits
// for the next run, which a fresh RemoveStaleTemps is.
func TestTempsListsOnce(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pid probing is Linux-specific here")
	}
	dir := t.TempDir()
	write := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const dead = 2147483646
	a, b, c := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "c.jsonl")
	deadA := write(fmt.Sprintf(".a.jsonl.clawdoctor-%d-1.tmp", dead))
	liveA := write(fmt.Sprintf(".a.jsonl.clawdoctor-%d-2.tmp", os.Getppid()))
	goneB := write(fmt.Sprintf(".b.jsonl.clawdoctor-%d-3.tmp", dead))
	oldC := write(".c.jsonl.clawdoctor-4.tmp") // no pid, written long ago
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(oldC, old, old)
	write("a.jsonl.tmp") // not ours: kept

	temps := store.NewTemps()
	notes := temps.RemoveStale(a)
	if len(notes) != 1 || !strings.Contains(notes[0], filepath.Base(deadA)) || !strings.Contains(notes[0], "pid") {
		t.Fatalf("a: notes %q, want the dead run's temp", notes)
	}
	if _, err := os.Lstat(deadA); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dead run's temp is still there: %v", err)
	}
	if _, err := os.Lstat(liveA); err != nil {
		t.Errorf("a live run's temp was removed: %v", err)
	}

	os.Remove(goneB)                                                  // its run finished after the listing
	lateC := write(fmt.Sprintf(".c.jsonl.clawdoctor-%d-5.tmp", dead)) // left after the listing
	if notes := temps.RemoveStale(b); len(notes) != 0 {
		t.Errorf("b: notes %q for a temp gone since the listing", notes)
	}
	notes = temps.RemoveStale(c, a) // a again: its live temp is examined again, not reported
	if len(notes) != 1 || !strings.Contains(notes[0], filepath.Base(oldC)) || !strings.Contains(notes[0], "not written for") {
		t.Errorf("c, a: notes %q, want only the pid-less old temp", notes)
	}
	if _, err := os.Lstat(lateC); err != nil {
		t.Errorf("a temp made after the listing was seen by the same run (the directory was listed again): %v", err)
	}
	if notes := store.RemoveStaleTemps(c); len(notes) != 1 || !strings.Contains(notes[0], filepath.Base(lateC)) {
		t.Errorf("a fresh listing: notes %q, want the late temp", notes)
	}
	for _, name := range []string{filepath.Base(liveA), "a.jsonl.tmp"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s was removed: %v", name, err)
		}
	}
}

// TestTempsConcurrent: a Temps shared by concurrent writers reports each dead temp once.
func TestTempsConcurrent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pid probing is Linux-specific here")
	}
	dir := t.TempDir()
	const n = 64
	for i := range n {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf(".s%d.jsonl.clawdoctor-2147483646-%d.tmp", i, i)), nil, 0o644)
	}
	temps := store.NewTemps()
	var mu sync.Mutex
	var all []string
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				notes := temps.RemoveStale(filepath.Join(dir, fmt.Sprintf("s%d.jsonl", (i+w*7)%n)))
				mu.Lock()
				all = append(all, notes...)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(all) != n {
		t.Errorf("%d notes for %d dead temps", len(all), n)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d temps left", len(ents))
	}
}

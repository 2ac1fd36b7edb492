package repair

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

// TestRunParallelMatchesSequential: Run repairs transcripts side by side and reports them in
// the target's order, each exactly as a lone RepairFile of a copy reports it; big files (over
// bigFile, lowered here) run alone and end the same.
func TestRunParallelMatchesSequential(t *testing.T) {
	defer func(b int64) { bigFile = b }(bigFile)
	bigFile = 4 << 10
	dir, ref := sessionsDir(t), sessionsDir(t)
	var names []string
	for i := range 40 {
		name := fmt.Sprintf("s%02d.jsonl", i)
		data := hdr + "\n" + u1 + "\n" + a1 + "\n"
		switch i % 4 {
		case 1:
			data = damaged
		case 2:
			data = lines(hdr, u1, codeMode("stop", "call_1", "exec"))
		case 3:
			data = hdr + "\n" + strings.Repeat(u1+"\n", 60) + `{"type":"mess` // big, torn at the end
		}
		write(t, filepath.Join(dir, name), data, 0o644)
		write(t, filepath.Join(ref, name), data, 0o644)
		names = append(names, name)
	}
	var mu sync.Mutex
	inflight, most := 0, 0
	acquireWriteLock = func(tr string, stale time.Duration, temps *store.Temps) (*store.WriteLock, error) {
		mu.Lock()
		inflight++
		most = max(most, inflight)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond) // long enough for the other worker to get here
		mu.Lock()
		inflight--
		mu.Unlock()
		return store.AcquireWriteLock(tr, stale, temps)
	}
	t.Cleanup(func() { acquireWriteLock = store.AcquireWriteLock })
	opts := Options{Now: testNow} // no NewID: with one, Run repairs one file at a time
	res, err := Run(context.Background(), Target{Paths: []string{dir}}, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != len(names) {
		t.Fatalf("%d results for %d files", len(res.Files), len(names))
	}
	for i, f := range res.Files {
		if filepath.Base(f.Path) != names[i] {
			t.Fatalf("result %d is %s, want %s: not in the target's order", i, filepath.Base(f.Path), names[i])
		}
		want := RepairFile(context.Background(), ref, filepath.Join(ref, names[i]), opts, nil)
		if f.Status != want.Status || f.Counts != want.Counts || f.BytesAfter != want.BytesAfter || len(f.Changes) != len(want.Changes) {
			t.Errorf("%s: %s %+v, alone: %s %+v", names[i], f.Status, f.Counts, want.Status, want.Counts)
		}
		if got, w := randomIDs.ReplaceAllString(read(t, f.Path), "repair-X"), randomIDs.ReplaceAllString(read(t, filepath.Join(ref, names[i])), "repair-X"); got != w {
			t.Errorf("%s: repaired bytes differ from a lone repair's", names[i])
		}
	}
	if runtime.GOMAXPROCS(0) > 1 && most < 2 {
		t.Errorf("at most %d repair at a time: not side by side", most)
	}
	if s := res.Summary; s.Repaired != 30 || s.Clean != 10 {
		t.Errorf("summary %+v, want 30 repaired and 10 clean", s)
	}
}

var randomIDs = regexp.MustCompile(`repair-[0-9a-f-]{36}`)

// TestRunStoreWaitsForTranscripts: a sessions.json after transcripts in the target waits for
// their repairs: a store is not rewritten while a lock of its directory is live, and the run's
// own transcript locks are held a while here (a store repaired beside them was skipped).
func TestRunStoreWaitsForTranscripts(t *testing.T) {
	acquireWriteLock = func(tr string, stale time.Duration, temps *store.Temps) (*store.WriteLock, error) {
		l, err := store.AcquireWriteLock(tr, stale, temps)
		time.Sleep(100 * time.Millisecond) // hold it while a store could run
		return l, err
	}
	dir := sessionsDir(t)
	paths := []string{filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "sessions.json")}
	repairStore = func(ctx context.Context, root, agent string, opts Options) FileResult {
		for _, p := range paths[:2] {
			if read(t, p) == damaged {
				t.Errorf("the store is repaired before %s", filepath.Base(p))
			}
		}
		return RepairStore(ctx, root, agent, opts)
	}
	t.Cleanup(func() { acquireWriteLock, repairStore = store.AcquireWriteLock, RepairStore })
	write(t, paths[0], damaged, 0o644)
	write(t, paths[1], damaged, 0o644)
	write(t, paths[2], goodStore+"\x00\x00garbage", 0o600)
	res, err := Run(context.Background(), Target{Paths: paths}, Options{Now: testNow}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range res.Files {
		if f.Path != paths[i] || f.Status != StatusRepaired {
			t.Errorf("%d: %s %s (%s), want %s repaired", i, f.Path, f.Status, f.Reason, paths[i])
		}
	}
}

// TestRunInterruptNamesEveryReplacedFile: interrupted while files are repaired side by side,
// Run returns the interrupt and names every file it replaced, with its backup; no file is
// named that was not replaced, and none is left half written.
func TestRunInterruptNamesEveryReplacedFile(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	n := 0
	acquireWriteLock = func(tr string, stale time.Duration, temps *store.Temps) (*store.WriteLock, error) {
		mu.Lock()
		if n++; n == 5 {
			cancel()
		}
		mu.Unlock()
		return store.AcquireWriteLock(tr, stale, temps)
	}
	t.Cleanup(func() { acquireWriteLock = store.AcquireWriteLock })
	dir := sessionsDir(t)
	for i := range 30 {
		write(t, filepath.Join(dir, fmt.Sprintf("s%02d.jsonl", i)), damaged, 0o644)
	}
	res, err := Run(ctx, Target{Paths: []string{dir}}, Options{Now: testNow}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want the interrupt", err)
	}
	named := map[string]FileResult{}
	for _, f := range res.Files {
		named[filepath.Base(f.Path)] = f
	}
	replaced := 0
	for i := range 30 {
		name := fmt.Sprintf("s%02d.jsonl", i)
		got := read(t, filepath.Join(dir, name))
		f, ok := named[name]
		switch {
		case got == damaged && ok && f.Status == StatusRepaired:
			t.Errorf("%s named repaired but unchanged", name)
		case got != damaged:
			replaced++
			if !ok || f.Status != StatusRepaired || read(t, f.BackupPath) != damaged {
				t.Errorf("%s replaced but not named with its backup: %+v", name, f)
			}
		}
	}
	if replaced == 30 {
		t.Errorf("every file was repaired: the interrupt stopped nothing")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") || strings.HasSuffix(e.Name(), ".lock") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestRunBackupDirSameNames: two transcripts of one name in two agents, repaired in the same
// millisecond (side by side, and the clock fixed here) into one --backup-dir, get a backup
// each: the second name gets "-2" instead of failing on the first's (or being reported as
// its backup).
func TestRunBackupDirSameNames(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	var paths []string
	for i, agent := range []string{"main", "work"} {
		dir := filepath.Join(state, "agents", agent, "sessions")
		os.MkdirAll(dir, 0o755)
		p := filepath.Join(dir, "s1.jsonl")
		write(t, p, damaged+fmt.Sprintf(`{"type":"custom","id":"c%d","parentId":"a1"}`, i)+"\n", 0o644)
		paths = append(paths, p)
	}
	originals := []string{read(t, paths[0]), read(t, paths[1])}
	opts := Options{Now: testNow, BackupDir: filepath.Join(t.TempDir(), "backups")}
	res, err := Run(context.Background(), Target{StateDir: state, AllAgents: true}, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	backups := map[string]string{}
	for _, f := range res.Files {
		if f.Kind != "transcript" {
			continue
		}
		if f.Status != StatusRepaired {
			t.Fatalf("%s: %s (%s)", f.Path, f.Status, f.Reason)
		}
		backups[f.Path] = f.BackupPath
	}
	if backups[paths[0]] == backups[paths[1]] {
		t.Fatalf("both report the backup %s", backups[paths[0]])
	}
	for i, p := range paths {
		if got := read(t, backups[p]); got != originals[i] {
			t.Errorf("%s: its backup %s holds another file's bytes", p, backups[p])
		}
	}
}

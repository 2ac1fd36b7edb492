package store_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

func cmdline(t *testing.T, pid int) []string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		t.Skip("no /proc on this system")
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// issue 10, scope 1: the lock has OpenClaw's path, format and owner, and is released cleanly.
func TestAcquireWriteLock(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the holder and /proc checks are Linux-specific")
	}
	dir := t.TempDir()
	tr := filepath.Join(dir, "s1.jsonl")
	os.WriteFile(tr, []byte("{}\n"), 0o644)
	l, err := store.AcquireWriteLock(tr, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.Path != tr+".lock" || !l.Helper || l.PID == os.Getpid() {
		t.Fatalf("lock %+v", l)
	}
	raw, _ := os.ReadFile(l.Path)
	re := regexp.MustCompile(`^\{\n  "pid": (\d+),\n  "createdAt": "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z",\n  "starttime": \d+\n\}\n$`)
	if m := re.FindSubmatch(raw); m == nil || string(m[1]) != fmt.Sprint(l.PID) {
		t.Fatalf("payload is not OpenClaw's JSON.stringify(payload, null, 2) layout:\n%s", raw)
	}
	// OpenClaw respects it: the holder is alive, its start time matches, its argv looks like OpenClaw.
	insp, err := store.InspectLockFile(l.Path, store.LockOptions{RequireOpenClawOwner: true})
	if err != nil || insp.Stale {
		t.Fatalf("OpenClaw's rules would take this lock over: %+v %v", insp, err)
	}
	if argv := cmdline(t, l.PID); !store.LooksLikeOpenClaw(argv) || !strings.Contains(strings.Join(argv, " "), "clawdoctor-lock-holder") {
		t.Fatalf("holder argv %q", argv)
	}
	// A second acquirer is refused while it is held.
	if _, err := store.AcquireWriteLock(tr, 0, nil); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("second acquire: %v", err)
	}
	pid := l.PID
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(l.Path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("lock file left: %v", err)
	}
	if store.PIDAlive(pid) {
		t.Fatalf("holder %d still alive after release", pid)
	}
	if err := l.Release(); err != nil { // idempotent
		t.Fatal(err)
	}
}

func TestAcquireWriteLockOverExisting(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pid probing is Linux-specific here")
	}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	old := time.Now().Add(-2 * time.Hour).UTC().Format(time.RFC3339Nano)
	for _, tc := range []struct {
		name    string
		payload string
		dir     bool
		want    error // nil: taken over
	}{
		{"dead pid", fmt.Sprintf(`{"pid":%d,"createdAt":%q}`, deadPID(t), now), false, nil},
		{"live pid", fmt.Sprintf(`{"pid":%d,"createdAt":%q}`, os.Getpid(), now), false, store.ErrLocked},
		{"live pid, too old (OpenClaw only reports it)", fmt.Sprintf(`{"pid":%d,"createdAt":%q}`, os.Getpid(), old), false, store.ErrLocked},
		{"garbage payload, old file", `not json`, false, nil},
		{"directory", "", true, store.ErrBadLock},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tr := filepath.Join(dir, "s1.jsonl")
			lp := tr + ".lock"
			if tc.dir {
				os.Mkdir(lp, 0o755)
			} else {
				os.WriteFile(lp, []byte(tc.payload), 0o644)
				past := time.Now().Add(-time.Minute)
				os.Chtimes(lp, past, past)
			}
			l, err := store.AcquireWriteLock(tr, 0, nil)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("not taken over: %v", err)
				}
				l.Release()
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if st, err := os.Lstat(lp); err != nil || (tc.dir != st.IsDir()) {
				t.Fatalf("the existing lock was touched: %v", err)
			}
		})
	}
}

// TestAcquireWriteLockTemps: the lock appears whole (it is linked from a temp, never created
// empty and then written), and the temp a run killed between the link and the temp's removal
// left is removed by the next acquisition once its pid is dead, with the transcript's, and
// reported in Removed; a live pid's temp stays.
func TestAcquireWriteLockTemps(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pid probing is Linux-specific here")
	}
	dir := t.TempDir()
	tr := filepath.Join(dir, "s1.jsonl")
	os.WriteFile(tr, []byte("{}\n"), 0o644)
	dead := filepath.Join(dir, ".s1.jsonl.lock.clawdoctor-2147483646-123.tmp")
	live := filepath.Join(dir, fmt.Sprintf(".s1.jsonl.lock.clawdoctor-%d-456.tmp", os.Getppid()))
	deadTr := filepath.Join(dir, ".s1.jsonl.clawdoctor-2147483646-789.tmp") // the transcript's, same listing
	for _, p := range []string{dead, live, deadTr} {
		os.WriteFile(p, []byte("{\n  \"pid\": 2147483646\n}\n"), 0o644)
	}
	l, err := store.AcquireWriteLock(tr, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	for _, p := range []string{dead, deadTr} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the dead run's temp %s is still there: %v", filepath.Base(p), err)
		}
	}
	if len(l.Removed) != 2 || !strings.Contains(strings.Join(l.Removed, "\n"), filepath.Base(dead)) || !strings.Contains(strings.Join(l.Removed, "\n"), filepath.Base(deadTr)) {
		t.Errorf("Removed does not report both dead temps: %q", l.Removed)
	}
	if _, err := os.Lstat(live); err != nil {
		t.Errorf("a live pid's lock temp was removed: %v", err)
	}
	if st, err := os.Stat(l.Path); err != nil || st.Size() == 0 || st.Mode().Perm() != 0o644 {
		t.Fatalf("lock %v %v", st, err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3 { // s1.jsonl, its lock, the live pid's temp
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("dir holds %v", names)
	}
}

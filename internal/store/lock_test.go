package store_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

// deadPID starts a short process, waits for it and returns its (now unused) pid.
func deadPID(t *testing.T) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// ownStartTime is field 22 of /proc/self/stat, read independently of the package.
func ownStartTime(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skip("no /proc on this system")
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndex(s, ")")+2:])
	n, err := strconv.ParseInt(fields[19], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func payload(t *testing.T, v map[string]any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestInspectLock(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("pid probing is unix-only")
	}
	self := os.Getpid()
	recent := now.Add(-2 * time.Minute).Format(time.RFC3339Nano)
	for _, tc := range []struct {
		name    string
		payload []byte
		opts    store.LockOptions
		stale   bool
		reasons []string
	}{
		{"live own pid", payload(t, map[string]any{"pid": self, "createdAt": recent}), store.LockOptions{}, false, nil},
		{"dead pid", payload(t, map[string]any{"pid": deadPID(t), "createdAt": recent}), store.LockOptions{}, true, []string{"dead-pid"}},
		{"too old", payload(t, map[string]any{"pid": self, "createdAt": now.Add(-31 * time.Minute).Format(time.RFC3339Nano)}), store.LockOptions{}, true, []string{"too-old"}},
		{"stale threshold from options", payload(t, map[string]any{"pid": self, "createdAt": recent}), store.LockOptions{StaleAfter: time.Minute}, true, []string{"too-old"}},
		{"malformed payload", []byte("{not json"), store.LockOptions{}, true, []string{"missing-pid", "invalid-createdAt"}},
		{"empty file, old", nil, store.LockOptions{ModTime: now.Add(-time.Minute)}, true, []string{"missing-pid", "invalid-createdAt"}},
		{"empty file, 2 s old", nil, store.LockOptions{ModTime: now.Add(-2 * time.Second)}, false, []string{"missing-pid", "invalid-createdAt"}},
		{"pid not an integer", payload(t, map[string]any{"pid": 1.5, "createdAt": recent}), store.LockOptions{}, true, []string{"missing-pid"}},
		{"bad createdAt", payload(t, map[string]any{"pid": self, "createdAt": "yesterday"}), store.LockOptions{}, true, []string{"invalid-createdAt"}},
		{"store lock phase A", payload(t, map[string]any{"pid": self, "startedAt": now.Add(-time.Minute).UnixMilli()}), store.LockOptions{Store: true}, true, []string{"too-old"}},
		{"store lock phase A fresh", payload(t, map[string]any{"pid": self, "startedAt": now.Add(-time.Second).UnixMilli()}), store.LockOptions{Store: true}, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.Now = now
			// createdAt is relative to the fixed clock; the pid checks use the real process table.
			l := store.InspectLock(tc.payload, opts)
			if l.Stale != tc.stale {
				t.Errorf("stale = %v, want %v (%+v)", l.Stale, tc.stale, l)
			}
			if diff := cmp.Diff(tc.reasons, l.Reasons); diff != "" {
				t.Errorf("reasons (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInspectLockReusedPID(t *testing.T) {
	st := ownStartTime(t)
	recent := now.Add(-time.Minute).Format(time.RFC3339Nano)
	same := store.InspectLock(payload(t, map[string]any{"pid": os.Getpid(), "createdAt": recent, "starttime": st}), store.LockOptions{Now: now})
	if same.Stale || !same.Alive {
		t.Errorf("own pid with own starttime: %+v", same)
	}
	reused := store.InspectLock(payload(t, map[string]any{"pid": os.Getpid(), "createdAt": recent, "starttime": st + 1}), store.LockOptions{Now: now})
	if !reused.Stale || len(reused.Reasons) != 1 || reused.Reasons[0] != "recycled-pid" {
		t.Errorf("pid with another starttime: %+v", reused)
	}
}

func TestInspectLockOwner(t *testing.T) {
	recent := now.Add(-time.Minute).Format(time.RFC3339Nano)
	p := payload(t, map[string]any{"pid": os.Getpid(), "createdAt": recent})
	l := store.InspectLock(p, store.LockOptions{Now: now, RequireOpenClawOwner: true})
	if !l.Stale || l.Reasons[0] != "non-openclaw-owner" {
		t.Errorf("the test binary owning a lock should be non-openclaw-owner: %+v", l)
	}
	l = store.InspectLock(p, store.LockOptions{Now: now, RequireOpenClawOwner: true,
		Cmdline: func(int) ([]string, error) { return []string{"node", "/opt/openclaw/dist/index.js", "gateway"}, nil }})
	if l.Stale {
		t.Errorf("an openclaw gateway owner is live: %+v", l)
	}
	for argv, want := range map[string]bool{
		"openclaw gateway":               true,
		"/usr/bin/openclaw-gateway":      true,
		"node /x/openclaw.mjs agent":     true,
		"node /x/dist/entry.js gateway":  true,
		"node /x/dist/entry.js serve":    false,
		"node server.js gateway":         false,
		"python3 -m http.server":         false,
		"/usr/local/bin/openclaw-helper": false,
	} {
		if got := store.LooksLikeOpenClaw(strings.Fields(argv)); got != want {
			t.Errorf("LooksLikeOpenClaw(%q) = %v", argv, got)
		}
	}
}

func TestInspectLockFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "abc.jsonl.lock")
	if err := os.WriteFile(path, payload(t, map[string]any{"pid": os.Getpid(), "createdAt": time.Now().Format(time.RFC3339Nano)}), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := store.InspectLockFile(path, store.LockOptions{})
	if err != nil || l.Stale || l.PID != os.Getpid() || l.Path != path {
		t.Errorf("InspectLockFile = %+v, %v", l, err)
	}
	// An empty lock just created is not yet reclaimable (its writer may be mid-write).
	empty := filepath.Join(dir, "def.jsonl.lock")
	os.WriteFile(empty, nil, 0o600)
	if l, _ := store.InspectLockFile(empty, store.LockOptions{}); l.Stale || l.Note == "" {
		t.Errorf("fresh empty lock: %+v", l)
	}
	if _, err := store.InspectLockFile(filepath.Join(dir, "missing.lock"), store.LockOptions{}); err == nil {
		t.Error("missing lock file gave no error")
	}
}

func TestLockStaleAfter(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == store.EnvLockStaleMs {
				return v
			}
			return ""
		}
	}
	for _, tc := range []struct {
		env    string
		config int64
		want   time.Duration
	}{
		{"", 0, 30 * time.Minute},
		{"", 60000, time.Minute},
		{"1500", 60000, 1500 * time.Millisecond},
		{"-5", 60000, time.Minute},
		{"abc", 0, 30 * time.Minute},
		{"Infinity", 0, 30 * time.Minute},
	} {
		if got := store.LockStaleAfter(env(tc.env), tc.config); got != tc.want {
			t.Errorf("LockStaleAfter(env %q, config %d) = %v, want %v", tc.env, tc.config, got, tc.want)
		}
	}
}

func TestCorpusLocks(t *testing.T) {
	// Every lock in the corpus was left by a process on someone else's machine months ago.
	dir := corpusDir(t)
	locks, _ := filepath.Glob(filepath.Join(dir, "*", "*", "*", "*", "*", "*.lock"))
	more, _ := filepath.Glob(filepath.Join(dir, "*", "*", "*", "*", "*.lock"))
	locks = append(locks, more...)
	if len(locks) != 2 {
		t.Fatalf("found %d corpus locks, want 2: %v", len(locks), locks)
	}
	for _, p := range locks {
		l, err := store.InspectLockFile(p, store.LockOptions{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		if !l.Stale || l.PID == 0 || l.CreatedAt.IsZero() {
			t.Errorf("%s: %+v", p, l)
		}
	}
}

func TestPIDAlive(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("pid probing is unix-only")
	}
	if !store.PIDAlive(os.Getpid()) || store.PIDAlive(deadPID(t)) || store.PIDAlive(0) || store.PIDAlive(-1) {
		t.Error("PIDAlive wrong for self, a reaped child, 0 or -1")
	}
	if runtime.GOOS == "linux" {
		if st, err := store.ProcStartTime(os.Getpid()); err != nil || st != ownStartTime(t) {
			t.Errorf("ProcStartTime = %d, %v", st, err)
		}
	}
}

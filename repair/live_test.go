package repair

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

// liveSize is the transcript size of the live-writer tests (issue 10 asks for 200 MiB);
// CLAWDOCTOR_LIVE_MB overrides it for quicker local runs.
func liveSize() int {
	if mb, err := strconv.Atoi(os.Getenv("CLAWDOCTOR_LIVE_MB")); err == nil && mb > 0 {
		return mb << 20
	}
	return 200 << 20
}

// liveDir is sessionsDir for the 200 MiB trials, and a func that removes the trial's state
// dir. A trial leaves the transcript, its repaired copy and the backup: 400 MiB. Kept until
// the test ended, the eleven trials of TestRepairKeepsLinesOfAWriterThatIgnoresTheLock held
// 4.4 GB, and the project's CI machine ran out of disk space in the middle of one (stop 42).
func liveDir(t *testing.T) (dir string, remove func()) {
	t.Helper()
	dir = sessionsDir(t)
	root := filepath.Dir(filepath.Dir(filepath.Dir(dir))) // the t.TempDir above agents/main/sessions
	return dir, func() {
		if err := os.RemoveAll(root); err != nil {
			t.Error(err)
		}
	}
}

// appendLine appends line+"\n" with one write, as OpenClaw's appendFile does.
func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line + "\n")
	return errors.Join(err, f.Close())
}

// issue 10, scope 1: a writer that ignores every lock appends one line at a random point of each
// tenth of a 200 MiB repair (planning, writing, the backup, the rename, and just after it). The
// line must end up in the repaired file every time, after the repaired content, and the
// repair must still succeed. On main this lost the line in 8 of 20 trials (status repaired,
// the line only in the backup).
func TestRepairKeepsLinesOfAWriterThatIgnoresTheLock(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 200 MiB per trial: skipped with -short")
	}
	orig, _ := crashInput(liveSize(), 7)
	want, p := repairBytes(t, orig, Options{})
	if !p.Changed() {
		t.Fatal("input needs no repair")
	}
	dir, remove := liveDir(t)
	path := filepath.Join(dir, "s1.jsonl")
	// Time one repair to spread the append points over it.
	write(t, path, string(orig), 0o644)
	start := time.Now()
	if r := RepairFile(context.Background(), dir, path, Options{}, nil); r.Status != StatusRepaired {
		t.Fatalf("untimed run: %+v", r)
	}
	full := time.Since(start)
	remove()
	rng := rand.New(rand.NewSource(11))
	const trials = 10 // one per tenth of the repair (and a little after it), at a random point in it
	carried := 0
	for i := range trials {
		dir, remove := liveDir(t)
		path := filepath.Join(dir, "s1.jsonl")
		write(t, path, string(orig), 0o644)
		line := fmt.Sprintf(`{"type":"custom","id":"gw%d","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z"}`, i)
		span := (full + full/4) / trials
		delay := time.Duration(i)*span + time.Duration(rng.Int63n(int64(span)))
		appended := make(chan error, 1)
		go func() {
			time.Sleep(delay)
			appended <- appendLine(path, line)
		}()
		res := RepairFile(context.Background(), dir, path, Options{}, nil)
		if err := <-appended; err != nil {
			t.Fatal(err)
		}
		got := read(t, path)
		if res.Status != StatusRepaired || got != string(want)+line+"\n" {
			t.Fatalf("trial %d (append after %v of %v): status %s (%s); line kept: %v; file is %d bytes, want %d",
				i, delay, full, res.Status, res.Reason, bytes.Contains([]byte(got), []byte(line)), len(got), len(want)+len(line)+1)
		}
		for _, n := range res.Notes {
			if bytes.Contains([]byte(n.What), []byte("carried over")) {
				carried++
			}
		}
		remove()
	}
	t.Logf("%d trials over a %v repair of %d bytes: the line was appended during the repair and carried over in %d", trials, full, len(orig), carried)
	if carried == 0 {
		t.Errorf("no append landed inside a repair: the append points are not spread")
	}
}

// openClawAppender appends line to path the way OpenClaw 2026.6.11 does: it takes path's
// write lock (O_EXCL create), and when the lock exists it waits, unless OpenClaw would take
// it over: a stale lock, or a live holder whose command line does not look like OpenClaw
// ("non-openclaw-owner"). It returns when it held the lock.
func openClawAppender(path, line string, timeout time.Duration) (time.Time, error) {
	lock := store.LockPath(path)
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			fmt.Fprintf(f, "{\n  \"pid\": %d,\n  \"createdAt\": %q\n}\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339Nano))
			f.Close()
			at := time.Now()
			err := appendLine(path, line)
			os.Remove(lock)
			return at, err
		}
		l, ierr := store.InspectLockFile(lock, store.LockOptions{RequireOpenClawOwner: true})
		if ierr == nil && l.Stale {
			os.Remove(lock) // what OpenClaw's remove-if-unchanged does for these reasons
			continue
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Time{}, errors.New("timed out waiting for the lock")
}

// issue 10, scope 1: while clawdoctor repairs, its lock makes an OpenClaw-style writer wait:
// the writer gets the lock only after the repair finished, and its line follows the repaired
// content. A lock naming clawdoctor's own process would not do: OpenClaw takes it over.
func TestRepairLockMakesAGatewayWait(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 200 MiB: skipped with -short")
	}
	self := store.InspectLock([]byte(fmt.Sprintf(`{"pid":%d,"createdAt":%q}`, os.Getpid(), time.Now().UTC().Format(time.RFC3339Nano))),
		store.LockOptions{RequireOpenClawOwner: true})
	if !self.Stale {
		t.Fatalf("a lock naming this test process is respected by OpenClaw's rules (%+v): the helper would be needless", self)
	}
	orig, _ := crashInput(liveSize(), 8)
	want, _ := repairBytes(t, orig, Options{})
	for i, delay := range []time.Duration{50 * time.Millisecond, 300 * time.Millisecond} {
		dir, remove := liveDir(t)
		path := filepath.Join(dir, "s1.jsonl")
		write(t, path, string(orig), 0o644)
		line := fmt.Sprintf(`{"type":"custom","id":"gw%d","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z"}`, i)
		type got struct {
			at  time.Time
			err error
		}
		appended := make(chan got, 1)
		var replaced time.Time
		opts := Options{Phase: func(ph string) {
			switch ph {
			case "planned":
				go func() {
					at, err := openClawAppender(path, line, time.Minute)
					appended <- got{at, err}
				}()
				time.Sleep(delay) // the writer now waits on the lock
			case "replaced":
				replaced = time.Now() // the repaired file is in place: the last content write
			}
		}}
		res := RepairFile(context.Background(), dir, path, opts, nil)
		ended := time.Now()
		a := <-appended
		if a.err != nil {
			t.Fatal(a.err)
		}
		// The writer must get the lock only after the repaired file replaced the old one.
		// Not "after RepairFile returned": the lock is released (its holder process stopped,
		// the file removed) on the way out, and under load the return came up to 77 ms after
		// a writer had rightly taken the released lock (stop 18's failure).
		if res.Status != StatusRepaired || replaced.IsZero() || a.at.Before(replaced) {
			t.Fatalf("writer got the lock %v before the repaired file was in place (%v before the repair returned; status %s %s)",
				replaced.Sub(a.at), ended.Sub(a.at), res.Status, res.Reason)
		}
		if b := read(t, path); b != string(want)+line+"\n" {
			t.Fatalf("the writer's line is not right after the repaired content (%d bytes)", len(b))
		}
		if _, err := os.Lstat(path + ".lock"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("lock left behind: %v", err)
		}
		remove()
	}
}

// issue 31, scope 1: a writer that ignores the lock appends one line to the old file in the
// instant between the last tail check and the rename (it lands in the old inode) and, the
// fast writer, one more to the new file right after the rename, so the first can no longer be
// carried. Whatever device the backup dir is on, every line ends in the live file or in the
// backup, and the reason names the file that holds it. On main the cross-device case lost the
// first line (the backup was a copy made before it, the old file unlinked) while the reason
// said it was in the backup.
func TestRepairKeepsRenameRaceLinesWithAnyBackupDir(t *testing.T) {
	shm, err := os.MkdirTemp("/dev/shm", "repair-race-")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	defer os.RemoveAll(shm)
	for _, tc := range []struct {
		name   string
		backup func(t *testing.T) string // "" for beside the file
		fast   bool                      // a second line right after the rename
	}{
		{"beside, one line", func(*testing.T) string { return "" }, false},
		{"beside, fast writer", func(*testing.T) string { return "" }, true},
		{"same device dir, fast writer", func(t *testing.T) string { return t.TempDir() }, true},
		{"other device dir, one line", func(t *testing.T) string { return filepath.Join(shm, t.Name()) }, false},
		{"other device dir, fast writer", func(t *testing.T) string { return filepath.Join(shm, t.Name()) }, true},
	} {
		for _, twoPass := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/twoPass=%v", tc.name, twoPass), func(t *testing.T) {
				dir := sessionsDir(t)
				path := filepath.Join(dir, "s1.jsonl")
				write(t, path, damaged, 0o644)
				bd := tc.backup(t)
				if strings.HasPrefix(bd, shm) && linkable(t, path, shm) {
					t.Skip("/dev/shm is on the same device here")
				}
				lineA := `{"type":"custom","id":"raceA","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z"}`
				lineB := `{"type":"custom","id":"raceB","parentId":"raceA","timestamp":"2026-01-01T00:00:01.000Z"}`
				opts := testOpts()
				opts.BackupDir = bd
				opts.SynthesizeHeader = twoPass // the planning pass before the write (not the overlapped one)
				opts.Phase = func(ph string) {
					switch {
					case ph == "renaming":
						if err := appendLine(path, lineA); err != nil {
							t.Error(err)
						}
					case ph == "replaced" && tc.fast:
						if err := appendLine(path, lineB); err != nil {
							t.Error(err)
						}
					}
				}
				res := RepairFile(context.Background(), dir, path, opts, nil)
				live := read(t, path)
				var backup string
				if res.BackupPath != "" {
					backup = read(t, res.BackupPath)
				}
				for _, l := range []string{lineA, lineB} {
					if l == lineB && !tc.fast {
						continue
					}
					if !strings.Contains(live, l) && !strings.Contains(backup, l) {
						t.Errorf("line %s lost: in neither the live file nor the backup %s (status %s: %s)", l[:30], res.BackupPath, res.Status, res.Reason)
					}
				}
				if !tc.fast {
					if res.Status != StatusRepaired || !strings.HasSuffix(live, lineA+"\n") {
						t.Errorf("the line appended during the rename is not carried: status %s (%s)\n%s", res.Status, res.Reason, live)
					}
					return
				}
				if res.Status != StatusFailed {
					t.Fatalf("status %s, want failed (the first line could not be carried): %s", res.Status, res.Reason)
				}
				if !strings.Contains(res.Reason, res.BackupPath) || !strings.Contains(backup, lineA) {
					t.Errorf("the reason %q names the backup %s, which does not hold the line", res.Reason, res.BackupPath)
				}
				if !strings.HasPrefix(backup, damaged) {
					t.Errorf("the backup no longer starts with the original bytes:\n%s", backup)
				}
				if !strings.HasSuffix(live, lineB+"\n") {
					t.Errorf("the fast writer's line is not at the end of the live file:\n%s", live)
				}
			})
		}
	}
}

// linkable reports whether file can be hard-linked into dir (the two are on one device).
func linkable(t *testing.T, file, dir string) bool {
	probe := filepath.Join(dir, ".link-probe")
	err := os.Link(file, probe)
	os.Remove(probe)
	return err == nil
}

// issue 31, scope 1: a transcript whose lock an honest writer holds for a moment is waited
// for and repaired (the dry run and the real run); one held past Options.LockWait is skipped
// as busy, the reason naming the holder's pid, the lock and the wait.
func TestRepairWaitsForABriefLock(t *testing.T) {
	for _, dry := range []bool{true, false} {
		for _, tc := range []struct {
			name    string
			hold    time.Duration // how long the writer holds the lock after the repair starts
			wait    time.Duration
			repairs bool
		}{
			{"released within the wait", 300 * time.Millisecond, 5 * time.Second, true},
			{"held past the wait", 10 * time.Second, 200 * time.Millisecond, false},
			{"no wait", 300 * time.Millisecond, 0, false},
		} {
			t.Run(fmt.Sprintf("%s/dry=%v", tc.name, dry), func(t *testing.T) {
				dir := sessionsDir(t)
				path := filepath.Join(dir, "s1.jsonl")
				write(t, path, damaged, 0o644)
				lock := store.LockPath(path)
				write(t, lock, fmt.Sprintf("{\n  \"pid\": %d,\n  \"createdAt\": %q\n}\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339Nano)), 0o644)
				released := make(chan struct{})
				timer := time.AfterFunc(tc.hold, func() { os.Remove(lock); close(released) })
				defer timer.Stop()
				opts := testOpts()
				opts.DryRun, opts.LockWait = dry, tc.wait
				start := time.Now()
				res := RepairFile(context.Background(), dir, path, opts, nil)
				took := time.Since(start)
				if tc.repairs {
					if res.Status != StatusRepaired || res.Busy {
						t.Fatalf("status %s (%s), want repaired once the lock was released", res.Status, res.Reason)
					}
					if took < tc.hold-50*time.Millisecond {
						t.Errorf("repaired after %v, before the writer released its lock (%v)", took, tc.hold)
					}
					return
				}
				if res.Status != StatusSkipped || !res.Busy {
					t.Fatalf("status %s busy=%v (%s), want skipped as busy", res.Status, res.Busy, res.Reason)
				}
				for _, want := range []string{fmt.Sprint(os.Getpid()), lock} {
					if !strings.Contains(res.Reason, want) {
						t.Errorf("reason %q does not name %s", res.Reason, want)
					}
				}
				if tc.wait > 0 && !strings.Contains(res.Reason, "after waiting "+tc.wait.String()) {
					t.Errorf("reason %q does not say how long it waited", res.Reason)
				}
				if took > tc.wait+2*time.Second {
					t.Errorf("gave up after %v, the wait is %v", took, tc.wait)
				}
				if read(t, path) != damaged {
					t.Error("the busy transcript was written")
				}
			})
		}
	}
}

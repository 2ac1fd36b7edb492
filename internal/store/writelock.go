package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/safefile"
)

// WriteLock is a transcript write lock held the way OpenClaw 2026.6.11 takes one
// (acquireSessionWriteLock over @openclaw/fs-safe's sidecar lock): the file
// "<realpath(dir)>/<name>.lock", created with O_EXCL, holding
// JSON.stringify({pid, createdAt, starttime}, null, 2) + "\n". A gateway that wants to append
// to the transcript meanwhile waits for it (up to its acquire timeout, 60 s by default).
//
// OpenClaw takes over a lock whose live holder's command line does not look like OpenClaw
// ("non-openclaw-owner"), which a plain `clawdoctor repair` would be. So the pid in the file
// is a small helper process, "sh -c ... clawdoctor-lock-holder openclaw", that lives exactly
// as long as the lock: it exits when clawdoctor releases the lock or dies (its stdin closes),
// after which any OpenClaw sees a dead pid and removes the lock.
type WriteLock struct {
	Path string // the lock file
	PID  int    // the pid written into it
	// Helper is false when no helper could be started and clawdoctor's own pid is in the
	// file; OpenClaw 2026.6.11 then treats the lock as "non-openclaw-owner" and may take it.
	Helper bool
	// Removed says which temps of killed runs, of the lock and of the transcript, the
	// acquisition removed (RemoveStaleTemps), for the caller's report.
	Removed []string

	raw     []byte
	info    os.FileInfo
	holder  *holder
	untrack func()
	done    bool
}

// LockPath is the lock file OpenClaw uses for transcript: its directory's real path joined
// with "<name>.lock".
func LockPath(transcript string) string {
	abs, err := filepath.Abs(transcript)
	if err != nil {
		abs = transcript
	}
	dir := filepath.Dir(abs)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return filepath.Join(dir, filepath.Base(abs)+".lock")
}

// ErrBadLock marks a lock file that is not a regular file (a directory, a FIFO): OpenClaw
// can neither take nor release such a lock (reading a FIFO even hangs it), so nothing may
// write the transcript until a person removes it.
var ErrBadLock = errors.New("lock file is not a regular file; remove it by hand")

// LockedError is returned by AcquireWriteLock when a live process holds the lock.
type LockedError struct {
	Lock Lock
}

func (e *LockedError) Error() string {
	l := e.Lock
	switch {
	case l.PID > 0 && l.Stale:
		return fmt.Sprintf("locked by live process %d (%s; stale by OpenClaw's rules: %s, but its process is alive)", l.PID, l.Path, strings.Join(l.Reasons, ", "))
	case l.PID > 0:
		return fmt.Sprintf("locked by live process %d (%s)", l.PID, l.Path)
	case l.Note != "":
		return fmt.Sprintf("held by a fresh lock: %s (%s)", l.Note, l.Path)
	}
	return fmt.Sprintf("%v (%s)", ErrLocked, l.Path)
}

func (e *LockedError) Unwrap() error { return ErrLocked }

// AcquireWriteLock takes transcript's write lock. An existing lock is removed and retaken only
// when OpenClaw itself would remove it (dead, recycled or missing pid, an unusable payload
// older than the grace period), and only if it did not change meanwhile; any other existing
// lock gives a *LockedError. staleAfter is the threshold of session.writeLock.staleMs (0: 30
// minutes). Release the lock with Release; a forced exit releases it through safefile.Abort.
// Once it holds the lock it removes the stale temps of the lock and of the transcript, as
// temps lists them (nil: a listing of their directory now; a run that locks many transcripts
// of one directory passes its own, see Temps).
func AcquireWriteLock(transcript string, staleAfter time.Duration, temps *Temps) (*WriteLock, error) {
	path := LockPath(transcript)
	h, herr := startHolder()
	pid := os.Getpid()
	if herr == nil {
		pid = h.pid
	}
	for attempt := 0; ; attempt++ {
		l, err := createLock(path, pid)
		if err == nil {
			l.holder, l.Helper = h, h != nil
			l.untrack = safefile.Track(l.abort)
			// with the lock held: the temps of dead runs, of the lock (see createLock) and of
			// the transcript (under the lock's real directory, as the lock)
			l.Removed = temps.RemoveStale(path, filepath.Join(filepath.Dir(path), filepath.Base(transcript)))
			return l, nil
		}
		if !errors.Is(err, os.ErrExist) || attempt >= 3 {
			h.stop()
			return nil, err
		}
		if err := removeIfOpenClawWould(path, staleAfter); err != nil {
			h.stop()
			return nil, err
		}
	}
}

func createLock(path string, pid int) (*WriteLock, error) {
	// OpenClaw opens the lock with "wx" and then writes it; a clawdoctor killed between the two
	// left an empty lock, which OpenClaw waits a grace period on before it removes it (1 of 3
	// runs of TestKillDoctorAndCleanup when the machine was busy). Ours appears whole or not at
	// all (safefile.Create: a fsynced temp hard-linked to the name, which fails on an existing
	// one as "wx" does). A run killed between the link and the temp's removal leaves the temp
	// (".<name>.lock.clawdoctor-<pid>-*.tmp", a copy of the lock's payload): the next
	// acquisition of the lock removes it once its pid is dead (WriteLock.Removed), as writers
	// do with theirs.
	raw := lockPayload(pid, time.Now())
	err := safefile.Create(path, 0o644, func(w io.Writer) error {
		_, err := w.Write(raw)
		return err
	})
	if errors.Is(err, os.ErrExist) {
		return nil, err
	}
	var info os.FileInfo
	if err == nil {
		info, err = os.Lstat(path)
	}
	if err != nil {
		if b, rerr := os.ReadFile(path); rerr == nil && bytes.Equal(b, raw) {
			os.Remove(path) // linked, then the directory's sync failed: ours to take back
		}
		return nil, fmt.Errorf("write lock %s: %w", path, err)
	}
	return &WriteLock{Path: path, PID: pid, raw: raw, info: info}, nil
}

// lockPayload is OpenClaw's payload, key order and formatting included.
func lockPayload(pid int, now time.Time) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n  \"pid\": %d,\n  \"createdAt\": %q", pid, now.UTC().Format("2006-01-02T15:04:05.000Z"))
	if st, err := procStartTime(pid); err == nil {
		fmt.Fprintf(&b, ",\n  \"starttime\": %d", st)
	}
	b.WriteString("\n}\n")
	return b.Bytes()
}

// removeIfOpenClawWould removes the lock at path when OpenClaw's contended-lock rule
// (shouldRemoveContendedLockFile) would: stale for a reason other than age alone, and an
// unusable payload only once the file is older than the grace period. It returns a
// *LockedError otherwise. The lock is removed only if its bytes and identity did not change
// since they were inspected.
func removeIfOpenClawWould(path string, staleAfter time.Duration) error {
	before, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil // released meanwhile: try again
	}
	if err != nil {
		return err
	}
	raw, err := readLockBytes(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if errors.Is(err, safefile.ErrNotRegular) {
		return fmt.Errorf("%w: %v", ErrBadLock, err)
	}
	if err != nil {
		return err
	}
	l := InspectLock(raw, LockOptions{StaleAfter: staleAfter, ModTime: before.ModTime()})
	l.Path = path
	if !l.Stale || onlyAgeReasons(l.Reasons) {
		return &LockedError{Lock: l}
	}
	after, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	again, err := readLockBytes(path)
	if err != nil || !os.SameFile(before, after) || !bytes.Equal(raw, again) {
		return nil // someone took or changed it: look again
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove stale lock %s: %w", path, err)
	}
	return nil
}

// onlyAgeReasons reports OpenClaw's report-only stale reasons: a lock that is merely old
// while its pid lives is not taken over.
func onlyAgeReasons(rs []string) bool {
	for _, r := range rs {
		if r != reasonTooOld {
			return false
		}
	}
	return true
}

func readLockBytes(path string) ([]byte, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 4096))
}

// Release removes the lock file if it is still the one written (same file, same bytes) and
// stops the helper. It is safe to call more than once.
func (l *WriteLock) Release() error {
	if l == nil || l.done {
		return nil
	}
	l.done = true
	if l.untrack != nil {
		l.untrack()
	}
	err := l.removeFile()
	l.holder.stop()
	return err
}

// abort is Release for a forced exit (safefile.Abort): the file goes and the helper is killed
// without waiting for it.
func (l *WriteLock) abort() {
	l.removeFile()
	l.holder.kill()
}

func (l *WriteLock) removeFile() error {
	if st, err := os.Lstat(l.Path); err == nil && os.SameFile(st, l.info) {
		if cur, err := readLockBytes(l.Path); err == nil && bytes.Equal(cur, l.raw) {
			if err := os.Remove(l.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("release lock %s: %w", l.Path, err)
			}
		}
	}
	return nil
}

// WaitLock calls held until it reports the lock free, wait has passed or ctx has ended, and
// reports whether the lock is still held. With wait 0 it asks once. It retries as store.md
// §6.4 says OpenClaw's own acquirers do (a gateway holds a transcript's lock while it appends): after 50 ms × attempt, at most 1 s apart.
func WaitLock(ctx context.Context, wait time.Duration, held func() bool) bool {
	deadline := time.Now().Add(wait)
	for attempt := 1; held(); attempt++ {
		left := time.Until(deadline)
		if wait <= 0 || left <= 0 || ctx.Err() != nil {
			return true
		}
		t := time.NewTimer(min(time.Duration(attempt)*50*time.Millisecond, time.Second, left))
		select {
		case <-ctx.Done():
			t.Stop()
			return true
		case <-t.C:
		}
	}
	return false
}

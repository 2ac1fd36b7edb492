package audit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

// checkLock reports one lock file as lock.live or lock.stale, with the staleness rules of
// store.md §6.3 (store.InspectLockFile: dead or recycled pid, too old, no payload, ...).
// A lock file that is not a regular file (a FIFO, a directory) cannot be read: it is returned
// as an error, for the unreadable list (OpenClaw can neither take nor release such a lock).
func checkLock(path string, now time.Time, add func(Finding)) error {
	l, err := store.InspectLockFile(path, store.LockOptions{Now: now, StaleAfter: store.LockStaleAfter(os.Getenv, 0)})
	if errors.Is(err, os.ErrNotExist) {
		return nil // gone since the listing: nothing to report
	}
	if err != nil {
		return err
	}
	ev := map[string]any{"pid": l.PID, "alive": l.Alive, "ageMs": l.AgeMs}
	if !l.CreatedAt.IsZero() {
		ev["createdAt"] = l.CreatedAt.UTC().Format(time.RFC3339Nano)
	}
	if l.Note != "" {
		ev["note"] = l.Note
	}
	target := strings.TrimSuffix(filepath.Base(path), ".lock")
	if !l.Stale {
		add(newFinding("lock.live", path, 0, "", fmt.Sprintf("%s is locked by a live process (pid %d): a gateway or agent is writing it now", target, l.PID), "Do not repair or clean this sessions dir until it stops", ev))
		return nil
	}
	ev["reasons"] = l.Reasons
	add(newFinding("lock.stale", path, 0, "", fmt.Sprintf("lock on %s is stale (%s): its owner is gone, and OpenClaw waits up to 60 s on it before taking over", target, strings.Join(l.Reasons, ", ")), "Run: clawdoctor doctor --fix (it moves the lock to the backup dir)", ev))
	return nil
}

package repair

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

// liveLock reports whether path has a "<path>.lock" held by a live process (store.md §6.3,
// via store.InspectLockFile), with a reason for the report; unusable is set for a lock that
// cannot be read (a FIFO, a directory), which no writer will release.
func liveLock(path string, now time.Time) (live, unusable bool, why string) {
	lp := path + ".lock"
	if _, err := os.Lstat(lp); err != nil {
		return false, false, ""
	}
	l, err := store.InspectLockFile(lp, store.LockOptions{Now: now})
	if err != nil {
		return true, true, fmt.Sprintf("lock %s unreadable: %v", lp, err)
	}
	if l.Stale {
		return false, false, ""
	}
	if l.PID > 0 {
		return true, false, fmt.Sprintf("locked by live process %d (%s)", l.PID, lp)
	}
	why = "held by a fresh lock without payload"
	if l.Note != "" {
		why = l.Note
	}
	return true, false, fmt.Sprintf("%s (%s)", why, lp)
}

// refusal names why the writer's one rule (store.CheckWrite) refuses to write the sessions dir
// of a transcript (transcript set) or its sessions.json (transcript ""), or "".
func refusal(sessionsDir, transcript string, opts Options) string {
	err := store.CheckWrite(store.WriteScope{SessionsDir: sessionsDir, Transcript: transcript, Now: opts.now(),
		LockStale: opts.LockStale, Force: opts.Force, FollowSymlinks: opts.FollowSymlinks})
	if err != nil {
		return "refused: " + err.Error()
	}
	return ""
}

// IsTranscriptName reports whether a file name in a sessions dir is a transcript repair
// handles: live and topic transcripts, checkpoints, and .reset./.deleted. archives
// (plain or compressed), as store.Classify names them. Backups (.bak-, .bak.), trajectories, locks,
// temps and foreign files are not.
func IsTranscriptName(name string) bool {
	if strings.HasPrefix(name, ".") {
		return false
	}
	switch store.Classify(name).Kind {
	case store.KindTranscript, store.KindTopic, store.KindCheckpoint,
		store.KindResetArchive, store.KindDeletedArchive:
		return true
	}
	return false
}

// waited says how long a lock still held at the end was waited for, for a skip reason.
func waited(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return fmt.Sprintf(", still held after waiting %v", d)
}

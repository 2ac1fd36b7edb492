package retention

import (
	"time"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

// Refusal says why cleanup must not write the store of sessionsDir, or "" when it may: the one
// write rule of every writer (store.CheckWrite): always for a SQLite-era agent or a sessions
// dir reached through a symlink out of the state dir (unless followSymlinks), and, unless
// force, while a live lock or a running gateway process shows that something is writing.
func Refusal(sessionsDir, stateDir string, now time.Time, force, followSymlinks bool) string {
	err := store.CheckWrite(store.WriteScope{SessionsDir: sessionsDir, StateDir: stateDir, Now: now,
		Force: force, FollowSymlinks: followSymlinks})
	if err != nil {
		return err.Error()
	}
	return ""
}

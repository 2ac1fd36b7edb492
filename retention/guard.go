package retention

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clawdoctor/clawdoctor/store"
)

// ErrGatewayLive is returned when a gateway seems to hold the store (use --force to override).
var ErrGatewayLive = errors.New("a running gateway holds this store")

// LiveLock describes a lock that a live process holds.
type LiveLock struct {
	Path   string
	PID    int
	Reason string
}

// LiveLocks lists the transcript and store locks in sessionsDir that are not stale under
// OpenClaw's rules (store.InspectLockFile: pid alive, start time matching, younger than the
// staleness threshold of $OPENCLAW_SESSION_WRITE_LOCK_STALE_MS or 30 minutes).
func LiveLocks(sessionsDir string, now time.Time) []LiveLock {
	ents, _ := os.ReadDir(sessionsDir)
	var out []LiveLock
	for _, de := range ents {
		n := store.Classify(de.Name())
		if !n.Kind.IsLock() || !de.Type().IsRegular() {
			continue
		}
		p := filepath.Join(sessionsDir, de.Name())
		opts := store.LockOptions{Now: now, Store: n.Kind == store.KindStoreLock}
		if !opts.Store {
			opts.StaleAfter = store.LockStaleAfter(os.Getenv, 0)
		}
		l, err := store.InspectLockFile(p, opts)
		if err != nil || l.Stale {
			continue
		}
		out = append(out, LiveLock{Path: p, PID: l.PID,
			Reason: fmt.Sprintf("pid %d alive, lock %s old", l.PID, time.Duration(l.AgeMs)*time.Millisecond)})
	}
	return out
}

// Refusal says why cleanup must not write the store of sessionsDir, or "" when it may: always
// for a SQLite-era agent, and, unless force, while a live lock or a running gateway process
// for stateDir shows that something is writing.
func Refusal(sessionsDir, stateDir string, now time.Time, force bool) string {
	if err := store.CheckJSONEra(sessionsDir); err != nil {
		return err.Error()
	}
	if force {
		return ""
	}
	if locks := LiveLocks(sessionsDir, now); len(locks) > 0 {
		return fmt.Sprintf("%v: %s (%s); use --force to override", ErrGatewayLive, locks[0].Path, locks[0].Reason)
	}
	if gws, _ := store.Gateways(stateDir); len(gws) > 0 {
		return fmt.Sprintf("%v: openclaw gateway process %d (%s) is running; use --force to override",
			ErrGatewayLive, gws[0].PID, strings.Join(gws[0].Args, " "))
	}
	return ""
}

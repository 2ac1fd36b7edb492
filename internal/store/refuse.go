package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

var (
	// ErrSymlinkEscape is returned for a sessions dir that lies inside the state dir by name
	// but is reached through a symlinked agents/<id> or agents/<id>/sessions that points
	// outside it: writing there would change files the state dir does not own.
	ErrSymlinkEscape = errors.New("reached through a symlink that leaves the state dir")
	// ErrGatewayLive is returned while a gateway seems to write the store: a live lock in the
	// sessions dir or a running gateway process for the state dir.
	ErrGatewayLive = errors.New("a running gateway holds this store")
)

// WriteScope is what a writer is about to change, for CheckWrite.
type WriteScope struct {
	SessionsDir string
	// StateDir is the state dir the sessions dir belongs to; "" takes it from the layout
	// <state>/agents/<id>/sessions when the path has it.
	StateDir string
	// Transcript, when set, is the one transcript to be written; the writer takes its write
	// lock itself (AcquireWriteLock), so other files' locks and a running gateway, which then
	// waits for that lock, do not refuse it. Empty means sessions.json or several files.
	Transcript string
	Now        time.Time     // for lock ages; zero is time.Now
	LockStale  time.Duration // session.writeLock.staleMs; 0 is 30 minutes
	// Force lets live locks and a running gateway pass (never the SQLite era or a symlink).
	Force bool
	// FollowSymlinks lets a sessions dir reached through a symlink out of the state dir be
	// written (--follow-symlinks).
	FollowSymlinks bool
}

// CheckWrite is the one refusal rule of every writer (repair, cleanup, doctor, Store.WriteFile):
// it returns nil when the scope may be written, else an error saying why, in this order:
//  1. the agent is in the SQLite era (CheckJSONEra; nothing overrides it);
//  2. the sessions dir is reached through a symlink out of the state dir (ErrSymlinkEscape,
//     unless FollowSymlinks);
//  3. for sessions.json or several files: a live transcript or store lock, or a lock file that
//     is not a regular file, in the sessions dir (ErrGatewayLive or ErrBadLock, unless Force);
//  4. for sessions.json or several files: a running gateway process for the state dir
//     (ErrGatewayLive, unless Force).
//
// A single transcript's own lock is the writer's to take (AcquireWriteLock).
func CheckWrite(w WriteScope) error {
	if err := CheckJSONEra(w.SessionsDir); err != nil {
		return err
	}
	state := w.StateDir
	abs, err := filepath.Abs(w.SessionsDir)
	if err != nil {
		return err
	}
	if _, root, ok := agentOfSessionsDir(abs); ok && state == "" {
		state = root
	}
	if !w.FollowSymlinks {
		if err := symlinkEscape(abs, state); err != nil {
			return err
		}
	}
	if w.Force || w.Transcript != "" {
		return nil
	}
	now := w.Now
	if now.IsZero() {
		now = time.Now()
	}
	locks, err := LiveLocks(abs, now, w.LockStale)
	if err != nil {
		return err
	}
	for _, l := range locks {
		if l.Bad != "" {
			return fmt.Errorf("%s: %w (%s)", l.Path, ErrBadLock, l.Bad)
		}
	}
	if len(locks) > 0 {
		l := locks[0]
		return fmt.Errorf("%w: %s (%w: pid %d alive, lock %s old); use --force to override", ErrGatewayLive, l.Path, ErrLocked, l.PID, time.Duration(l.AgeMs)*time.Millisecond)
	}
	if state != "" {
		if gws, _ := Gateways(state); len(gws) > 0 {
			return fmt.Errorf("%w: openclaw gateway process %d (%s) is running; use --force to override",
				ErrGatewayLive, gws[0].PID, strings.Join(gws[0].Args, " "))
		}
	}
	return nil
}

// symlinkEscape refuses a sessions dir that is inside state by name but not once symlinks are
// resolved. A sessions dir configured outside the state dir (session.store) is not checked: it
// is where the user put it. A symlinked state dir itself is fine.
func symlinkEscape(sessionsDir, state string) error {
	if state == "" {
		return nil
	}
	absState, err := filepath.Abs(state)
	if err != nil || !isWithin(absState, sessionsDir) {
		return nil
	}
	realState, err := filepath.EvalSymlinks(absState)
	if err != nil {
		return nil // no state dir: nothing there to write
	}
	real, err := evalExisting(sessionsDir)
	if err != nil {
		return err
	}
	if real != realState && !isWithin(realState, real) {
		return fmt.Errorf("%s: %w (it resolves to %s, outside %s); pass --follow-symlinks to write there anyway", sessionsDir, ErrSymlinkEscape, real, realState)
	}
	return nil
}

func lockKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&os.ModeSymlink != 0:
		return "a symlink"
	}
	return "not a regular file"
}

// evalExisting resolves the symlinks of the longest existing prefix of p.
func evalExisting(p string) (string, error) {
	real, err := filepath.EvalSymlinks(p)
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p, nil
	}
	r, err := evalExisting(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(r, filepath.Base(p)), nil
}

// LiveLocks lists the transcript and store locks of sessionsDir that a live process holds
// under OpenClaw's rules (InspectLockFile), and lock files that are not regular files (with
// Bad set: OpenClaw can neither take nor release them, so they count as held). staleAfter is the threshold
// of transcript locks (0: OPENCLAW_SESSION_WRITE_LOCK_STALE_MS or 30 minutes).
func LiveLocks(sessionsDir string, now time.Time, staleAfter time.Duration) ([]Lock, error) {
	ents, err := os.ReadDir(sessionsDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if staleAfter <= 0 {
		staleAfter = LockStaleAfter(os.Getenv, 0)
	}
	var out []Lock
	for _, de := range ents {
		n := Classify(de.Name())
		if !n.Kind.IsLock() {
			continue
		}
		p := filepath.Join(sessionsDir, de.Name())
		if !de.Type().IsRegular() {
			out = append(out, Lock{Path: p, Bad: lockKind(de.Type())})
			continue
		}
		opts := LockOptions{Now: now, Store: n.Kind == KindStoreLock}
		if !opts.Store {
			opts.StaleAfter = staleAfter
		}
		l, err := InspectLockFile(p, opts)
		if err != nil || l.Stale {
			continue
		}
		out = append(out, l)
	}
	return out, nil
}

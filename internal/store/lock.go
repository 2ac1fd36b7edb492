package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/safefile"
)

// ErrLocked is returned when a file is held by a live OpenClaw write lock.
var ErrLocked = errors.New("held by a live write lock")

// Lock staleness defaults (store.md §6.1, §6.3, §6.5).
const (
	DefaultLockStale      = 30 * time.Minute // session.writeLock.staleMs
	StoreLockStale        = 30 * time.Second // sessions.json.lock, phases A/B
	payloadGrace          = 5 * time.Second  // ORPHAN_LOCK_PAYLOAD_GRACE_MS
	EnvLockStaleMs        = "OPENCLAW_SESSION_WRITE_LOCK_STALE_MS"
	reasonMissingPID      = "missing-pid"
	reasonDeadPID         = "dead-pid"
	reasonRecycledPID     = "recycled-pid"
	reasonInvalidCreated  = "invalid-createdAt"
	reasonTooOld          = "too-old"
	reasonNonOpenClawUser = "non-openclaw-owner"
)

// LockStaleAfter resolves the staleness threshold of transcript locks: the environment
// variable OPENCLAW_SESSION_WRITE_LOCK_STALE_MS (a positive number), else configMs
// (session.writeLock.staleMs, when positive), else 30 minutes.
func LockStaleAfter(getenv func(string) string, configMs int64) time.Duration {
	if getenv != nil {
		if v := strings.TrimSpace(getenv(EnvLockStaleMs)); v != "" {
			if f, err := strconv.ParseFloat(v, 64); err == nil && f > 0 && !math.IsInf(f, 0) {
				return time.Duration(f * float64(time.Millisecond))
			}
		}
	}
	if configMs > 0 {
		return time.Duration(configMs) * time.Millisecond
	}
	return DefaultLockStale
}

// LockOptions tune InspectLock. The zero value inspects a transcript lock against the real
// processes with the default threshold, at time.Now.
type LockOptions struct {
	Now        time.Time     // zero: time.Now()
	StaleAfter time.Duration // zero: 30 min (30 s with Store)
	// Store applies the sessions.json.lock rules: 30 s threshold, phase-A payload
	// {"pid":N,"startedAt":<ms>} accepted, and an old mtime is enough to be stale.
	Store bool
	// ModTime is the lock file's mtime (set by InspectLockFile).
	ModTime time.Time
	// RequireOpenClawOwner adds "non-openclaw-owner" when the live pid's command line does
	// not look like OpenClaw (later builds do this; off by default, which is the cautious side).
	RequireOpenClawOwner bool

	// Alive, StartTime and Cmdline read the process table; nil uses the real one.
	Alive     func(pid int) bool
	StartTime func(pid int) (int64, error)
	Cmdline   func(pid int) ([]string, error)
}

// Lock is what InspectLock found.
type Lock struct {
	Path      string    `json:"path,omitempty"`
	PID       int       `json:"pid,omitempty"`
	CreatedAt time.Time `json:"created_at,omitzero"`
	Starttime int64     `json:"starttime,omitempty"`
	AgeMs     int64     `json:"age_ms"`
	Alive     bool      `json:"alive"`
	// Stale is true when at least one reason applies; a lock that is not stale must be
	// respected (the session is busy).
	Stale   bool     `json:"stale"`
	Reasons []string `json:"reasons,omitempty"`
	// Note explains a decision that is not a reason (e.g. a fresh payload-less lock).
	Note string `json:"note,omitempty"`
	// Bad says why the lock file is unusable (not a regular file): OpenClaw can neither take
	// nor release it, so it counts as held until a person removes it (see ErrBadLock).
	Bad string `json:"bad,omitempty"`
}

// InspectLock decides whether a lock with this payload is stale, with OpenClaw's reasons
// (store.md §6.3): missing-pid, dead-pid, recycled-pid (starttime differs), invalid-createdAt,
// too-old, and optionally non-openclaw-owner. A payload-less lock younger than
// min(StaleAfter, 5 s) is not stale yet: its writer may be between create and write.
func InspectLock(payload []byte, opts LockOptions) Lock {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	staleAfter := opts.StaleAfter
	if staleAfter <= 0 {
		staleAfter = DefaultLockStale
		if opts.Store {
			staleAfter = StoreLockStale
		}
	}
	alive, startTime, cmdline := opts.Alive, opts.StartTime, opts.Cmdline
	if alive == nil {
		alive = pidAlive
	}
	if startTime == nil {
		startTime = procStartTime
	}
	if cmdline == nil {
		cmdline = processArgs
	}

	var l Lock
	var p struct {
		PID       json.RawMessage `json:"pid"`
		CreatedAt json.RawMessage `json:"createdAt"`
		StartedAt json.RawMessage `json:"startedAt"`
		Starttime json.RawMessage `json:"starttime"`
	}
	_ = json.Unmarshal(payload, &p) // a malformed payload leaves every field empty

	if pid, ok := positiveInt(p.PID); ok && pid <= math.MaxInt32 {
		l.PID = int(pid)
		l.Alive = alive(l.PID)
		if !l.Alive {
			l.Reasons = append(l.Reasons, reasonDeadPID)
		}
	} else {
		l.Reasons = append(l.Reasons, reasonMissingPID)
	}
	if st, ok := positiveInt(p.Starttime); ok {
		l.Starttime = st
		if l.Alive {
			if cur, err := startTime(l.PID); err == nil && cur != st {
				l.Reasons = append(l.Reasons, reasonRecycledPID)
			}
		}
	}
	var s string
	if json.Unmarshal(p.CreatedAt, &s) == nil {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			l.CreatedAt = t.UTC()
		}
	}
	if l.CreatedAt.IsZero() && opts.Store {
		if ms, ok := positiveInt(p.StartedAt); ok {
			l.CreatedAt = time.UnixMilli(ms).UTC()
		}
	}
	ref := l.CreatedAt
	if ref.IsZero() {
		l.Reasons = append(l.Reasons, reasonInvalidCreated)
		if opts.Store {
			ref = opts.ModTime // phase A judged the store lock by its mtime
		}
	}
	if !ref.IsZero() {
		l.AgeMs = now.Sub(ref).Milliseconds()
		if now.Sub(ref) > staleAfter {
			l.Reasons = append(l.Reasons, reasonTooOld)
		}
	}
	if opts.RequireOpenClawOwner && l.Alive && !hasReason(l.Reasons, reasonRecycledPID) {
		if argv, err := cmdline(l.PID); err == nil && !LooksLikeOpenClaw(argv) {
			l.Reasons = append(l.Reasons, reasonNonOpenClawUser)
		}
	}
	l.Stale = len(l.Reasons) > 0
	if l.Stale && onlyPayloadReasons(l.Reasons) && !opts.ModTime.IsZero() {
		grace := min(staleAfter, payloadGrace)
		if age := now.Sub(opts.ModTime); age < grace {
			l.Stale = false
			l.Note = fmt.Sprintf("no usable payload but the file is only %s old: its writer may still be filling it", age.Round(time.Millisecond))
		}
	}
	return l
}

func hasReason(rs []string, r string) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

func onlyPayloadReasons(rs []string) bool {
	for _, r := range rs {
		if r != reasonMissingPID && r != reasonInvalidCreated {
			return false
		}
	}
	return true
}

func positiveInt(raw json.RawMessage) (int64, bool) {
	var f float64
	if len(raw) == 0 || json.Unmarshal(raw, &f) != nil || f <= 0 || f != math.Trunc(f) || f > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// InspectLockFile reads and inspects the lock at path (see InspectLock); opts.ModTime is
// taken from the file. A name of sessions.json.lock implies opts.Store.
func InspectLockFile(path string, opts LockOptions) (Lock, error) {
	if st, err := os.Lstat(path); err != nil {
		return Lock{}, err
	} else if err := safefile.NotRegular(path, st.Mode()); err != nil {
		return Lock{}, err
	}
	f, err := safefile.Open(path)
	if err != nil {
		return Lock{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Lock{}, err
	}
	buf := make([]byte, 4096) // a lock payload is ~80 bytes; never read a huge file whole
	n, _ := f.Read(buf)
	opts.ModTime = st.ModTime()
	if filepath.Base(path) == "sessions.json.lock" {
		opts.Store = true
	}
	l := InspectLock(buf[:n], opts)
	l.Path = path
	return l, nil
}

package agentdb

import (
	"errors"
	"fmt"
)

// Conditions callers branch on (commands map them to exit codes: a database that cannot be
// read consistently is a partial run, exit 3; one that cannot be read at all is exit 4).
var (
	// ErrNotDatabase: the file is not a SQLite database (damaged, truncated or something else).
	ErrNotDatabase = errors.New("not a SQLite database (damaged or not a database file)")
	// ErrCorrupt: SQLite read the file but found it malformed.
	ErrCorrupt = errors.New("database is malformed")
	// ErrUnknownSchema: the schema is newer than clawdoctor knows, or lacks a table or column
	// it needs.
	ErrUnknownSchema = errors.New("unknown database schema")
	// ErrBusy: the files kept changing while a consistent copy was taken (a gateway writing
	// hard), or changed under an in-place read.
	ErrBusy = errors.New("database is being written")
	// ErrMissingWAL: the -shm file says committed transactions sit in a write-ahead log that
	// is missing or shorter than they need; reading the main file alone would lose them.
	ErrMissingWAL = errors.New("write-ahead log missing")
	// ErrEvent: one transcript event could not be decoded (a truncated or damaged zstd
	// frame, a size that does not match).
	ErrEvent = errors.New("transcript event unreadable")
	// ErrArchiveHash: an archived transcript (in the database or in cold storage) does not
	// match its registered sha256 or size, or is missing: OpenClaw refuses to read it.
	ErrArchiveHash = errors.New("archive failed verification")
	// ErrNoSessions: the database holds no session tables (an auth/memory-only database of a
	// JSONL-era install).
	ErrNoSessions = errors.New("database holds no sessions")
)

// Error reports a problem with one database, and when known one session and event.
type Error struct {
	Path    string // the user's database file
	Session string // session id, "" when not about one session
	Seq     int64  // event seq; -1 when not about one event
	Err     error
}

func (e *Error) Error() string {
	switch {
	case e.Session != "" && e.Seq >= 0:
		return fmt.Sprintf("%s: session %s, event seq %d: %v", e.Path, e.Session, e.Seq, e.Err)
	case e.Session != "":
		return fmt.Sprintf("%s: session %s: %v", e.Path, e.Session, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

func dbErr(path string, err error) error {
	return &Error{Path: path, Seq: -1, Err: err}
}

// wrapf keeps the sentinel for errors.Is and adds the detail.
func wrapf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
}

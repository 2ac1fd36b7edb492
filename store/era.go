package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrSQLiteEra is returned when the agent's sessions live in SQLite (OpenClaw 2026.8+,
// store.md §0, users-and-peers.md §0.1): sessions.json and the JSONL files are then migration
// input, not the live store, and every writer must refuse to change them.
var ErrSQLiteEra = errors.New("the agent's sessions are in SQLite (OpenClaw 2026.8+): JSONL files are not the live store; use `openclaw doctor --session-sqlite` instead")

// Era says whether a sessions dir belongs to the file era or the SQLite era.
type Era struct {
	SQLite bool `json:"sqlite"`
	// Evidence lists the files that show the SQLite era.
	Evidence []string `json:"evidence,omitempty"`
}

// DetectEra looks for the SQLite-era markers of the agent owning sessionsDir:
// <agent>/agent/openclaw-agent.sqlite (and its -wal), <state>/state/openclaw.sqlite and the
// sessions dir's session-sqlite-import-archive/ left by `openclaw doctor --fix`.
func DetectEra(sessionsDir string) Era {
	abs, err := filepath.Abs(sessionsDir)
	if err != nil {
		abs = sessionsDir
	}
	candidates := []string{filepath.Join(abs, "session-sqlite-import-archive")}
	agentDir := filepath.Dir(abs)
	candidates = append(candidates,
		filepath.Join(agentDir, "agent", "openclaw-agent.sqlite"),
		filepath.Join(agentDir, "agent", "openclaw-agent.sqlite-wal"))
	if _, root, ok := agentOfSessionsDir(abs); ok {
		candidates = append(candidates, filepath.Join(root, "state", "openclaw.sqlite"))
	}
	var e Era
	for _, c := range candidates {
		if _, err := os.Lstat(c); err == nil {
			e.SQLite = true
			e.Evidence = append(e.Evidence, c)
		}
	}
	return e
}

// CheckJSONEra returns an error wrapping ErrSQLiteEra, naming the evidence, when sessionsDir
// is in the SQLite era. Every writer calls it before changing a file.
func CheckJSONEra(sessionsDir string) error {
	if e := DetectEra(sessionsDir); e.SQLite {
		return fmt.Errorf("%s: %w (found %s)", sessionsDir, ErrSQLiteEra, e.Evidence[0])
	}
	return nil
}

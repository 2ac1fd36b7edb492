package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/agentdb"
)

// ErrSQLiteEra is returned when the agent's sessions live in SQLite (OpenClaw 2026.8+,
// store.md §0, users-and-peers.md §0.1): sessions.json and the JSONL files are then migration
// input, not the live store, and every writer must refuse to change them.
var ErrSQLiteEra = errors.New("the agent's sessions are in SQLite (OpenClaw 2026.8+): JSONL files are not the live store; use `openclaw doctor --session-sqlite` instead")

// ErrEraUnknown is returned when the agent has a database that could not be read, so its era
// cannot be told: writers refuse as they would for the SQLite era.
var ErrEraUnknown = errors.New("cannot tell whether the agent's sessions are in SQLite: its database could not be read, so nothing is written")

// ImportArchiveDir is where `openclaw doctor --session-sqlite import` moves the originals,
// inside agents/<id>/.
const ImportArchiveDir = "session-sqlite-import-archive"

// HalfMigratedHint is what to run when a SQLite-era agent still has live JSONL files.
const HalfMigratedHint = "openclaw doctor --session-sqlite dry-run (what import would do), --session-sqlite validate (compare), --session-sqlite import (finish)"

// Era says whether a sessions dir belongs to the file era or the SQLite era, from the one
// piece of evidence that means it: an agent database holding sessions
// (agents/<id>/agent/openclaw-agent.sqlite with user_version >= 4, or the tables
// session_nodes and transcript_events). A real 2026.6.x install also has that file (schema
// 1: auth profiles and the memory index) and a shared state/openclaw.sqlite: neither is
// evidence.
type Era struct {
	SQLite bool `json:"sqlite"`
	// Evidence says what shows the SQLite era ("<db>: schema 23").
	Evidence []string `json:"evidence,omitempty"`
	// DB is the agent database when the file exists, in either era.
	DB          string `json:"db,omitempty"`
	UserVersion int    `json:"user_version,omitempty"`
	AppVersion  string `json:"app_version,omitempty"`
	// Unknown is why the era cannot be told (the database exists but could not be read).
	// Writers refuse then; readers say so.
	Unknown string `json:"unknown,omitempty"`
	// HalfMigrated: SQLite era, yet sessions.json or live transcripts remain in the sessions
	// dir. Legacy lists them (names in the sessions dir, sorted).
	HalfMigrated bool     `json:"half_migrated,omitempty"`
	Legacy       []string `json:"legacy,omitempty"`
	// ImportArchive is agents/<id>/session-sqlite-import-archive when it exists.
	ImportArchive string `json:"import_archive,omitempty"`
	// Notes explain files that look like SQLite-era evidence but are not.
	Notes []string `json:"notes,omitempty"`
}

// ReadOnly reports whether writers must leave the agent alone: the SQLite era, or an era
// that cannot be told.
func (e Era) ReadOnly() bool { return e.SQLite || e.Unknown != "" }

// Summary is one line for people: which era, and why.
func (e Era) Summary() string {
	switch {
	case e.Unknown != "":
		return "era unknown: " + e.Unknown
	case e.SQLite && e.HalfMigrated:
		return fmt.Sprintf("SQLite era, half-migrated: %s beside %s; run %s", strings.Join(firstOf(e.Legacy, 3), ", "), e.Evidence[0], HalfMigratedHint)
	case e.SQLite:
		return "SQLite era (" + strings.Join(e.Evidence, "; ") + ")"
	case len(e.Notes) > 0:
		return "JSONL era (" + strings.Join(e.Notes, "; ") + ")"
	}
	return "JSONL era"
}

// AgentDBPath is the agent database of the agent that owns sessionsDir
// (<agent>/agent/openclaw-agent.sqlite).
func AgentDBPath(sessionsDir string) string {
	abs, err := filepath.Abs(sessionsDir)
	if err != nil {
		abs = sessionsDir
	}
	return filepath.Join(filepath.Dir(abs), "agent", agentdb.FileName)
}

// DetectEra tells the era of the agent owning sessionsDir. It is the one era function every
// command uses; it reads the agent database's header (and its tables only when the header
// says an old schema), never writes, and remembers the answer while the files are unchanged.
func DetectEra(sessionsDir string) Era {
	abs, err := filepath.Abs(sessionsDir)
	if err != nil {
		abs = sessionsDir
	}
	agentDir := filepath.Dir(abs)
	var e Era
	for _, dir := range []string{filepath.Join(agentDir, ImportArchiveDir), filepath.Join(abs, ImportArchiveDir)} {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			e.ImportArchive = dir
			break
		}
	}
	dbPath := AgentDBPath(abs)
	p, err := agentdb.ProbeFile(context.Background(), dbPath)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if e.ImportArchive != "" {
			e.Notes = append(e.Notes, e.ImportArchive+" exists but the agent database does not")
		}
		return e
	case err != nil:
		e.DB, e.Unknown = dbPath, err.Error()
		return e
	}
	e.DB, e.UserVersion, e.AppVersion = dbPath, p.UserVersion, p.Meta.AppVersion
	if !p.Sessions {
		e.Notes = append(e.Notes, fmt.Sprintf("%s has schema %d and no session tables (auth and memory only, as OpenClaw 2026.6 writes it)", dbPath, p.UserVersion))
		return e
	}
	e.SQLite = true
	if p.UserVersion >= agentdb.SessionsSchema {
		e.Evidence = append(e.Evidence, fmt.Sprintf("%s: schema %d", dbPath, p.UserVersion))
	} else {
		e.Evidence = append(e.Evidence, fmt.Sprintf("%s: tables session_nodes and transcript_events", dbPath))
	}
	e.Legacy = legacyFiles(abs)
	e.HalfMigrated = len(e.Legacy) > 0
	return e
}

// legacyFiles lists what the live store of the file era would be: sessions.json and primary
// transcripts. Archives, checkpoints and locks are normal leftovers in the SQLite era.
func legacyFiles(sessionsDir string) []string {
	ents, err := os.ReadDir(sessionsDir)
	if err != nil {
		return nil
	}
	var out []string
	for _, de := range ents {
		if !de.Type().IsRegular() {
			continue
		}
		if k := Classify(de.Name()).Kind; k == KindStore || k.IsPrimary() {
			out = append(out, de.Name())
		}
	}
	sort.Strings(out)
	return out
}

// CheckJSONEra returns an error wrapping ErrSQLiteEra, naming the evidence, when sessionsDir
// is in the SQLite era, and one wrapping ErrEraUnknown when the era cannot be told. Every
// writer calls it before changing a file.
func CheckJSONEra(sessionsDir string) error {
	e := DetectEra(sessionsDir)
	switch {
	case e.SQLite:
		return fmt.Errorf("%s: %w (found %s)", sessionsDir, ErrSQLiteEra, e.Evidence[0])
	case e.Unknown != "":
		return fmt.Errorf("%s: %w: %s", sessionsDir, ErrEraUnknown, e.Unknown)
	}
	return nil
}

func firstOf(list []string, n int) []string {
	if len(list) <= n {
		return list
	}
	return append(append([]string(nil), list[:n]...), fmt.Sprintf("and %d more", len(list)-n))
}

// ErrNoSession is returned by SessionSource for a name no session has.
var ErrNoSession = errors.New("no session with that id or key")

// SessionSource names where the session idOrKey of the agent owning sessionsDir lives, in the
// form every reader takes: for a SQLite-era agent "<db>#<session id>" (agentdb.Ref), else the
// transcript file a sessions.json row with that key or sessionId resolves to, or
// <sessionsDir>/<idOrKey>.jsonl when that file exists.
func SessionSource(sessionsDir, idOrKey string) (string, error) {
	e := DetectEra(sessionsDir)
	if e.Unknown != "" {
		return "", fmt.Errorf("%s: %w: %s", sessionsDir, ErrEraUnknown, e.Unknown)
	}
	if e.SQLite {
		db, err := agentdb.Open(context.Background(), e.DB)
		if err != nil {
			return "", err
		}
		id, err := db.Resolve(context.Background(), idOrKey)
		if cerr := db.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", err
		}
		return agentdb.Ref(e.DB, id), nil
	}
	r := NewResolver(sessionsDir, "", "")
	if st, err := Load(filepath.Join(sessionsDir, StoreFile)); err == nil {
		if e, ok := st.Get(idOrKey); ok {
			return r.Transcript(e).Path, nil
		}
		for _, e := range st.Entries() {
			if e.SessionID() == idOrKey {
				return r.Transcript(e).Path, nil
			}
		}
	}
	if ValidSessionID(idOrKey) {
		if p := filepath.Join(sessionsDir, idOrKey+".jsonl"); fileExists(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w %q", sessionsDir, ErrNoSession, idOrKey)
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

package store

import (
	"context"
	"os"
	"path/filepath"

	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/dbhealth"
)

// DBStats is what the database of a SQLite-era agent holds (AgentStats.DB). It is read from
// the tables' indexes and the files' sizes, never from the event bytes.
type DBStats struct {
	Path       string `json:"path"`
	Schema     int    `json:"schema"`
	AppVersion string `json:"app_version,omitempty"`
	// Nodes are session keys (session_nodes); Archived are those archived in place by
	// maintenance (archived_at set, rows kept).
	Nodes    int `json:"nodes"`
	Archived int `json:"archived_nodes"`
	// Windows are transcript generations (session_windows), ByReason splits them by why each
	// began (initial, reset, rollover, fork, ...; "unset" when NULL).
	Windows  int            `json:"windows"`
	ByReason map[string]int `json:"windows_by_reason"`
	// Sessions are session ids with events; Events their rows.
	Sessions int   `json:"sessions"`
	Events   int64 `json:"events"`
	// Archives are deleted/reset transcripts kept inside the database; Cold the sessions moved
	// to cold storage.
	Archives Count `json:"archives"`
	Cold     int   `json:"cold_archives"`
	// DBBytes and WALBytes are the files' sizes; DiskBytes adds the sessions dir's files:
	// what session.maintenance.maxDiskBytes counts in the SQLite era.
	DBBytes   int64 `json:"db_bytes"`
	WALBytes  int64 `json:"wal_bytes"`
	DiskBytes int64 `json:"disk_bytes"`
	// Error says why the database could not be read (the other counts are then partial).
	Error string `json:"error,omitempty"`
	// Health is whether it is safe to touch now: WAL, locks, file system (dbhealth).
	Health *dbhealth.Report `json:"health,omitempty"`
}

// Health inspects the database at path (agents/<id>/agent/<file>) as dbhealth does, with this
// package's view of the process table.
func Health(path string) *dbhealth.Report {
	stateDir := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(path))))
	r := dbhealth.Inspect(stateDir, path, dbhealth.Options{Alive: PIDAlive, StartTime: ProcStartTime, Args: ProcessArgs})
	return &r
}

// readDBStats fills the DBStats of path; sessionsBytes is the size of the sessions dir's files.
func readDBStats(ctx context.Context, path string, sessionsBytes int64) *DBStats {
	s := &DBStats{Path: path, ByReason: map[string]int{}}
	if st, err := os.Stat(path); err == nil {
		s.DBBytes = st.Size()
	}
	if st, err := os.Stat(path + "-wal"); err == nil {
		s.WALBytes = st.Size()
	}
	s.DiskBytes = s.DBBytes + s.WALBytes + sessionsBytes
	s.Health = Health(path)
	db, err := agentdb.OpenSessions(ctx, path)
	if err != nil {
		s.Error = err.Error()
		return s
	}
	s.Schema, s.AppVersion = db.UserVersion, db.Meta.AppVersion
	fail := func(err error) *DBStats {
		db.Close()
		s.Error = err.Error()
		return s
	}
	nodes, err := db.Nodes(ctx)
	if err != nil {
		return fail(err)
	}
	s.Nodes = len(nodes)
	for _, n := range nodes {
		if n.Archived {
			s.Archived++
		}
	}
	windows, err := db.Windows(ctx)
	if err != nil {
		return fail(err)
	}
	s.Windows = len(windows)
	for _, w := range windows {
		r := w.Reason
		if r == "" {
			r = "unset"
		}
		s.ByReason[r]++
	}
	sessions, err := db.Sessions(ctx)
	if err != nil {
		return fail(err)
	}
	s.Sessions = len(sessions)
	for _, x := range sessions {
		s.Events += x.Events
	}
	archives, err := db.Archives(ctx)
	if err != nil {
		return fail(err)
	}
	for _, a := range archives {
		s.Archives.Files++
		s.Archives.Bytes += a.Bytes
	}
	cold, err := db.ColdArchives(ctx)
	if err != nil {
		return fail(err)
	}
	s.Cold = len(cold)
	if err := db.Close(); err != nil {
		s.Error = err.Error()
	}
	return s
}

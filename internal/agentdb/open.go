// Package agentdb reads the per-agent SQLite database of OpenClaw 2026.8 and later
// (agents/<id>/agent/openclaw-agent.sqlite): its schema, session nodes and windows, archives,
// and each session's transcript events, streamed by seq as the JSONL lines they were
// imported from.
//
// It never writes the user's files. A database without a WAL is read in place with SQLite's
// immutable flag (no lock, no -shm, nothing created); one with WAL frames or a hot journal is
// first copied, with its WAL, into a temp dir and the copy is read, since reading a live WAL
// in place needs a -shm index that readers write to, and `immutable` over a live WAL would
// hide its latest transactions. Either way the read is one consistent snapshot: the copy is
// checked unchanged after copying, and an in-place read is checked unchanged at Close.
package agentdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"
	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// FileName is the agent database's name inside agents/<id>/agent/.
const FileName = "openclaw-agent.sqlite"

// Schema versions (PRAGMA user_version, equal to schema_meta.schema_version).
const (
	// SessionsSchema is the first schema holding sessions (2026.7.2-beta.1). Older agent
	// databases (2026.6.x: version 1) hold only auth profiles, caches and the memory index.
	SessionsSchema = 4
	// MaxSchema is the newest schema clawdoctor has been checked against (2026.9.6).
	MaxSchema = 23
)

// The schemas the tests read come from real databases of 2026.6.11 (1, no sessions),
// 2026.8.1 (19) and 2026.9.6 (23) in fixtures/sqlite.

// Meta is the schema_meta row of the database (meta_key 'primary').
type Meta struct {
	Role          string `json:"role"`
	SchemaVersion int    `json:"schema_version"`
	AgentID       string `json:"agent_id,omitempty"`
	AppVersion    string `json:"app_version,omitempty"`
}

// DB is one open, read-only snapshot of an agent database.
type DB struct {
	Path        string // the user's file
	UserVersion int
	Meta        Meta
	// Copied is set when the snapshot is a temp copy (the database had WAL frames).
	Copied bool

	conn    *sql.DB
	tmp     string
	opened  fileSet
	columns map[string]map[string]bool // table → its columns
	zmu     sync.Mutex
	zfree   []*zstd.Decoder // idle decoders of event_zstd frames
	zall    []*zstd.Decoder // every decoder made, closed with the DB

	rawOnce   sync.Once
	raw       *rawTable // nil: sessions are read with SQL (btree.go)
	rawIDOnce sync.Once
	rawID     *rawTable // the identity rows' reader (Identities); nil: SQL
	noRaw     bool      // tests: read with SQL only
}

// MaxReaders is how many queries of one DB may run at once (audit reads two sessions side by
// side, one per core). Every connection reads the same snapshot: in place the file is opened
// immutable (no locks, no WAL: each query was already a read of its own, and Close reports a
// file that changed meanwhile), and a copy is private (the first connection rolls back a hot
// journal before a second one opens).
const MaxReaders = 2

// decoder takes an idle zstd decoder, or makes one.
func (db *DB) decoder() (*zstd.Decoder, error) {
	db.zmu.Lock()
	defer db.zmu.Unlock()
	if n := len(db.zfree); n > 0 {
		d := db.zfree[n-1]
		db.zfree = db.zfree[:n-1]
		return d, nil
	}
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxEventBytes))
	if err != nil {
		return nil, err
	}
	db.zall = append(db.zall, d)
	return d, nil
}

func (db *DB) putDecoder(d *zstd.Decoder) {
	db.zmu.Lock()
	db.zfree = append(db.zfree, d)
	db.zmu.Unlock()
}

// Open opens a consistent, read-only snapshot of the database at path and reads its
// version, schema_meta and table layout. It does not require session tables (see
// [DB.CheckSessions]).
func Open(ctx context.Context, path string) (*DB, error) {
	db, err := open(ctx, path, "")
	if err != nil {
		return nil, dbErr(path, err)
	}
	return db, nil
}

// OpenSessions is Open followed by CheckSessions: what every reader of sessions calls.
func OpenSessions(ctx context.Context, path string) (*DB, error) {
	db, err := Open(ctx, path)
	if err != nil {
		return nil, err
	}
	if err := db.CheckSessions(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// open is Open; extra is appended to the connection parameters (salvage: stricter checks).
func open(ctx context.Context, path, extra string) (*DB, error) {
	fs, err := sigsOf(path)
	if err != nil {
		return nil, err
	}
	if !fs.db.exists {
		return nil, fmt.Errorf("open: %w", os.ErrNotExist)
	}
	h, _, err := readHeader(path)
	if err != nil {
		return nil, err
	}
	if err := checkWAL(path, h.pageSize); err != nil {
		return nil, err
	}
	db := &DB{Path: path, opened: fs}
	target, params := path, "mode=ro&immutable=1"
	if fs.needsCopy() {
		db.tmp, err = os.MkdirTemp("", "clawdoctor-agentdb-")
		if err != nil {
			return nil, err
		}
		target, err = copySnapshot(path, db.tmp)
		if err != nil {
			db.cleanup()
			return nil, err
		}
		// Read-write on the private copy, so SQLite can roll back a copied hot journal.
		db.Copied, params = true, "mode=rw"
	}
	if err := db.connect(ctx, target, params+extra); err != nil {
		db.cleanup()
		return nil, err
	}
	return db, nil
}

// connect opens the SQLite file target (the user's, or a private copy) and reads its layout.
func (db *DB) connect(ctx context.Context, target, params string) error {
	abs, err := filepath.Abs(target)
	if err != nil {
		return err
	}
	db.conn, err = sql.Open("sqlite", "file:"+(&url.URL{Path: abs}).EscapedPath()+"?"+params)
	if err != nil {
		return err
	}
	db.conn.SetMaxOpenConns(MaxReaders)
	if err := db.readLayout(ctx); err != nil {
		return classify(err)
	}
	return nil
}

func (db *DB) readLayout(ctx context.Context) error {
	if err := db.conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&db.UserVersion); err != nil {
		return err
	}
	rows, err := db.conn.QueryContext(ctx, `SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table'`)
	if err != nil {
		return err
	}
	defer rows.Close()
	db.columns = map[string]map[string]bool{}
	for rows.Next() {
		var table, col string
		if err := rows.Scan(&table, &col); err != nil {
			return err
		}
		if db.columns[table] == nil {
			db.columns[table] = map[string]bool{}
		}
		db.columns[table][col] = true
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if db.has("schema_meta", "meta_key", "role", "schema_version") {
		var agent, app sql.NullString
		err := db.conn.QueryRowContext(ctx, `SELECT role, schema_version, `+db.col("schema_meta", "agent_id")+`, `+db.col("schema_meta", "app_version")+
			` FROM schema_meta WHERE meta_key = 'primary'`).Scan(&db.Meta.Role, &db.Meta.SchemaVersion, &agent, &app)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		db.Meta.AgentID, db.Meta.AppVersion = agent.String, app.String
	}
	return nil
}

// HasSessions reports whether the database holds sessions: the tables session_nodes and
// transcript_events, or a schema version from SessionsSchema on. This is what makes an agent
// SQLite era.
func (db *DB) HasSessions() bool {
	return db.UserVersion >= SessionsSchema || (db.columns["session_nodes"] != nil && db.columns["transcript_events"] != nil)
}

// Tables lists the database's tables, sorted.
func (db *DB) Tables() []string {
	out := make([]string, 0, len(db.columns))
	for t := range db.columns {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// required are the tables and columns every reader relies on; the rest are optional and read
// as NULL when absent.
var required = map[string][]string{
	"transcript_events": {"session_id", "seq", "event_json"},
	"session_nodes":     {"session_key", "current_session_id", "entry_json"},
	"session_windows":   {"session_id", "session_key"},
}

// CheckSessions returns ErrNoSessions for a database without sessions, and ErrUnknownSchema
// for one newer than MaxSchema, not owned by an agent, or lacking a table or column readers
// need.
func (db *DB) CheckSessions() error {
	if !db.HasSessions() {
		return dbErr(db.Path, wrapf(ErrNoSessions, "schema %d without session tables (an auth/memory database of a JSONL-era install)", db.UserVersion))
	}
	if db.UserVersion < 0 {
		return dbErr(db.Path, wrapf(ErrUnknownSchema, "schema version %d: no OpenClaw release writes a negative user_version", db.UserVersion))
	}
	if db.UserVersion > MaxSchema {
		return dbErr(db.Path, wrapf(ErrUnknownSchema, "schema version %d (%s) is newer than the newest clawdoctor knows (%d, OpenClaw 2026.9.6); update clawdoctor, or export with that OpenClaw release",
			db.UserVersion, db.appVersion(), MaxSchema))
	}
	if db.Meta.Role != "" && db.Meta.Role != "agent" {
		return dbErr(db.Path, wrapf(ErrUnknownSchema, "schema_meta role %q, not an agent database", db.Meta.Role))
	}
	for table, cols := range required {
		if db.columns[table] == nil {
			return dbErr(db.Path, wrapf(ErrUnknownSchema, "schema %d has no table %s", db.UserVersion, table))
		}
		for _, c := range cols {
			if !db.columns[table][c] {
				return dbErr(db.Path, wrapf(ErrUnknownSchema, "schema %d: table %s has no column %s", db.UserVersion, table, c))
			}
		}
	}
	return nil
}

func (db *DB) appVersion() string {
	if db.Meta.AppVersion != "" {
		return "written by OpenClaw " + db.Meta.AppVersion
	}
	return "writer unknown"
}

// has reports whether table has every one of cols.
func (db *DB) has(table string, cols ...string) bool {
	t := db.columns[table]
	if t == nil {
		return false
	}
	for _, c := range cols {
		if !t[c] {
			return false
		}
	}
	return true
}

// col returns the column for a SELECT list, or NULL when this schema lacks it.
func (db *DB) col(table, c string) string {
	if db.has(table, c) {
		return c
	}
	return "NULL"
}

// Close releases the snapshot and its temp copy. For an in-place read it returns ErrBusy
// when the database changed while it was read: what was read may mix two states.
func (db *DB) Close() error {
	db.cleanup()
	if db.Copied {
		return nil
	}
	now, err := sigsOf(db.Path)
	if err != nil {
		return dbErr(db.Path, err)
	}
	if !now.same(db.opened) {
		return dbErr(db.Path, wrapf(ErrBusy, "the database changed while it was read; run again (or stop the gateway)"))
	}
	return nil
}

func (db *DB) cleanup() {
	db.raw.close()
	db.raw = nil
	db.rawID.close()
	db.rawID = nil
	if db.conn != nil {
		db.conn.Close()
		db.conn = nil
	}
	for _, d := range db.zall {
		d.Close()
	}
	db.zall, db.zfree = nil, nil
	if db.tmp != "" {
		os.RemoveAll(db.tmp)
		db.tmp = ""
	}
}

// classify maps SQLite's result codes to this package's conditions.
func classify(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("%w: %v", ErrNotDatabase, err)
		case sqlite3.SQLITE_CORRUPT:
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return fmt.Errorf("%w: %v", ErrBusy, err)
		}
	}
	return err
}

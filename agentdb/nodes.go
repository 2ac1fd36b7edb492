package agentdb

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"strings"
)

// Node is one session_nodes row: a session key and its sessions.json entry, normalised by
// OpenClaw (no sessionFile; deliveryContext, lastChannel and origin folded into delivery).
type Node struct {
	Key       string          `json:"key"`
	SessionID string          `json:"session_id"` // current_session_id
	Entry     json.RawMessage `json:"entry"`      // entry_json as stored
	Status    string          `json:"status,omitempty"`
	// Times in Unix milliseconds, 0 when unset. ArchivedAt is set when maintenance archived the
	// session in place (its rows are kept).
	UpdatedAt  int64 `json:"updated_at,omitempty"`
	ArchivedAt int64 `json:"archived_at,omitempty"`
}

// Nodes returns every session node in insertion order (rowid: import keeps the order of
// sessions.json).
func (db *DB) Nodes(ctx context.Context) ([]Node, error) {
	q := `SELECT session_key, current_session_id, entry_json, ` + db.col("session_nodes", "status") + `, ` +
		db.col("session_nodes", "updated_at") + `, ` + db.col("session_nodes", "archived_at") + ` FROM session_nodes ORDER BY rowid`
	var out []Node
	err := db.query(ctx, q, func(rows *sql.Rows) error {
		var n Node
		var entry string
		var status sql.NullString
		var updated, archived sql.NullInt64
		if err := rows.Scan(&n.Key, &n.SessionID, &entry, &status, &updated, &archived); err != nil {
			return err
		}
		n.Entry, n.Status, n.UpdatedAt, n.ArchivedAt = json.RawMessage(entry), status.String, updated.Int64, archived.Int64
		out = append(out, n)
		return nil
	})
	return out, err
}

// Window is one session_windows row: one transcript generation of a session key.
type Window struct {
	SessionID string `json:"session_id"` // the JSONL sessionId
	Key       string `json:"key"`
	Previous  string `json:"previous_session_id,omitempty"`
	// Reason is initial, reset, rollover, fork, rewind, switch, recovery or compaction ("" when
	// unset).
	Reason        string `json:"reason,omitempty"`
	ModelProvider string `json:"model_provider,omitempty"`
	Model         string `json:"model,omitempty"`
	CreatedAt     int64  `json:"created_at,omitempty"`
	UpdatedAt     int64  `json:"updated_at,omitempty"`
}

// Windows returns every session window, oldest first.
func (db *DB) Windows(ctx context.Context) ([]Window, error) {
	c := func(col string) string { return db.col("session_windows", col) }
	q := `SELECT session_id, session_key, ` + c("previous_session_id") + `, ` + c("reason") + `, ` + c("model_provider") + `, ` +
		c("model") + `, ` + c("created_at") + `, ` + c("updated_at") + ` FROM session_windows ORDER BY rowid`
	var out []Window
	err := db.query(ctx, q, func(rows *sql.Rows) error {
		var w Window
		var prev, reason, provider, model sql.NullString
		var created, updated sql.NullInt64
		if err := rows.Scan(&w.SessionID, &w.Key, &prev, &reason, &provider, &model, &created, &updated); err != nil {
			return err
		}
		w.Previous, w.Reason, w.ModelProvider, w.Model = prev.String, reason.String, provider.String, model.String
		w.CreatedAt, w.UpdatedAt = created.Int64, updated.Int64
		out = append(out, w)
		return nil
	})
	return out, err
}

// Session is one session id with events in transcript_events.
type Session struct {
	ID     string `json:"id"`
	Key    string `json:"key,omitempty"` // from session_windows; "" when the window is gone
	Events int64  `json:"events"`
}

// Sessions lists the session ids that have events, sorted by id. Counting uses the primary
// key index, not the event bytes.
func (db *DB) Sessions(ctx context.Context) ([]Session, error) {
	q := `SELECT e.session_id, count(*), (SELECT session_key FROM session_windows w WHERE w.session_id = e.session_id)
		FROM transcript_events e GROUP BY e.session_id ORDER BY e.session_id`
	var out []Session
	err := db.query(ctx, q, func(rows *sql.Rows) error {
		var s Session
		var key sql.NullString
		if err := rows.Scan(&s.ID, &s.Events, &key); err != nil {
			return err
		}
		s.Key = key.String
		out = append(out, s)
		return nil
	})
	return out, err
}

// EventBytes sums the bytes of every event (event_json, or event_utf8_bytes of zstd events)
// and the number of zstd events. It reads every row, so it costs a pass over the events.
func (db *DB) EventBytes(ctx context.Context) (bytes, compressed int64, err error) {
	size := `length(CAST(event_json AS BLOB))`
	zcount := `0`
	if db.has("transcript_events", "event_zstd", "event_utf8_bytes") {
		size = `coalesce(length(CAST(event_json AS BLOB)), event_utf8_bytes, 0)`
		zcount = `sum(event_zstd IS NOT NULL)`
	}
	var b, z sql.NullInt64
	err = db.conn.QueryRowContext(ctx, `SELECT sum(`+size+`), `+zcount+` FROM transcript_events`).Scan(&b, &z)
	if err != nil {
		return 0, 0, dbErr(db.Path, classify(err))
	}
	return b.Int64, z.Int64, nil
}

// Archive is one session_transcript_archives row: a deleted or reset transcript kept in the
// database (published as <archive_name> in sessions/ when OpenClaw writes it out).
type Archive struct {
	SessionID  string `json:"session_id"`
	Generation string `json:"generation"`
	Key        string `json:"key"`
	Reason     string `json:"reason"`   // deleted or reset
	Encoding   string `json:"encoding"` // identity or zstd
	SHA256     string `json:"sha256"`
	Name       string `json:"name"`
	CreatedAt  int64  `json:"created_at"`
	Bytes      int64  `json:"bytes"` // of the stored blob
}

// Archives returns the archived transcripts held in the database (none before the table
// exists).
func (db *DB) Archives(ctx context.Context) ([]Archive, error) {
	if !db.has("session_transcript_archives", "session_id", "generation", "archive_blob", "archive_name") {
		return nil, nil
	}
	q := `SELECT session_id, generation, session_key, reason, encoding, archive_sha256, archive_name, created_at, length(archive_blob)
		FROM session_transcript_archives ORDER BY created_at, session_id, generation`
	var out []Archive
	err := db.query(ctx, q, func(rows *sql.Rows) error {
		var a Archive
		if err := rows.Scan(&a.SessionID, &a.Generation, &a.Key, &a.Reason, &a.Encoding, &a.SHA256, &a.Name, &a.CreatedAt, &a.Bytes); err != nil {
			return err
		}
		out = append(out, a)
		return nil
	})
	return out, err
}

// ArchiveContent returns the JSONL of one archived transcript, decompressed, after checking
// the stored sha256 (of the blob as stored, or of the decoded content; either is accepted).
func (db *DB) ArchiveContent(ctx context.Context, a Archive) ([]byte, error) {
	var blob []byte
	err := db.conn.QueryRowContext(ctx, `SELECT archive_blob FROM session_transcript_archives WHERE session_id = ? AND generation = ?`,
		a.SessionID, a.Generation).Scan(&blob)
	if err != nil {
		return nil, &Error{Path: db.Path, Session: a.SessionID, Seq: -1, Err: classify(err)}
	}
	content := blob
	if a.Encoding == "zstd" {
		content, err = db.decodeEvent(blob, nil, sql.NullInt64{})
		if err != nil {
			return nil, &Error{Path: db.Path, Session: a.SessionID, Seq: -1, Err: wrapf(ErrEvent, "archive %s: %v", a.Name, err)}
		}
	}
	if !strings.EqualFold(hexSum(blob), a.SHA256) && !strings.EqualFold(hexSum(content), a.SHA256) {
		return nil, &Error{Path: db.Path, Session: a.SessionID, Seq: -1, Err: wrapf(ErrEvent, "archive %s: sha256 does not match", a.Name)}
	}
	return content, nil
}

// ColdArchive is one session_transcript_cold_archives row: a session whose events were moved
// out of transcript_events into a zstd file sessions/cold/<name> (storage file) or a blob.
type ColdArchive struct {
	SessionID    string `json:"session_id"`
	Generation   string `json:"generation"`
	Name         string `json:"name"`
	SHA256       string `json:"sha256"`
	Events       int64  `json:"events"`
	RawBytes     int64  `json:"raw_bytes"`
	ArchiveBytes int64  `json:"archive_bytes"`
	LastSeq      int64  `json:"last_seq"`
	ArchivedAt   int64  `json:"archived_at"`
	Storage      string `json:"storage"` // file or sqlite
}

// ColdArchives returns the cold-stored sessions (none before the table exists).
func (db *DB) ColdArchives(ctx context.Context) ([]ColdArchive, error) {
	if !db.has("session_transcript_cold_archives", "session_id", "archive_name", "storage") {
		return nil, nil
	}
	q := `SELECT session_id, generation, archive_name, archive_sha256, event_count, raw_bytes, archive_bytes, last_seq, archived_at, storage
		FROM session_transcript_cold_archives ORDER BY session_id`
	var out []ColdArchive
	err := db.query(ctx, q, func(rows *sql.Rows) error {
		var c ColdArchive
		if err := rows.Scan(&c.SessionID, &c.Generation, &c.Name, &c.SHA256, &c.Events, &c.RawBytes, &c.ArchiveBytes, &c.LastSeq, &c.ArchivedAt, &c.Storage); err != nil {
			return err
		}
		out = append(out, c)
		return nil
	})
	return out, err
}

// query runs q and calls row for each result row.
func (db *DB) query(ctx context.Context, q string, row func(*sql.Rows) error, args ...any) error {
	rows, err := db.conn.QueryContext(ctx, q, args...)
	if err != nil {
		return dbErr(db.Path, classify(err))
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows); err != nil {
			return dbErr(db.Path, classify(err))
		}
	}
	if err := rows.Err(); err != nil {
		return dbErr(db.Path, classify(err))
	}
	return nil
}

func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

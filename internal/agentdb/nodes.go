package agentdb

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
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
	// Archived is set when archived_at is not NULL (even 0).
	Archived bool `json:"archived,omitempty"`
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
		n.Entry, n.Status, n.UpdatedAt, n.ArchivedAt, n.Archived = json.RawMessage(entry), status.String, updated.Int64, archived.Int64, archived.Valid
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
	if rt := db.rawReader(ctx); rt != nil {
		out, err := db.rawSessions(ctx, rt)
		if err == nil {
			return out, nil
		}
		if ctx.Err() != nil {
			return nil, dbErr(db.Path, classify(ctx.Err()))
		}
	}
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

// ArchiveContent returns one archived transcript: the blob as stored and its JSONL content
// (decompressed when the encoding is zstd), after checking the blob against archive_sha256 as
// OpenClaw 2026.9.6 does (hashSessionArchiveBytes(archive_blob); it refuses to read one that
// does not match: "Archived transcript bytes do not match their registered hash").
func (db *DB) ArchiveContent(ctx context.Context, a Archive) (blob, content []byte, err error) {
	err = db.conn.QueryRowContext(ctx, `SELECT archive_blob FROM session_transcript_archives WHERE session_id = ? AND generation = ?`,
		a.SessionID, a.Generation).Scan(&blob)
	if err != nil {
		return nil, nil, &Error{Path: db.Path, Session: a.SessionID, Seq: -1, Err: classify(err)}
	}
	content = blob
	if a.Encoding == "zstd" {
		content, err = db.decodeEvent(blob, nil, sql.NullInt64{})
		if err != nil {
			return nil, nil, &Error{Path: db.Path, Session: a.SessionID, Seq: -1, Err: wrapf(ErrEvent, "archive %s: %v", a.Name, err)}
		}
	}
	if sum := hexSum(blob); sum != a.SHA256 {
		return nil, nil, &Error{Path: db.Path, Session: a.SessionID, Seq: -1, Err: wrapf(ErrArchiveHash, "archive %s: its %d bytes hash to %s…, archive_sha256 says %s…", a.Name, len(blob), sum[:12], short(a.SHA256))}
	}
	return blob, content, nil
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

// ErrNoSession is returned by Resolve for a name that is neither a session id with events nor
// a node's key.
var ErrNoSession = errors.New("no such session (neither a session id with events nor a session key)")

// Resolve returns the session id that idOrKey names: a session id with events, else the
// current session of the node with that key.
func (db *DB) Resolve(ctx context.Context, idOrKey string) (string, error) {
	var n int
	if err := db.conn.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM transcript_events WHERE session_id = ? LIMIT 1)`, idOrKey).Scan(&n); err != nil {
		return "", dbErr(db.Path, classify(err))
	}
	if n > 0 {
		return idOrKey, nil
	}
	var id string
	err := db.conn.QueryRowContext(ctx, `SELECT current_session_id FROM session_nodes WHERE session_key = ?`, idOrKey).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", &Error{Path: db.Path, Session: idOrKey, Seq: -1, Err: ErrNoSession}
	}
	if err != nil {
		return "", dbErr(db.Path, classify(err))
	}
	return id, nil
}

// Row is a session node as OpenClaw's maintenance reads it: the node's columns that override
// its entry_json, the current window's chat type and the delivery target of its primary
// conversation. Nullable columns are nil when NULL.
type Row struct {
	Node
	PinnedAt          *int64
	LastInteractionAt *int64
	LastActivityAt    *int64
	SpawnedBy         string
	ParentSessionKey  string
	ChatType          string // session_windows.chat_type of the current window
	// Delivery is the current window's primary conversation (channel and target set), or nil.
	Delivery *Delivery
}

// Delivery is a conversation's delivery target.
type Delivery struct {
	Channel, Target, AccountID, ThreadID string
}

// Rows returns every node ordered by session_key (the order OpenClaw's maintenance walks).
func (db *DB) Rows(ctx context.Context) ([]Row, error) {
	n := func(c string) string { return "n." + c }
	col := func(table, alias, c string) string {
		if db.has(table, c) {
			return alias + "." + c
		}
		return "NULL"
	}
	q := `SELECT n.session_key, n.current_session_id, n.entry_json, ` +
		col("session_nodes", "n", "status") + `, ` + col("session_nodes", "n", "updated_at") + `, ` + col("session_nodes", "n", "archived_at") + `, ` +
		col("session_nodes", "n", "pinned_at") + `, ` + col("session_nodes", "n", "last_interaction_at") + `, ` + col("session_nodes", "n", "last_activity_at") + `, ` +
		col("session_nodes", "n", "spawned_by") + `, ` + col("session_nodes", "n", "parent_session_key") + `, ` +
		col("session_windows", "w", "chat_type")
	join := ` LEFT JOIN session_windows w ON w.session_id = n.current_session_id AND w.session_key = n.session_key`
	if db.has("session_windows", "primary_conversation_id") && db.has("conversations", "conversation_id", "channel", "delivery_target") {
		q += `, c.channel, c.delivery_target, ` + col("conversations", "c", "account_id") + `, ` + col("conversations", "c", "thread_id")
		join += ` LEFT JOIN conversations c ON c.conversation_id = w.primary_conversation_id`
	} else {
		q += `, NULL, NULL, NULL, NULL`
	}
	q += ` FROM session_nodes n` + join + ` ORDER BY ` + n("session_key")
	var out []Row
	err := db.query(ctx, q, func(rows *sql.Rows) error {
		var r Row
		var entry string
		var status, spawned, parent, chat, ch, target, account, thread sql.NullString
		var updated, archived, pinned, inter, act sql.NullInt64
		if err := rows.Scan(&r.Key, &r.SessionID, &entry, &status, &updated, &archived, &pinned, &inter, &act, &spawned, &parent, &chat,
			&ch, &target, &account, &thread); err != nil {
			return err
		}
		r.Entry, r.Status, r.UpdatedAt, r.ArchivedAt = json.RawMessage(entry), status.String, updated.Int64, archived.Int64
		r.PinnedAt, r.LastInteractionAt, r.LastActivityAt = ptr(pinned), ptr(inter), ptr(act)
		r.SpawnedBy, r.ParentSessionKey, r.ChatType = spawned.String, parent.String, chat.String
		if archived.Valid {
			r.ArchivedAt = archived.Int64
			r.Archived = true
		}
		if ch.String != "" && target.String != "" {
			r.Delivery = &Delivery{Channel: ch.String, Target: target.String, AccountID: account.String, ThreadID: thread.String}
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

func ptr(n sql.NullInt64) *int64 {
	if !n.Valid {
		return nil
	}
	v := n.Int64
	return &v
}

// Identities calls fn with each transcript_event_identities row of session, in seq order:
// its seq, event_id and parent_id (nil for NULL), valid during the call; fn may be called
// again for rows it saw when the raw reader hands over to SQL, which starts over. A database
// without the table or its parent_id column has none, as for IdentityMismatches. It reads no
// event: the audit compares the rows with the ids it read from the events itself, and asks
// IdentityMismatches only when one differs. Where the events are read from the file (btree.go)
// so are these rows, by the (session_id, seq) index of 2026.9: through SQL they cost the
// audit of the limits database 0.3 CPU-s, a sixth of it.
func (db *DB) Identities(ctx context.Context, session string, fn func(seq int64, eventID, parentID []byte) error) error {
	if db.columns["transcript_event_identities"] == nil || !db.columns["transcript_event_identities"]["parent_id"] {
		return nil
	}
	if rt := db.rawIdentityReader(ctx); rt != nil {
		var fnErr error
		c := rt.cursor(session)
		err := func() error {
			for n := 0; ; n++ {
				if n%1024 == 0 {
					if err := ctx.Err(); err != nil {
						return err
					}
				}
				seq, id, parent, err := c.nextIdentity()
				if err != nil {
					return err
				}
				if fnErr = fn(seq, id, parent); fnErr != nil {
					return fnErr
				}
			}
		}()
		c.release()
		switch {
		case fnErr != nil:
			return fnErr
		case err == io.EOF:
			return nil
		case !errors.Is(err, errRaw):
			return dbErr(db.Path, classify(err))
		}
		// a doubt of the raw reader: SQL reads them all again
	}
	// CAST: modernc hands a BLOB over as []byte, which sql.RawBytes keeps without a copy
	q := `SELECT seq, CAST(event_id AS BLOB), CAST(parent_id AS BLOB) FROM transcript_event_identities WHERE session_id = ? ORDER BY seq`
	var seq sql.NullInt64
	var id, parent sql.RawBytes
	return db.query(ctx, q, func(rows *sql.Rows) error {
		if err := rows.Scan(&seq, &id, &parent); err != nil {
			return err
		}
		if !seq.Valid {
			seq.Int64 = -1 // no event has it: the caller's comparison fails
		}
		return fn(seq.Int64, id, parent)
	}, session)
}

// IdentityMismatch is a transcript_event_identities row that disagrees with the event at its
// seq: another id, or another parent.
type IdentityMismatch struct {
	Seq                     int64
	EventID, ID             string // the identity's event_id, the event's id
	ParentID, EventParentID string
}

// IdentityMismatches compares session's identity rows with its JSON events (zstd events are not
// looked into), at most limit of them. A database without the table has none.
func (db *DB) IdentityMismatches(ctx context.Context, session string, limit int) ([]IdentityMismatch, error) {
	if db.columns["transcript_event_identities"] == nil || !db.columns["transcript_event_identities"]["parent_id"] {
		return nil, nil
	}
	q := `SELECT i.seq, i.event_id, coalesce(json_extract(e.event_json, '$.id'), ''), coalesce(i.parent_id, ''), coalesce(json_extract(e.event_json, '$.parentId'), '')
		FROM transcript_event_identities i JOIN transcript_events e ON e.session_id = i.session_id AND e.seq = i.seq
		WHERE i.session_id = ? AND e.event_json IS NOT NULL AND json_valid(e.event_json)
		AND (i.event_id IS NOT coalesce(json_extract(e.event_json, '$.id'), '') OR coalesce(i.parent_id, '') IS NOT coalesce(json_extract(e.event_json, '$.parentId'), ''))
		ORDER BY i.seq LIMIT ?`
	var out []IdentityMismatch
	err := db.query(ctx, q, func(rows *sql.Rows) error {
		var m IdentityMismatch
		if err := rows.Scan(&m.Seq, &m.EventID, &m.ID, &m.ParentID, &m.EventParentID); err != nil {
			return err
		}
		out = append(out, m)
		return nil
	}, session, limit)
	return out, err
}

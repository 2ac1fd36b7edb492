package agentdb

import (
	"context"
	"database/sql"
	"fmt"
	"io"
)

// MaxEventBytes bounds one decoded event (the schema's CHECK allows 4 MiB; older schemas
// have no bound, so a little room is left for hand-made databases).
const MaxEventBytes = 64 << 20

// Event is one transcript event: one line of the JSONL transcript it was imported from,
// without the newline.
type Event struct {
	Seq int64
	// Line is the event's bytes; valid until the next call of Next.
	Line []byte
	// Compressed is set when the event was stored as a zstd frame in event_zstd.
	Compressed bool
}

// Transcript streams the events of one session in seq order, header included. Read gives
// them as JSONL (each event followed by "\n"): the bytes of the transcript they were imported
// from, so every JSONL reader of clawdoctor runs on them unchanged.
type Transcript struct {
	db        *DB
	ctx       context.Context
	sessionID string
	rows      *sql.Rows
	raw       *rawCursor // reads the rows from the file (btree.go) until it meets a doubt
	last      int64      // the seq of the last row read, where SQL takes over from raw
	started   bool

	json, blob sql.RawBytes
	size       sql.NullInt64
	decoded    []byte
	pending    []byte // what Read has not yet returned of the current event
	newline    bool   // its newline is still to be returned

	// Events and Bytes count what was read so far (Bytes: line bytes without newlines).
	Events, Bytes int64
	// FirstGap is the first seq that did not follow its predecessor (-1 when none): rows
	// deleted by a rewrite. Line numbers of readers then differ from seq+1.
	FirstGap int64
	next     int64
	err      error
}

// Transcript opens the event stream of sessionID. It is empty (not an error) when the session
// has no events.
func (db *DB) Transcript(ctx context.Context, sessionID string) (*Transcript, error) {
	// CAST: modernc hands a BLOB over as []byte, which sql.RawBytes keeps without a second
	// copy (TEXT comes as a string, copied again).
	q := `SELECT seq, CAST(event_json AS BLOB), ` + db.col("transcript_events", "event_zstd") + `, ` + db.col("transcript_events", "event_utf8_bytes") +
		` FROM transcript_events WHERE session_id = ? ORDER BY seq`
	if rt := db.rawReader(ctx); rt != nil {
		return &Transcript{db: db, ctx: ctx, sessionID: sessionID, raw: rt.cursor(sessionID), FirstGap: -1}, nil
	}
	rows, err := db.conn.QueryContext(ctx, q, sessionID)
	if err != nil {
		return nil, &Error{Path: db.Path, Session: sessionID, Seq: -1, Err: classify(err)}
	}
	return &Transcript{db: db, ctx: ctx, sessionID: sessionID, rows: rows, FirstGap: -1}, nil
}

// nextRow reads the next row into t.json, t.blob and t.size. ok is false at the end (t.err
// says whether that is io.EOF). A doubt of the raw reader hands over to SQL after the last row
// it gave, so the rows are the query's whatever happens.
func (t *Transcript) nextRow() (seq int64, ok bool) {
	if t.raw != nil {
		if t.raw.pos%1024 == 0 {
			if err := t.ctx.Err(); err != nil {
				t.err = &Error{Path: t.db.Path, Session: t.sessionID, Seq: t.next, Err: classify(err)}
				return 0, false
			}
		}
		seq, json, blob, size, sizeOK, err := t.raw.next()
		if err == nil {
			t.json, t.blob, t.size = json, blob, sql.NullInt64{Int64: size, Valid: sizeOK}
			t.last, t.started = seq, true
			return seq, true
		}
		t.raw.release()
		t.raw = nil
		if err == io.EOF {
			t.err = io.EOF
			return 0, false
		}
		q := `SELECT seq, CAST(event_json AS BLOB), ` + t.db.col("transcript_events", "event_zstd") + `, ` +
			t.db.col("transcript_events", "event_utf8_bytes") + ` FROM transcript_events WHERE session_id = ?`
		args := []any{t.sessionID}
		if t.started {
			q, args = q+` AND seq > ?`, append(args, t.last)
		}
		rows, qerr := t.db.conn.QueryContext(t.ctx, q+` ORDER BY seq`, args...)
		if qerr != nil {
			t.err = &Error{Path: t.db.Path, Session: t.sessionID, Seq: t.next, Err: classify(qerr)}
			return 0, false
		}
		t.rows = rows
	}
	if !t.rows.Next() {
		t.err = io.EOF
		if err := t.rows.Err(); err != nil {
			t.err = &Error{Path: t.db.Path, Session: t.sessionID, Seq: t.next, Err: classify(err)}
		}
		return 0, false
	}
	var s int64 // not seq: Scan takes its address, and a named result would then be on the heap for every row
	if err := t.rows.Scan(&s, &t.json, &t.blob, &t.size); err != nil {
		t.err = &Error{Path: t.db.Path, Session: t.sessionID, Seq: t.next, Err: classify(err)}
		return 0, false
	}
	return s, true
}

// Next returns the next event, or io.EOF after the last one. A zstd event that does not
// decode, or decodes to another size than recorded, is an error naming the session and seq.
func (t *Transcript) Next() (Event, error) {
	if t.err != nil {
		return Event{}, t.err
	}
	seq, ok := t.nextRow()
	if !ok {
		return Event{}, t.err
	}
	if seq != t.next && t.FirstGap < 0 {
		t.FirstGap = seq
	}
	t.next = seq + 1
	ev := Event{Seq: seq, Line: t.json}
	switch {
	case t.json != nil && t.blob != nil:
		return t.fail(seq, "both event_json and event_zstd are set")
	case t.json == nil && t.blob == nil:
		return t.fail(seq, "neither event_json nor event_zstd is set")
	case t.json == nil:
		line, err := t.db.decodeEvent(t.blob, t.decoded[:0], t.size)
		if err != nil {
			return t.fail(seq, err.Error())
		}
		t.decoded, ev.Line, ev.Compressed = line, line, true
	}
	t.Events++
	t.Bytes += int64(len(ev.Line))
	return ev, nil
}

func (t *Transcript) fail(seq int64, why string) (Event, error) {
	t.err = &Error{Path: t.db.Path, Session: t.sessionID, Seq: seq, Err: wrapf(ErrEvent, "%s", why)}
	return Event{}, t.err
}

// decodeEvent decompresses one event_zstd frame into dst. Safe for concurrent use: each call
// takes a decoder of the DB's pool (sessions may be read side by side, see MaxReaders).
func (db *DB) decodeEvent(frame, dst []byte, size sql.NullInt64) ([]byte, error) {
	d, err := db.decoder()
	if err != nil {
		return nil, err
	}
	defer db.putDecoder(d)
	out, err := d.DecodeAll(frame, dst)
	if err != nil {
		return nil, fmt.Errorf("event_zstd (%d bytes) does not decode: %v", len(frame), err)
	}
	if size.Valid && int64(len(out)) != size.Int64 {
		return nil, fmt.Errorf("event_zstd decodes to %d bytes, event_utf8_bytes says %d", len(out), size.Int64)
	}
	return out, nil
}

// Read implements io.Reader over the events as JSONL.
func (t *Transcript) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(t.pending) == 0 {
			if t.newline {
				p[n] = '\n'
				n++
				t.newline = false
				continue
			}
			ev, err := t.Next()
			if err != nil {
				if n > 0 && err == io.EOF {
					return n, nil
				}
				return n, err
			}
			t.pending, t.newline = ev.Line, true
		}
		c := copy(p[n:], t.pending)
		n += c
		t.pending = t.pending[c:]
	}
	return n, nil
}

// Close ends the stream.
func (t *Transcript) Close() error {
	t.raw.release() // its buffers go to the next session's cursor
	t.raw = nil
	t.json, t.blob, t.pending = nil, nil, nil
	if t.rows == nil {
		return nil
	}
	err := t.rows.Close()
	t.rows = nil
	return err
}

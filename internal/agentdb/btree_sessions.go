package agentdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"unicode/utf8"
)

// rawSessions lists the sessions with events as Sessions' SQL does (id, count of events, key;
// by id), counting the (session_id, seq) index's entries from the file. SQLite walks that
// index a page per read(2) through its virtual machine before the first session can be read:
// on the 512 MiB limits database that was 30–50 ms with one core idle, a twentieth of the
// audit. The keys still come from SQL, through the query's own subquery, so a collation or a
// duplicate in session_windows gives what the query gives. Any doubt (an entry out of order,
// a key that is not text, an id that JSON cannot carry) is an error: the caller asks SQL.
func (db *DB) rawSessions(ctx context.Context, rt *rawTable) ([]Session, error) {
	c := rt.cursor("")
	defer c.release()
	var out []Session
	var prevSeq int64
	err := c.walkIndex(rt.indexRoot, 0, func(session []byte, seq int64) error {
		// string(session) in a comparison: no copy of the id per entry
		if n := len(out); n > 0 && string(session) == out[n-1].ID {
			if seq <= prevSeq {
				return rawErrorf("index entries out of order in session %q", session)
			}
			out[n-1].Events++
			prevSeq = seq
			return nil
		}
		if n := len(out); n > 0 && string(session) <= out[n-1].ID {
			return rawErrorf("index sessions out of order at %q", session)
		}
		if !utf8.Valid(session) {
			return rawErrorf("a session id that is not UTF-8")
		}
		if len(out)%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		out = append(out, Session{ID: string(session), Events: 1})
		prevSeq = seq
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, nil
	}
	ids := make([]string, len(out))
	for i, s := range out {
		ids[i] = s.ID
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	i := 0
	err = db.query(ctx, `SELECT j.value, (SELECT session_key FROM session_windows w WHERE w.session_id = j.value)
		FROM json_each(?) j ORDER BY j.key`, func(rows *sql.Rows) error {
		var id string
		var key sql.NullString
		if err := rows.Scan(&id, &key); err != nil {
			return err
		}
		if i >= len(out) || id != out[i].ID {
			return rawErrorf("session ids changed on their way through JSON")
		}
		out[i].Key = key.String
		i++
		return nil
	}, string(list))
	if err == nil && i != len(out) {
		err = rawErrorf("%d session keys read for %d sessions", i, len(out))
	}
	return out, err
}

// walkIndex calls fn with every entry of the (session_id, seq) index under page n, in the
// index's order; interior cells are entries too, between their left subtree and the next.
func (c *rawCursor) walkIndex(n int64, depth int, fn func(session []byte, seq int64) error) error {
	p, h, ncell, interior, err := c.indexPage(n, depth)
	if err != nil {
		return err
	}
	for i := range ncell {
		if interior { // the left subtree first: its keys come before this cell's
			child, err := c.indexChild(p, n, h, i)
			if err != nil {
				return err
			}
			if err := c.walkIndex(child, depth+1, fn); err != nil {
				return err
			}
		}
		_, session, seq, _, err := c.indexCell(p, n, h, i, interior)
		if err != nil {
			return err
		}
		if err := fn(session, seq); err != nil {
			return err
		}
	}
	if interior {
		return c.walkIndex(rightChild(p, h), depth+1, fn)
	}
	return nil
}

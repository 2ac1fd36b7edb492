package agentdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/clawdoctor/clawdoctor/jsonl"
)

// Salvage is reading what a damaged database still holds: export --salvage. The normal
// readers stop at the first error; the salvage readers go on past damaged pages and say what
// they could not read.

// OpenSalvage opens path as Open does, and where its write-ahead log makes it unreadable or
// inconsistent (a WAL of another database, a WAL cut short), the main file alone, from a
// private copy. notes say which was read and why.
func OpenSalvage(ctx context.Context, path string) (db *DB, notes []string, err error) {
	withWAL, err := open(ctx, path, salvageParams)
	if err != nil {
		err = dbErr(path, err)
	}
	walErr := err
	if err == nil {
		if !withWAL.Copied {
			return withWAL, nil, nil // no WAL frames: the file is all there is
		}
		bad, err := withWAL.quickCheck(ctx)
		if err == nil && bad == "" {
			return withWAL, nil, nil
		}
		if bad == "" {
			bad = err.Error()
		}
		walErr = fmt.Errorf("quick_check with its -wal: %s", bad)
	}
	if _, serr := os.Stat(path + "-wal"); serr != nil {
		return nil, nil, walErr // no WAL to leave out: the main file itself is what fails
	}
	main, err := openMainOnly(ctx, path)
	if err != nil {
		if withWAL != nil {
			return withWAL, []string{fmt.Sprintf("%s; the main file alone cannot be opened either (%v): read with the -wal", walErr, err)}, nil
		}
		return nil, nil, walErr
	}
	bad, err := main.quickCheck(ctx)
	switch {
	case withWAL == nil:
		notes = append(notes, fmt.Sprintf("read without %s-wal: with it the database could not be opened (%v); the transactions in it are not read", filepath.Base(path), walErr))
	case err == nil && bad == "":
		withWAL.Close()
		notes = append(notes, fmt.Sprintf("read without %s-wal: %v, and the main file alone passes (the -wal does not fit this database: another database's, or cut short); the transactions in it are not read", filepath.Base(path), walErr))
	default:
		main.Close()
		return withWAL, []string{fmt.Sprintf("%v, and the main file alone fails it too: read with the -wal, past its damaged pages", walErr)}, nil
	}
	return main, notes, nil
}

// salvageParams make SQLite check each cell's size against its page: a garbled page is then
// more often an error than rows made of its garbage.
const salvageParams = "&_pragma=cell_size_check(1)"

// openMainOnly reads a private copy of the main file without its -wal or journal.
func openMainOnly(ctx context.Context, path string) (*DB, error) {
	if _, _, err := readHeader(path); err != nil {
		return nil, dbErr(path, err)
	}
	tmp, err := os.MkdirTemp("", "clawdoctor-agentdb-")
	if err != nil {
		return nil, err
	}
	fs, err := sigsOf(path)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	dst := filepath.Join(tmp, "snapshot.sqlite")
	only := fileSet{db: fs.db}
	if err := copyFiles(path, dst, only); err != nil {
		os.RemoveAll(tmp)
		return nil, dbErr(path, err)
	}
	db := &DB{Path: path, opened: fs, tmp: tmp, Copied: true}
	if err := db.connect(ctx, dst, "mode=rw"+salvageParams); err != nil {
		db.cleanup()
		return nil, dbErr(path, classify(err))
	}
	return db, nil
}

// quickCheck runs PRAGMA quick_check and returns its first complaint, "" when it says ok.
func (db *DB) quickCheck(ctx context.Context) (string, error) {
	var out []string
	err := db.query(ctx, "PRAGMA quick_check(5)", func(rows *sql.Rows) error {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		return "", err
	}
	if len(out) == 1 && out[0] == "ok" {
		return "", nil
	}
	return strings.Join(out, "; "), nil
}

// LostRows is a range of transcript_events rows (by rowid) a scan could not read: rowids
// after After and before Next (0: to the end of the table) are unknown.
type LostRows struct {
	After int64  `json:"after"`
	Next  int64  `json:"next"`
	Err   string `json:"error"`
}

// ScanEvents reads every transcript_events row in rowid order, the table itself rather than
// its (session_id, seq) index, and calls emit for each row of a session want accepts. A
// damaged page ends a query: the scan then finds the next rowid that can be read (doubling
// the step, then halving it back) and goes on from there, and the rows in between are lost.
// A row whose event does not decode is lost too, with its session and seq.
func (db *DB) ScanEvents(ctx context.Context, want func(session string) bool, emit func(session string, seq int64, line []byte) error) (lost []LostRows, bad []Error, err error) {
	cols := "rowid, session_id, seq, CAST(event_json AS BLOB), " + db.col("transcript_events", "event_zstd") + ", " + db.col("transcript_events", "event_utf8_bytes")
	q := "SELECT " + cols + " FROM transcript_events WHERE rowid > ? ORDER BY rowid"
	last, start := int64(0), int64(0)
	for {
		if err := ctx.Err(); err != nil {
			return lost, bad, err
		}
		last = start
		scanErr := db.query(ctx, q, func(rows *sql.Rows) error {
			var (
				rowid, seq int64
				session    string
				js, blob   sql.RawBytes
				size       sql.NullInt64
			)
			if err := rows.Scan(&rowid, &session, &seq, &js, &blob, &size); err != nil {
				return err
			}
			last = rowid
			if !want(session) {
				return nil
			}
			line := []byte(js)
			if js == nil {
				if blob == nil {
					bad = append(bad, Error{Path: db.Path, Session: session, Seq: seq, Err: wrapf(ErrEvent, "neither event_json nor event_zstd is set")})
					return nil
				}
				out, err := db.decodeEvent(blob, nil, size)
				if err != nil {
					bad = append(bad, Error{Path: db.Path, Session: session, Seq: seq, Err: wrapf(ErrEvent, "%v", err)})
					return nil
				}
				line = out
			}
			if err := jsonl.Check(line); err != nil && !errors.Is(err, jsonl.ErrTooDeep) || seq < 0 || !utf8.ValidString(session) {
				// a row made of a damaged page's bytes, not an event OpenClaw wrote
				bad = append(bad, Error{Path: db.Path, Session: session, Seq: seq, Err: wrapf(ErrEvent, "not a valid event (rowid %d: a row of a damaged page?)", rowid)})
				return nil
			}
			if err := emit(session, seq, line); err != nil {
				return callerError{err}
			}
			return nil
		}, start)
		if scanErr == nil {
			return lost, bad, nil
		}
		if ctx.Err() != nil {
			return lost, bad, ctx.Err()
		}
		var ce callerError
		if errors.As(scanErr, &ce) {
			return lost, bad, ce.err
		}
		from := last
		if last == start {
			// not one row read: the row a lookup found readable is not readable in a scan
			// (its overflow pages, say): it is lost too, and the search goes on after it
			from = start + 1
		}
		next, ok := db.nextReadable(ctx, from)
		lost = append(lost, LostRows{After: last, Next: next, Err: classify(scanErr).Error()})
		if !ok {
			return lost, bad, nil
		}
		start = next - 1
	}
}

// callerError marks an error of emit, which ends the scan (it is not the database's).
type callerError struct{ err error }

func (e callerError) Error() string { return e.err.Error() }

// nextReadable finds the smallest rowid after `after` whose row can be read, by looking each
// rowid up (a seek past a damaged page may land on rows of its garbage, so no range query is
// trusted here). It stops at the table's largest rowid, or 2^20 rowids on when that cannot be
// read; ok is false when nothing after `after` can be read.
func (db *DB) nextReadable(ctx context.Context, after int64) (int64, bool) {
	end := after + 1<<20
	var max sql.NullInt64
	if err := db.conn.QueryRowContext(ctx, "SELECT max(rowid) FROM transcript_events").Scan(&max); err == nil && max.Valid {
		end = max.Int64
	}
	for y := after + 1; y <= end; y++ {
		if y%4096 == 0 && ctx.Err() != nil {
			return 0, false
		}
		var session string
		var seq int64
		if err := db.conn.QueryRowContext(ctx, "SELECT session_id, seq FROM transcript_events WHERE rowid = ?", y).Scan(&session, &seq); err == nil {
			return y, true
		}
	}
	return 0, false
}

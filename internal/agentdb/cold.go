package agentdb

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"io"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/zstd"
)

// Cold storage (OpenClaw 2026.9+, session.maintenance.coldStorage): a session's events leave
// transcript_events for a zstd JSONL file sessions/cold/<sha256>.jsonl.zst (storage "file") or
// a blob of its session_transcript_cold_archives row (storage "sqlite"). Each line is a record:
// {"kind":"header",...,"sessionId"}, {"kind":"event","row":{"seq","event_json","created_at"}},
// and identity, active, index and fts rows. OpenClaw reads one back only when its bytes have
// archive_bytes and archive_sha256 (readVerifiedSessionColdArchive).

var coldName = lazyre.New(`^[a-f0-9]{64}\.jsonl\.zst$`)

// ColdPath is where a file-stored cold archive lives for the agent whose sessions dir is
// sessionsDir.
func ColdPath(sessionsDir string, c ColdArchive) (string, error) {
	if !coldName.MatchString(c.Name) {
		return "", fmt.Errorf("cold archive name %q is not <sha256>.jsonl.zst", c.Name)
	}
	return filepath.Join(sessionsDir, "cold", c.Name), nil
}

// openCold returns the stored bytes of a cold archive as a reader, and its size.
func (db *DB) openCold(ctx context.Context, sessionsDir string, c ColdArchive) (io.ReadCloser, int64, error) {
	if c.Storage == "sqlite" {
		var blob []byte
		if err := db.conn.QueryRowContext(ctx, `SELECT archive_blob FROM session_transcript_cold_archives WHERE session_id = ?`, c.SessionID).Scan(&blob); err != nil {
			return nil, 0, &Error{Path: db.Path, Session: c.SessionID, Seq: -1, Err: classify(err)}
		}
		return io.NopCloser(bytes.NewReader(blob)), int64(len(blob)), nil
	}
	p, err := ColdPath(sessionsDir, c)
	if err != nil {
		return nil, 0, &Error{Path: db.Path, Session: c.SessionID, Seq: -1, Err: wrapf(ErrArchiveHash, "%v", err)}
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, 0, &Error{Path: db.Path, Session: c.SessionID, Seq: -1, Err: wrapf(ErrArchiveHash, "cold archive %s is missing or unreadable (%v): OpenClaw cannot restore the session; restore the file from a backup", p, err)}
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, &Error{Path: db.Path, Session: c.SessionID, Seq: -1, Err: wrapf(ErrArchiveHash, "cold archive %s is not a regular file", p)}
	}
	return f, st.Size(), nil
}

// VerifyCold checks a cold archive as OpenClaw does before it reads one: its size is
// archive_bytes and its sha256 archive_sha256.
func (db *DB) VerifyCold(ctx context.Context, sessionsDir string, c ColdArchive) error {
	rc, size, err := db.openCold(ctx, sessionsDir, c)
	if err != nil {
		return err
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(h, rc)
	if err != nil {
		return &Error{Path: db.Path, Session: c.SessionID, Seq: -1, Err: err}
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if n != c.ArchiveBytes || size != c.ArchiveBytes || sum != c.SHA256 {
		return &Error{Path: db.Path, Session: c.SessionID, Seq: -1, Err: wrapf(ErrArchiveHash,
			"cold archive %s: %d bytes hashing to %s…, its row says %d bytes and %s… (OpenClaw refuses it: restore it from a verified backup)", c.Name, n, sum[:12], c.ArchiveBytes, short(c.SHA256))}
	}
	return nil
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// coldRecord is one line of a cold archive (only what is read here).
type coldRecord struct {
	Kind      string `json:"kind"`
	SessionID string `json:"sessionId"`
	Row       struct {
		Seq       *int64  `json:"seq"`
		EventJSON *string `json:"event_json"`
	} `json:"row"`
}

// ColdEvents verifies a cold archive and calls emit with each of its events in seq order, as
// the lines of the transcript they were. The header must name the session, the events must
// come in rising seq order, and their count must be the row's event_count.
func (db *DB) ColdEvents(ctx context.Context, sessionsDir string, c ColdArchive, emit func(seq int64, line []byte) error) error {
	if err := db.VerifyCold(ctx, sessionsDir, c); err != nil {
		return err
	}
	rc, _, err := db.openCold(ctx, sessionsDir, c)
	if err != nil {
		return err
	}
	defer rc.Close()
	fail := func(format string, args ...any) error {
		return &Error{Path: db.Path, Session: c.SessionID, Seq: -1, Err: wrapf(ErrArchiveHash, "cold archive %s: %s", c.Name, fmt.Sprintf(format, args...))}
	}
	dec, err := zstd.NewReader(rc, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<30))
	if err != nil {
		return fail("%v", err)
	}
	defer dec.Close()
	sc := bufio.NewScanner(dec)
	sc.Buffer(nil, 2*MaxEventBytes)
	var n int64
	last := int64(-1)
	header := false
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return err
		}
		var r coldRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fail("a record that is not JSON: %v", err)
		}
		switch r.Kind {
		case "header":
			if r.SessionID != c.SessionID {
				return fail("its header names session %q", r.SessionID)
			}
			header = true
		case "event":
			if r.Row.Seq == nil || r.Row.EventJSON == nil || *r.Row.Seq <= last {
				return fail("an event without seq or event_json, or out of order")
			}
			last = *r.Row.Seq
			n++
			if err := emit(last, []byte(*r.Row.EventJSON)); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, io.EOF) {
		return fail("%v", err)
	}
	switch {
	case !header:
		return fail("no header record")
	case n != c.Events || last != c.LastSeq:
		return fail("%d events up to seq %d, its row says %d up to seq %d", n, last, c.Events, c.LastSeq)
	}
	return nil
}

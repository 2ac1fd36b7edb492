package migration

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// State is how a JSONL file relates to the database's events of its session.
type State string

const (
	// Identical: the file is exactly the session's events.
	Identical State = "identical"
	// Prefix: every byte of the file is the start of the session's events; the database has
	// all of it (and maybe newer events): already imported, safe to retire.
	Prefix State = "prefix"
	// Divergent: the file holds lines the database does not, or different ones: keep it.
	Divergent State = "divergent"
	// NotInDB: the database has no events for the file's session: keep it, it was not
	// imported.
	NotInDB State = "not-in-db"
)

// Verdict is the comparison of one file with the database.
type Verdict struct {
	File      string `json:"file"`
	Where     string `json:"where"`   // import-archive or sessions
	Session   string `json:"session"` // the session id compared with
	State     State  `json:"state"`
	FileLines int64  `json:"file_lines"`
	DBEvents  int64  `json:"db_events"`
	// FirstDiff is the seq (0-based line) of the first line that differs; -1 when none.
	FirstDiff int64  `json:"first_diff_seq"`
	Detail    string `json:"detail,omitempty"`
}

// Compare reads the file at path (plain, gzip or zstd) and the events of session sessionID
// side by side, byte by byte, and says how they relate. Memory is two read buffers.
func Compare(ctx context.Context, db *agentdb.DB, sessionID, path string) (Verdict, error) {
	v := Verdict{File: path, Session: sessionID, FirstDiff: -1}
	f, err := jsonl.Open(path, nil)
	if err != nil {
		return v, err
	}
	defer f.Close()
	tr, err := db.Transcript(ctx, sessionID)
	if err != nil {
		return v, err
	}
	defer tr.Close()
	a, b := bufio.NewReaderSize(f, 256<<10), bufio.NewReaderSize(tr, 256<<10)
	var line int64 // newlines seen in the common prefix
	var fileEnd, dbEnd bool
	last := byte('\n') // the last file byte compared
	for {
		if err := ctx.Err(); err != nil {
			return v, err
		}
		pa, errA := a.Peek(64 << 10)
		pb, errB := b.Peek(64 << 10)
		if errA != nil && !errors.Is(errA, io.EOF) && !errors.Is(errA, bufio.ErrBufferFull) {
			return v, fmt.Errorf("%s: %w", path, errA)
		}
		if errB != nil && !errors.Is(errB, io.EOF) && !errors.Is(errB, bufio.ErrBufferFull) {
			return v, errB
		}
		n := min(len(pa), len(pb))
		if i := mismatch(pa[:n], pb[:n]); i >= 0 {
			line += int64(bytes.Count(pa[:i], nl))
			if i > 0 {
				last = pa[i-1]
			}
			// the rest of each stream is counted from the differing byte on
			a.Discard(i)
			b.Discard(i)
			v.State, v.FirstDiff = Divergent, line
			v.Detail = fmt.Sprintf("first differing seq %d (line %d differs from the database's event)", line, line+1)
			break
		}
		line += int64(bytes.Count(pa[:n], nl))
		if n > 0 {
			last = pa[n-1]
		}
		a.Discard(n)
		b.Discard(n)
		fileEnd, dbEnd = n == len(pa) && errors.Is(errA, io.EOF), n == len(pb) && errors.Is(errB, io.EOF)
		if n == 0 && !fileEnd && !dbEnd {
			continue
		}
		if fileEnd || dbEnd {
			break
		}
	}
	if v.State == "" {
		switch {
		case fileEnd && dbEnd:
			v.State = Identical
		case fileEnd:
			v.State = Prefix
		default:
			v.State, v.FirstDiff = Divergent, line
			v.Detail = fmt.Sprintf("first differing seq %d (the file goes on after the database's last event, from line %d)", line, line+1)
		}
	}
	// Finish both counts (the remainder of each stream).
	restA, err := countLines(a, last)
	if err != nil {
		return v, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := io.Copy(io.Discard, b); err != nil {
		return v, err
	}
	v.FileLines, v.DBEvents = line+restA, tr.Events
	if v.State == Prefix && v.DBEvents > v.FileLines {
		v.Detail = fmt.Sprintf("the database has %d more event(s) after the file's end", v.DBEvents-v.FileLines)
	}
	return v, nil
}

var nl = []byte{'\n'}

// mismatch returns the index of the first differing byte, or -1.
func mismatch(a, b []byte) int {
	for off := 0; off < len(a); off += 4096 {
		end := min(off+4096, len(a))
		if !bytes.Equal(a[off:end], b[off:end]) {
			for i := off; i < end; i++ {
				if a[i] != b[i] {
					return i
				}
			}
		}
	}
	return -1
}

// countLines counts the newlines left in r, plus one for a last line without newline (last
// is the byte before r's rest).
func countLines(r *bufio.Reader, last byte) (int64, error) {
	var n int64
	buf := make([]byte, 64<<10)
	for {
		k, err := r.Read(buf)
		if k > 0 {
			n += int64(bytes.Count(buf[:k], nl))
			last = buf[k-1]
		}
		if errors.Is(err, io.EOF) {
			if last != '\n' {
				n++
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

package recovery

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/valyala/fastjson"

	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/export"
	"github.com/clawdoctor/clawdoctor/jsonl"
	"github.com/clawdoctor/clawdoctor/repair"
)

// entryID is the id of an entry line as the JSONL-era gateway read it (invalid UTF-8
// replaced, JSON white space around it ignored); "" for a header, a line without a string id,
// or one that does not parse.
func entryID(p *fastjson.Parser, line []byte) string {
	t := bytes.TrimSpace(bytes.ToValidUTF8(line, []byte("\uFFFD")))
	if len(t) == 0 || t[0] != '{' {
		return ""
	}
	v, err := p.ParseBytes(t)
	if err != nil || string(v.GetStringBytes("type")) == "session" {
		return ""
	}
	return string(v.GetStringBytes("id"))
}

// databaseIDs are the entry ids of the session's events, and the id of its last event.
func databaseIDs(ctx context.Context, db *agentdb.DB, session string) (ids map[string]bool, last string, err error) {
	tr, err := db.Transcript(ctx, session)
	if err != nil {
		return nil, "", err
	}
	defer tr.Close()
	ids = map[string]bool{}
	var p fastjson.Parser
	for {
		ev, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return ids, last, nil
		}
		if err != nil {
			return nil, "", err
		}
		if id := entryID(&p, ev.Line); id != "" {
			ids[id] = true
			last = id
		} else {
			last = ""
		}
	}
}

// missing names the entries of the original the database does not hold: those of the lines
// before line cut (every line when cut is 0), and those from it on; "" when it holds them all.
func missing(ctx context.Context, path string, cut int64, ids map[string]bool) (before, after string, err error) {
	f, err := jsonl.Open(path, nil)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	r := jsonl.NewReader(f, jsonl.Options{})
	var p fastjson.Parser
	var names [2][]string
	var n [2]int
	for {
		if err := ctx.Err(); err != nil {
			return "", "", err
		}
		l, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", "", err
		}
		k := 0
		if cut > 0 && l.Num >= cut {
			k = 1
		}
		if id := entryID(&p, l.Bytes); id != "" && !ids[id] {
			if n[k]++; len(names[k]) < 3 {
				names[k] = append(names[k], id)
			}
		}
	}
	if n[0] > 0 {
		before = describeIDs(names[0], n[0])
	}
	if n[1] > 0 {
		after = describeIDs(names[1], n[1])
	}
	return before, after, nil
}

// builder makes the recovered stream: the database's events, the original from its line cut
// without the lines already in the database, and the leaf entry.
type builder struct {
	ctx      context.Context
	db       *agentdb.DB
	session  string
	original string
	cut      int64
	ids      map[string]bool
	leaf     []byte

	prefix    int64          // bytes of the database's events
	drop      map[int64]bool // lost lines left out (already in the database)
	tailLines int64          // lost lines kept
	tailNums  []int64        // their line numbers in the original
	replaced  int64          // of them, lines whose invalid UTF-8 is replaced
	skipped   []string
}

// measure reads the database's events once for their size and the original's lines from cut
// for the ones the database holds already (an entry id of both: OpenClaw's recover refuses a
// file with an event identity the database has elsewhere). A lost line over the line cap
// cannot be carried: its error says so.
func (b *builder) measure() error {
	tr, err := b.db.Transcript(b.ctx, b.session)
	if err != nil {
		return err
	}
	n, err := io.Copy(io.Discard, tr)
	tr.Close()
	if err != nil {
		return err
	}
	b.prefix = n
	f, err := jsonl.Open(b.original, nil)
	if err != nil {
		return err
	}
	defer f.Close()
	r := jsonl.NewReader(f, jsonl.Options{})
	var p fastjson.Parser
	b.drop = map[int64]bool{}
	for {
		if err := b.ctx.Err(); err != nil {
			return err
		}
		l, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if l.Num < b.cut {
			continue
		}
		if l.Has(jsonl.FlagTooLong) {
			return &lineError{line: l.Num, why: fmt.Sprintf("longer than the %d-byte line cap", jsonl.DefaultMaxLine)}
		}
		if id := entryID(&p, l.Bytes); id != "" && b.ids[id] {
			b.drop[l.Num] = true
			b.skipped = append(b.skipped, fmt.Sprintf("line %d: entry %s is in the database already", l.Num, id))
			continue
		}
		if l.Has(jsonl.FlagInvalidUTF8) {
			b.replaced++
		}
		b.tailLines++
		b.tailNums = append(b.tailNums, l.Num)
	}
	return nil
}

// lineError is a lost line recover cannot carry.
type lineError struct {
	line int64
	why  string
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d is %s", e.line, e.why) }

// originalLine maps line l of the recovered stream (1-based) to the original's line number, or
// 0 for the database's events and the leaf entry.
func (b *builder) originalLine(l, dbEvents int64) int64 {
	if i := l - dbEvents - 1; i >= 0 && i < int64(len(b.tailNums)) {
		return b.tailNums[i]
	}
	return 0
}

// open returns the recovered stream, again each time (repair plans in up to two passes).
func (b *builder) open() (io.ReadCloser, error) {
	tr, err := b.db.Transcript(b.ctx, b.session)
	if err != nil {
		return nil, err
	}
	f, err := jsonl.Open(b.original, nil)
	if err != nil {
		tr.Close()
		return nil, err
	}
	tail := &tailReader{r: jsonl.NewReader(f, jsonl.Options{}), cut: b.cut, drop: b.drop}
	return &multiCloser{Reader: io.MultiReader(tr, tail, bytes.NewReader(b.leaf)), closers: []io.Closer{tr, f}}, nil
}

// tailReader gives the original's lines from cut on, less the dropped ones, each with its own
// line end; invalid UTF-8 is replaced by U+FFFD, as the JSONL-era gateway read the file and
// as the import must read it (its decoder stops at such bytes).
type tailReader struct {
	r    *jsonl.Reader
	cut  int64
	drop map[int64]bool
	buf  []byte // what Read has not returned yet of the current line
	err  error
}

func (t *tailReader) Read(p []byte) (int, error) {
	for len(t.buf) == 0 {
		if t.err != nil {
			return 0, t.err
		}
		l, err := t.r.Next()
		if err != nil {
			t.err = err
			continue
		}
		if l.Num < t.cut || t.drop[l.Num] {
			continue
		}
		if l.Has(jsonl.FlagTooLong) {
			t.err = &lineError{line: l.Num, why: "over the line cap"}
			continue
		}
		line := l.Bytes
		if l.Has(jsonl.FlagInvalidUTF8) {
			line = repair.ReplaceInvalidUTF8(line)
		}
		t.buf = make([]byte, 0, len(line)+5)
		if l.Has(jsonl.FlagBOM) {
			t.buf = append(t.buf, "\xef\xbb\xbf"...)
		}
		t.buf = append(append(t.buf, line...), l.Terminator()...)
	}
	n := copy(p, t.buf)
	t.buf = t.buf[n:]
	return n, nil
}

type multiCloser struct {
	io.Reader
	closers []io.Closer
}

func (m *multiCloser) Close() error {
	var first error
	for _, c := range m.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// copyItem copies the original into the output dir, beside the recovered file.
func copyItem(name, src string) export.Item {
	return export.Item{Name: name, Source: src, Write: func(w io.Writer) (int64, error) {
		f, err := os.Open(src)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return 0, err
	}}
}

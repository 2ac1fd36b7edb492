package migration

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/valyala/fastjson"

	"github.com/clawdoctor/clawdoctor/jsonl"
)

// importChunk is the read size of OpenClaw's iterateJsonlLinesSync (JSONL_READ_CHUNK_BYTES).
const importChunk = 64 << 10

// MaxPredictLine is the longest line Predict examines; a longer one is held by OpenClaw
// (a JavaScript string can be ~512 MiB) but not here: the prediction stops there, unknown.
var MaxPredictLine = 64 << 20

// Prediction is what OpenClaw's one-way import into SQLite (`openclaw doctor --session-sqlite
// import`, and `doctor --fix` since 2026.9) keeps of one transcript, as 2026.8.1 and 2026.9.6
// read it (doctor-session-sqlite-readers: iterateJsonlLinesSync, iterateTranscriptEvents):
// the file is read in 64 KiB chunks through a fatal UTF-8 decoder, split at "\n", each line
// trimmed of JavaScript white space (a BOM and a CR included) and skipped when empty,
// JSON.parse'd and skipped when falsy; the first line that does not parse, or the first chunk
// that is not valid UTF-8, ends the import of the file, which then holds only what came
// before ("Only the readable prefix can be imported") and exits 0.
type Prediction struct {
	Lines int64 `json:"lines"` // lines of the file (the last one may lack its newline)
	Kept  int64 `json:"kept"`  // events the import stores
	// Stop is the 1-based line the import stops at (not imported, nor anything after it);
	// 0 when it reads the whole file.
	Stop   int64  `json:"stop,omitempty"`
	Reason string `json:"reason,omitempty"` // why it stops there
	// Lost counts the lines from Stop on that hold a JSON value (the entries the runtime read
	// and the import leaves out); LostBytes their bytes.
	Lost      int64 `json:"lost,omitempty"`
	LostBytes int64 `json:"lostBytes,omitempty"`
	// What the import changes in the lines it keeps: they are stored trimmed.
	BOM     int64 `json:"bom,omitempty"`     // lines starting with a byte order mark (dropped)
	CRLF    int64 `json:"crlf,omitempty"`    // lines ending in "\r\n" (stored without the CR)
	Trimmed int64 `json:"trimmed,omitempty"` // other lines with white space around them (trimmed)
	Headers int64 `json:"headers,omitempty"` // session headers kept; after the first, renumbered
	Dups    int64 `json:"dups,omitempty"`    // entries repeating an earlier one's id (or its bytes): stored once
	// Unexamined says why the prediction stopped short (a line over MaxPredictLine); Stop is
	// then the line it could not examine.
	Unexamined string `json:"unexamined,omitempty"`
}

// Truncates reports whether the import leaves out entries the file holds (a line too long to
// examine is not known to stop it: Unexamined says so instead).
func (p Prediction) Truncates() bool { return p.Stop > 0 && p.Lost > 0 && p.Unexamined == "" }

// Rewrites says what the import changes in the lines it keeps, "" when nothing.
func (p Prediction) Rewrites() string {
	var parts []string
	add := func(n int64, what string) {
		if n > 0 {
			parts = append(parts, strconv.FormatInt(n, 10)+" "+what)
		}
	}
	add(p.BOM, "line(s) lose their byte order mark")
	add(p.CRLF, "CRLF line(s) are stored without the CR")
	add(p.Trimmed, "line(s) lose the white space around them")
	add(p.Dups, "entries repeating an earlier id are not stored")
	if p.Headers > 1 {
		parts = append(parts, fmt.Sprintf("%d extra session header(s) are stored renumbered", p.Headers-1))
	}
	if len(parts) == 0 {
		return ""
	}
	out := parts[0]
	for _, s := range parts[1:] {
		out += "; " + s
	}
	return out
}

// PredictFile is Predict of the transcript at path (plain, gzip or zstd: the import reads
// live transcripts, which are plain).
func PredictFile(ctx context.Context, path string) (Prediction, error) {
	f, err := jsonl.Open(path, nil)
	if err != nil {
		return Prediction{}, err
	}
	defer f.Close()
	p, err := predict(ctx, f, f.ReaderAt())
	if err != nil {
		return p, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// Predict reads r as the import reads a transcript and says what it keeps. Memory is one
// chunk and the longest line up to MaxPredictLine.
func Predict(ctx context.Context, r io.Reader) (Prediction, error) {
	return predict(ctx, r, nil)
}

// spillLine is the length past which a line of a file that can be read at an offset is no
// longer gathered chunk by chunk: it is read once at its end, at its size, or not at all when
// it is over MaxPredictLine. Gathering a 64 MiB line doubled its buffer a dozen times (0.5 s of
// page faults and 64 MiB more peak RSS in doctor's bench run on 20,000 sessions).
var spillLine int64 = 1 << 20

// predict is Predict; ra, when not nil, reads r's bytes at an offset (a plain file).
func predict(ctx context.Context, r io.Reader, ra io.ReaderAt) (Prediction, error) {
	var (
		lineStart int64 // offset of the current line's first byte
		lineLen   int64 // its length so far
		spilled   bool  // the current line is read from ra at its end, not gathered
		big       []byte
	)
	var (
		p          Prediction
		dec        utf8Decoder
		frag       []byte // the line being gathered across chunks
		line       int64  // physical lines completed
		stopped    bool   // the import stopped: count what it leaves out
		tooLong    bool   // the current line passed MaxPredictLine
		buf        = make([]byte, importChunk)
		offset     int64
		finished   bool
		seen       = map[[32]byte]struct{}{}
		headerSeen bool
		parser     fastjson.Parser
	)
	// end handles one physical line (without its "\n"): what the import does with it while it
	// reads, what it leaves out once it stopped.
	end := func(b []byte, long bool) {
		line++
		p.Lines++
		if stopped {
			if long {
				p.Lost++ // unexamined, counted as an entry left out
				return
			}
			// the JSONL-era runtime read the file with invalid UTF-8 replaced: its entries
			if t := jsTrim(bytes.ToValidUTF8(b, []byte("\uFFFD"))); len(t) > 0 && jsonParses(t) {
				p.Lost++
				p.LostBytes += int64(len(b)) + 1
			}
			return
		}
		if long {
			stopped, p.Stop = true, line
			p.Unexamined = fmt.Sprintf("line %d is longer than %d bytes: not examined", line, MaxPredictLine)
			p.Lost++
			return
		}
		t := jsTrim(b)
		if len(t) == 0 {
			return
		}
		if !jsonParses(t) {
			stopped, p.Stop = true, line
			p.Reason = fmt.Sprintf("line %d is not valid JSON (%s)", line, preview(t))
			return
		}
		if falsy(t) {
			return
		}
		// The import stores an entry once: a later event with the id of an earlier one of
		// the session, or (without an id) with the same JSON, is skipped. A repeat without an
		// id written differently (other spacing, other escapes) is not seen here. The first
		// header is stored rewritten (its id becomes the row's session id): nothing repeats it.
		if headerSeen || !isHeader(t) {
			key := sha256.Sum256(t)
			if id, ok := entryID(&parser, t); ok {
				key = sha256.Sum256(append([]byte("id\x00"), id...))
			}
			if _, dup := seen[key]; dup {
				p.Dups++
				return
			}
			seen[key] = struct{}{}
		} else {
			headerSeen = true
		}
		p.Kept++
		switch {
		case bytes.HasPrefix(b, bomBytes):
			p.BOM++
		case bytes.HasSuffix(b, []byte("\r")) && len(t) == len(b)-1:
			p.CRLF++
		case len(t) != len(b):
			p.Trimmed++
		}
		if isHeader(t) {
			p.Headers++
		}
	}
	for !finished {
		if err := ctx.Err(); err != nil {
			return p, err
		}
		n, err := io.ReadFull(r, buf)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			finished, err = true, nil
		}
		if err != nil {
			return p, err
		}
		chunk := buf[:n]
		if !stopped {
			if at := dec.feed(chunk); at >= 0 {
				// the decoder throws for this chunk: no line ending in it is read
				stopped, p.Stop = true, line+1
				p.Reason = fmt.Sprintf("invalid UTF-8 at byte %d (line %d): the import's UTF-8 decoder stops at the 64 KiB chunk holding it", offset+int64(at), line+1+int64(bytes.Count(chunk[:at], nl)))
			}
		}
		at := offset
		offset += int64(n)
		for len(chunk) > 0 {
			i := bytes.IndexByte(chunk, '\n')
			part := chunk
			if i >= 0 {
				part = chunk[:i]
			}
			lineLen += int64(len(part))
			switch {
			case spilled:
			case ra != nil && lineLen > spillLine:
				spilled, frag = true, frag[:0]
			default:
				frag, tooLong = grow(frag, part, tooLong)
			}
			if i < 0 {
				break
			}
			if spilled {
				var err error
				if frag, tooLong, big, err = readLineAt(ra, lineStart, lineLen, big); err != nil {
					return p, err
				}
			}
			end(frag, tooLong)
			frag, tooLong, spilled = frag[:0], false, false
			at += int64(i) + 1
			lineStart, lineLen = at, 0
			chunk = chunk[i+1:]
		}
	}
	if spilled {
		var err error
		if frag, tooLong, big, err = readLineAt(ra, lineStart, lineLen, big); err != nil {
			return p, err
		}
	}
	if !stopped && dec.pending() {
		// the final decode() throws on a truncated sequence: the last line is not read
		stopped, p.Stop = true, line+1
		p.Reason = fmt.Sprintf("the file ends inside a UTF-8 sequence (line %d)", line+1)
	}
	if len(frag) > 0 || tooLong {
		end(frag, tooLong)
	}
	return p, nil
}

var bomBytes = []byte("\xef\xbb\xbf")

// readLineAt reads the n bytes of a line at off, into buf when it is big enough; long when the
// line is over MaxPredictLine (then nothing is read).
func readLineAt(ra io.ReaderAt, off, n int64, buf []byte) (line []byte, long bool, _ []byte, _ error) {
	if n > int64(MaxPredictLine) {
		return nil, true, buf, nil
	}
	if int64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	line = buf[:n]
	if _, err := ra.ReadAt(line, off); err != nil {
		return nil, false, buf, fmt.Errorf("reading the line at byte %d again: %w", off, err)
	}
	return line, false, buf, nil
}

func grow(frag, b []byte, long bool) ([]byte, bool) {
	if long || len(frag)+len(b) > MaxPredictLine {
		return frag[:0], true
	}
	return append(frag, b...), false
}

// jsonParses reports whether JSON.parse accepts t (already trimmed): the one grammar, where
// nesting deeper than it examines is still JSON (JSON.parse reads any depth).
func jsonParses(t []byte) bool {
	err := jsonl.Check(t)
	return err == nil || errors.Is(err, jsonl.ErrTooDeep)
}

// falsy reports JSON values JavaScript takes for false, which the import skips: null, false,
// "" and a number equal to 0.
func falsy(t []byte) bool {
	switch string(t) {
	case "null", "false", `""`:
		return true
	}
	if t[0] == '-' || (t[0] >= '0' && t[0] <= '9') {
		f, err := strconv.ParseFloat(string(t), 64)
		return err == nil && f == 0
	}
	return false
}

// isHeader reports a line whose value is an object with "type":"session".
func isHeader(t []byte) bool {
	return t[0] == '{' && bytes.Contains(t, []byte(`"session"`)) && headerType(t)
}

func headerType(t []byte) bool {
	var v struct {
		Type any `json:"type"`
	}
	return json.Unmarshal(t, &v) == nil && v.Type == "session"
}

func preview(t []byte) string {
	if len(t) > 40 {
		return strconv.Quote(string(t[:40])) + "…"
	}
	return strconv.Quote(string(t))
}

// jsTrim is String.prototype.trim over UTF-8: white space and line terminators at both ends
// (U+FEFF and the Unicode space separators included).
func jsTrim(b []byte) []byte {
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if !jsSpace(r) || (r == utf8.RuneError && n <= 1) {
			break
		}
		b = b[n:]
	}
	for len(b) > 0 {
		r, n := utf8.DecodeLastRune(b)
		if !jsSpace(r) || (r == utf8.RuneError && n <= 1) {
			break
		}
		b = b[:len(b)-n]
	}
	return b
}

func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// utf8Decoder is the WHATWG UTF-8 decoder (TextDecoder with fatal: true) fed chunk by chunk:
// feed returns the offset in the chunk of the first byte it throws at, or -1.
type utf8Decoder struct {
	need, seen   int
	lower, upper byte
}

func (d *utf8Decoder) feed(b []byte) int {
	for i, c := range b {
		if d.need == 0 {
			d.lower, d.upper = 0x80, 0xbf
			switch {
			case c <= 0x7f:
			case c >= 0xc2 && c <= 0xdf:
				d.need = 1
			case c >= 0xe0 && c <= 0xef:
				if c == 0xe0 {
					d.lower = 0xa0
				} else if c == 0xed {
					d.upper = 0x9f
				}
				d.need = 2
			case c >= 0xf0 && c <= 0xf4:
				if c == 0xf0 {
					d.lower = 0x90
				} else if c == 0xf4 {
					d.upper = 0x8f
				}
				d.need = 3
			default:
				return i
			}
			continue
		}
		if c < d.lower || c > d.upper {
			return i
		}
		d.lower, d.upper = 0x80, 0xbf
		d.seen++
		if d.seen == d.need {
			d.need, d.seen = 0, 0
		}
	}
	return -1
}

// pending reports an unfinished sequence at the end (the final decode() throws).
func (d *utf8Decoder) pending() bool { return d.need != 0 }

// entryID is the string "id" of an object line.
func entryID(p *fastjson.Parser, t []byte) ([]byte, bool) {
	if t[0] != '{' {
		return nil, false
	}
	v, err := p.ParseBytes(t)
	if err != nil {
		return nil, false
	}
	id := v.Get("id")
	if id == nil || id.Type() != fastjson.TypeString {
		return nil, false
	}
	b, _ := id.StringBytes()
	return b, true
}

package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/clawdoctor/clawdoctor/internal/retention"
)

// elemWriter writes the elements of a cleanup plan's actions and files arrays byte for byte
// as marshalIndent would, without reflection: a plan of 100,000 entries and 117,000 file
// decisions spent more time in encoding/json than in planning (issue 14, scope 9).
type elemWriter struct {
	w       *bufio.Writer
	indent  string // the element's prefix: "\n" + prefix + "    "
	scratch bytes.Buffer
	enc     *json.Encoder // for strings the fast path does not cover
}

func newElemWriter(w *bufio.Writer, prefix string) *elemWriter {
	e := &elemWriter{w: w, indent: "\n" + prefix + "    "}
	e.enc = json.NewEncoder(&e.scratch)
	e.enc.SetEscapeHTML(false)
	return e
}

// str writes s as a JSON string, as encoding/json does without HTML escaping.
func (e *elemWriter) str(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			e.scratch.Reset()
			_ = e.enc.Encode(s) // a string always encodes
			e.w.Write(bytes.TrimSuffix(e.scratch.Bytes(), []byte("\n")))
			return
		}
	}
	e.w.WriteByte('"')
	e.w.WriteString(s)
	e.w.WriteByte('"')
}

// field writes `,\n<indent>  "name": ` (without the comma for the first field).
func (e *elemWriter) field(first bool, name string) {
	if !first {
		e.w.WriteByte(',')
	}
	e.w.WriteString(e.indent)
	e.w.WriteString(`  "`)
	e.w.WriteString(name)
	e.w.WriteString(`": `)
}

func (e *elemWriter) action(a retention.EntryAction) {
	e.w.WriteByte('{')
	e.field(true, "key")
	e.str(a.Key)
	e.field(false, "sessionId")
	e.str(a.SessionID)
	e.field(false, "action")
	e.str(a.Action)
	e.field(false, "reason")
	e.str(a.Reason)
	e.w.WriteString(e.indent)
	e.w.WriteByte('}')
}

func (e *elemWriter) file(f retention.FileAction) {
	e.w.WriteByte('{')
	e.field(true, "path")
	e.str(f.Path)
	e.field(false, "action")
	e.str(f.Action)
	e.field(false, "reason")
	e.str(f.Reason)
	e.field(false, "bytes")
	var num [20]byte
	e.w.Write(strconv.AppendInt(num[:0], f.Bytes, 10))
	if f.To != "" {
		e.field(false, "to")
		e.str(f.To)
	}
	e.w.WriteString(e.indent)
	e.w.WriteByte('}')
}

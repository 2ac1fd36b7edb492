package report

import (
	"fmt"
	"io"

	"github.com/clawdoctor/clawdoctor/internal/export"
)

// Export renders what clawdoctor export wrote: one row per file, then the skipped sessions
// and a closing line.
func Export(w io.Writer, res *export.Result, f Format) error {
	if f != JSON {
		res = escaped(res)
	}
	if f == JSON {
		if res.Files == nil {
			res.Files = []export.File{}
		}
		return WriteJSON(w, res)
	}
	fmt.Fprintf(w, "exported %s (snapshot: %s) into %s\n", res.DB, res.Snapshot, res.Out)
	t := NewTable(w)
	if f == Markdown {
		t = NewMarkdownTable(w)
	}
	t.Header("file", "session key", "events", "bytes")
	var bytes, events int64
	for _, fl := range res.Files {
		key := fl.Key
		if key == "" {
			key = "-"
		}
		if err := t.Append(fl.Path, key, fl.Events, fl.Bytes); err != nil {
			return err
		}
		bytes += fl.Bytes
		events += fl.Events
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(w, "skipped %s: %s\n", s.Session, s.Reason)
	}
	fmt.Fprintf(w, "%d file(s), %d events, %s; %s with %d entries\n", len(res.Files), events, statsBytes(bytes), res.Store, res.Entries)
	return nil
}

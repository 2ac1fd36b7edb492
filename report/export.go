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
	writeSalvage(w, res.Salvage)
	return nil
}

// writeSalvage says what a salvage run could not read.
func writeSalvage(w io.Writer, sv *export.Salvage) {
	if sv == nil {
		return
	}
	for _, n := range sv.Notes {
		fmt.Fprintf(w, "salvage: %s\n", n)
	}
	if sv.Unlisted != "" {
		fmt.Fprintf(w, "salvage: the list of sessions could not be read (%s): sessions were taken from the events\n", sv.Unlisted)
	}
	if sv.NoStore != "" {
		fmt.Fprintf(w, "salvage: the session nodes could not be read (%s): sessions.json lists none\n", sv.NoStore)
	}
	for _, d := range sv.Damaged {
		lost := d.Missing
		if lost == "" {
			lost = "nothing"
		}
		fmt.Fprintf(w, "salvage: session %s written in part: %d event(s); lost: %s (%s)\n", d.Session, d.Events, lost, d.Reason)
	}
	for _, l := range sv.LostRows {
		next := "the end of the table"
		if l.Next > 0 {
			next = fmt.Sprintf("rowid %d", l.Next)
		}
		fmt.Fprintf(w, "salvage: transcript_events rows after rowid %d up to %s could not be read: %s\n", l.After, next, l.Err)
	}
	if !sv.Lost() {
		fmt.Fprintln(w, "salvage: nothing was lost: every session read whole")
	}
}

package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/clawdoctor/clawdoctor/jsonl"
)

// Validate renders the result of clawdoctor validate: JSON for scripts, or one row per file
// (lines, bytes, bad lines, lines per anomaly), then the first bad lines of each file as
// path:line: reason, and a closing summary line.
func Validate(w io.Writer, res jsonl.Result, f Format) error {
	if f != JSON {
		res = escaped(res)
	}
	if f == JSON {
		return WriteJSON(w, res)
	}
	t := NewTable(w)
	if f == Markdown {
		t = NewMarkdownTable(w)
	}
	t.Header("file", "compression", "disk bytes", "bytes", "lines", "bad", "anomalies")
	for _, s := range res.Files {
		comp, disk, bytes, lines, bad := s.Compression, strconv.FormatInt(s.DiskBytes, 10),
			strconv.FormatInt(s.Bytes, 10), strconv.FormatInt(s.Lines, 10), strconv.FormatInt(s.BadLines, 10)
		anomalies := anomalyList(s)
		if s.Err != "" {
			if s.Lines == 0 && s.Bytes == 0 {
				comp, disk, bytes, lines, bad = "-", "-", "-", "-", "-"
			}
			anomalies = strings.TrimPrefix(anomalies+", unreadable", ", ")
		}
		if err := t.Append(s.Path, comp, disk, bytes, lines, bad, anomalies); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, s := range res.Files {
		for _, b := range s.Bad {
			flags := ""
			if b.Flags != "" {
				flags = " [" + b.Flags + "]"
			}
			if _, err := fmt.Fprintf(w, "%s:%d: %s%s\n", s.Path, b.Line, b.Reason, flags); err != nil {
				return err
			}
		}
		if more := s.BadLines - int64(len(s.Bad)); more > 0 {
			if _, err := fmt.Fprintf(w, "%s: ... and %d more bad lines\n", s.Path, more); err != nil {
				return err
			}
		}
		if s.Err != "" {
			if _, err := fmt.Fprintf(w, "%s: error: %s\n", s.Path, s.Err); err != nil {
				return err
			}
		}
	}
	sum := res.Summary
	_, err := fmt.Fprintf(w, "%d file(s): %d clean, %d with findings, %d unreadable; %d lines, %d bytes, %d bad\n",
		sum.Files, sum.Clean, sum.Findings, sum.Unreadable, sum.Lines, sum.Bytes, sum.BadLines)
	return err
}

// anomalyList names the flags a file's lines carried, with their line counts: "crlf=3 nul=1".
func anomalyList(s jsonl.Summary) string {
	var parts []string
	for _, f := range jsonl.AllFlags {
		if n := s.Count(f); n > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", f, n))
		}
	}
	return strings.Join(parts, " ")
}

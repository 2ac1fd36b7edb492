package session_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/session"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// TestScanRebuildsAnomalousFiles: whatever bytes a line holds, the items of Scan carry enough
// to write the file back identically (entries and headers through their Raw).
func TestScanRebuildsAnomalousFiles(t *testing.T) {
	const hdr = `{"type":"session","version":3,"id":"S","timestamp":"T","cwd":"/"}`
	const ent = `{"type":"message","id":"m","parentId":null,"timestamp":"T","message":{"role":"user","content":"x"}}`
	for _, tc := range []struct {
		name, in string
		entries  int
	}{
		{"bom", "\xEF\xBB\xBF" + hdr + "\n" + ent + "\n", 1},
		{"crlf", hdr + "\r\n" + ent + "\r\n", 1},
		{"torn last line", hdr + "\n" + ent + "\n" + `{"type":"mess`, 1},
		{"no final newline", hdr + "\n" + ent, 1},
		{"invalid utf-8 in a string", hdr + "\n" + `{"type":"message","id":"m","message":{"role":"user","content":"` + "\xff\xfe" + `"}}` + "\n", 1},
		{"nul bytes", hdr + "\n\x00\x00\x00\n" + ent + "\n", 1},
		{"lone cr", hdr + "\r" + ent + "\n", 0},
		{"spaces around json", hdr + "\n  " + ent + " \t\n", 1},
		{"blank lines", "\n\n" + hdr + "\n\n" + ent + "\n\n", 1},
		{"glued objects", hdr + "\n" + ent + ent + "\n", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			entries := 0
			err := session.Scan(context.Background(), bytes.NewReader([]byte(tc.in)), "f", session.ScanOptions{}, func(it session.Item) error {
				if it.Line.Has(jsonl.FlagBOM) {
					out.WriteString("\xEF\xBB\xBF")
				}
				switch it.Kind {
				case session.ItemEntry:
					entries++
					out.Write(it.Entry.Raw)
				case session.ItemHeader, session.ItemStrayHeader:
					out.Write(it.Header.Raw)
				default:
					out.Write(it.Line.Bytes)
				}
				if it.Line.Has(jsonl.FlagCRLF) {
					out.WriteByte('\r')
				}
				if !it.Line.Has(jsonl.FlagNoNewline) {
					out.WriteByte('\n')
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.in {
				t.Errorf("rebuilt %q\nwant    %q", out.String(), tc.in)
			}
			if entries != tc.entries {
				t.Errorf("%d entries, want %d", entries, tc.entries)
			}
		})
	}
}

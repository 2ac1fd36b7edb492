package agentdb

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
)

// The page reader on the undamaged real databases finds exactly the events SQLite reads, in
// the same sessions and seqs, from the table's own b-tree.
func TestScanFileEqualsSQLite(t *testing.T) {
	for _, fx := range []string{fixtures.SQLite81, fixtures.SQLite96} {
		t.Run(fx, func(t *testing.T) {
			dir := t.TempDir()
			if err := fixtures.WriteRealState(fx, dir); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "agents", "main", "agent", FileName)
			want := map[string]string{}
			db, err := OpenSessions(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			sessions, _ := db.Sessions(context.Background())
			for _, s := range sessions {
				tr, _ := db.Transcript(context.Background(), s.ID)
				for {
					ev, err := tr.Next()
					if err != nil {
						break
					}
					want[s.ID+"#"+itoa(ev.Seq)] = string(ev.Line)
				}
				tr.Close()
			}
			db.Close()
			got := map[string]string{}
			rs, err := ScanFile(context.Background(), path, func(session string, seq int64, line []byte) error {
				got[session+"#"+itoa(seq)] = string(line)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if rs.ByShape || len(rs.Damaged) > 0 || len(got) != len(want) {
				t.Fatalf("scan %+v: %d events, SQLite reads %d", rs, len(got), len(want))
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s differs", k)
				}
			}
		})
	}
}

func itoa(n int64) string {
	b := []byte{}
	if n == 0 {
		return "0"
	}
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// FuzzRecord: the record decoder takes any bytes without a panic, and every value it returns
// lies inside the input.
func FuzzRecord(f *testing.F) {
	f.Add([]byte{0x04, 0x17, 0x01, 0x00, 'a', 'b', 'c', 'd', 'e', 0x05})
	f.Add([]byte{0x81, 0x00})
	f.Add([]byte{0x02, 0x0c})
	f.Fuzz(func(t *testing.T, b []byte) {
		vals, ok := record(b)
		if !ok {
			return
		}
		for _, v := range vals {
			if len(v.b) > len(b) {
				t.Fatalf("a value longer than the record")
			}
		}
		eventOf(vals)
	})
}

// FuzzScanFile: the page reader takes any file (a damaged header, cell pointers and overflow
// chains that loop or point anywhere) without a panic or a hang.
func FuzzScanFile(f *testing.F) {
	dir := f.TempDir()
	if err := fixtures.WriteRealState(fixtures.SQLite96, dir); err == nil {
		if b, err := os.ReadFile(filepath.Join(dir, "agents", "main", "agent", FileName)); err == nil {
			f.Add(b[:8192]) // the header and the first page of the schema
		}
	}
	f.Add([]byte("SQLite format 3\x00\x10\x00\x01\x01\x00\x40\x20\x20"))
	p := filepath.Join(dir, "fuzz.sqlite")
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<20 {
			return
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		ScanFile(context.Background(), p, func(string, int64, []byte) error { return nil })
	})
}

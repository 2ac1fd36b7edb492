package agentdb_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/agentdb"
)

// importedOriginals maps the session id in each header to the bytes of the original
// transcripts that `openclaw doctor --session-sqlite import` moved into the import archive
// (checkpoints, which share their session's id, are left out).
func importedOriginals(t *testing.T, state string) map[string][]byte {
	t.Helper()
	dir := filepath.Join(state, "agents", "main", "session-sqlite-import-archive")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range ents {
		n := e.Name()
		if !strings.Contains(n, ".jsonl.imported-") || strings.HasPrefix(n, "archive-tier.") || strings.Contains(n, ".trajectory.") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		var h struct{ ID string }
		first, _, _ := bytes.Cut(data, []byte("\n"))
		if err := json.Unmarshal(first, &h); err != nil || h.ID == "" {
			t.Fatalf("%s: no header id (%v)", n, err)
		}
		out[h.ID] = data
	}
	return out
}

// TestTranscriptByteIdentical: every session of databases made by the real 2026.8.1 and
// 2026.9.6 import reads back, as JSONL, byte for byte the transcript it was imported from,
// zstd events included.
func TestTranscriptByteIdentical(t *testing.T) {
	for _, name := range []string{fixtures.SQLite81, fixtures.SQLite96} {
		t.Run(name, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "s")
			if err := fixtures.WriteRealState(name, state); err != nil {
				t.Fatal(err)
			}
			orig := importedOriginals(t, state)
			db, err := agentdb.OpenSessions(context.Background(), filepath.Join(state, "agents", "main", "agent", agentdb.FileName))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			sessions, err := db.Sessions(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(sessions) != len(orig) || len(sessions) < 6 {
				t.Fatalf("%d sessions in the database, %d originals", len(sessions), len(orig))
			}
			compressed := 0
			for _, s := range sessions {
				tr, err := db.Transcript(context.Background(), s.ID)
				if err != nil {
					t.Fatal(err)
				}
				var got bytes.Buffer
				buf := make([]byte, 777) // odd size: events straddle reads
				if _, err := io.CopyBuffer(struct{ io.Writer }{&got}, struct{ io.Reader }{tr}, buf); err != nil {
					t.Fatal(err)
				}
				tr.Close()
				if !bytes.Equal(got.Bytes(), orig[s.ID]) {
					t.Errorf("session %s (%s): %d bytes read, original %d", s.ID, s.Key, got.Len(), len(orig[s.ID]))
				}
				if tr.Events != s.Events || tr.FirstGap != -1 || s.Key == "" {
					t.Errorf("session %s: %d events read of %d, first gap %d, key %q", s.ID, tr.Events, s.Events, tr.FirstGap, s.Key)
				}
				tr2, _ := db.Transcript(context.Background(), s.ID)
				for {
					ev, err := tr2.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					if ev.Compressed {
						compressed++
					}
				}
				tr2.Close()
			}
			if _, z, _ := db.EventBytes(context.Background()); int(z) != compressed || (name == fixtures.SQLite96 && z == 0) {
				t.Errorf("%d zstd events read, %d in the database", compressed, z)
			}
		})
	}
}

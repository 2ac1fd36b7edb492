package agentdb_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/agentdb"
)

// benchDB generates 64 MiB of sessions as a SQLite-era database (the real 2026.9.6 schema)
// once per run.
func benchDB(b *testing.B) string {
	b.Helper()
	if p := os.Getenv("CLAWDOCTOR_BENCH_DB"); p != "" {
		return p
	}
	dir := b.TempDir()
	if _, err := fixtures.Generate(context.Background(), filepath.Join(dir, "jsonl"), fixtures.Options{Sessions: 20, Size: 64 << 20, Seed: 5,
		SQLiteOut: filepath.Join(dir, "sqlite")}); err != nil {
		b.Fatal(err)
	}
	return filepath.Join(dir, "sqlite", "agents", "main", "agent", agentdb.FileName)
}

// BenchmarkTranscriptRead streams every session of the database as JSONL.
func BenchmarkTranscriptRead(b *testing.B) {
	path := benchDB(b)
	ctx := context.Background()
	var n int64
	for b.Loop() {
		db, err := agentdb.OpenSessions(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		sessions, _ := db.Sessions(ctx)
		n = 0
		for _, s := range sessions {
			tr, err := db.Transcript(ctx, s.ID)
			if err != nil {
				b.Fatal(err)
			}
			k, err := io.Copy(io.Discard, tr)
			if err != nil {
				b.Fatal(err)
			}
			n += k
			tr.Close()
		}
		db.Close()
	}
	b.SetBytes(n)
}

package store_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

// BenchmarkInventory measures stats over a generated state dir named by
// CLAWDOCTOR_BENCH_STATE (e.g. `clawdoctor fixtures generate --out DIR --agents 4
// --sessions 5000`); it is skipped without one.
func BenchmarkInventory(b *testing.B) {
	dir := os.Getenv("CLAWDOCTOR_BENCH_STATE")
	if dir == "" {
		b.Skip("set CLAWDOCTOR_BENCH_STATE to a generated state dir")
	}
	targets, err := store.Targets(dir, "", true, nil)
	if err != nil {
		b.Fatal(err)
	}
	var size int64
	for _, t := range targets {
		if st, err := os.Stat(t.SessionsDir + "/sessions.json"); err == nil {
			size += st.Size()
		}
	}
	b.SetBytes(size) // MB/s of sessions.json handled
	for b.Loop() {
		if _, err := store.Inventory(context.Background(), targets, store.StatsOptions{Now: time.Now()}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

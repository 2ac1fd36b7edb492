package retention_test

import (
	"context"
	"os"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/retention"
)

// BenchmarkGather reads the store named by $CLEANUP_BENCH_STORE (scripts/bench/cleanup.sh
// makes one of 100,000 entries and 200,000 files).
func BenchmarkGather(b *testing.B) {
	store := os.Getenv("CLEANUP_BENCH_STORE")
	if store == "" {
		b.Skip("set CLEANUP_BENCH_STORE to a sessions.json")
	}
	for b.Loop() {
		if _, err := retention.GatherWith(context.Background(), store, "main", retention.GatherOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

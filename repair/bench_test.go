package repair

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"
)

// benchInput is a damaged transcript: $REPAIR_BENCH_FILE, or a generated 32 MB one.
func benchInput(b *testing.B) []byte {
	if p := os.Getenv("REPAIR_BENCH_FILE"); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	data, _ := crashInput(32<<20, 3)
	return data
}

// BenchmarkPlan measures the planning pass (read, validate, decide) in MB/s.
func BenchmarkPlan(b *testing.B) {
	data := benchInput(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := PlanBytes(data, "s1.jsonl", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanApply measures planning plus streaming the edits into io.Discard.
func BenchmarkPlanApply(b *testing.B) {
	data := benchInput(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		p, err := PlanBytes(data, "s1.jsonl", Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Apply(context.Background(), p, bytes.NewReader(data), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

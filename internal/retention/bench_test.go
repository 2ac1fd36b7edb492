package retention_test

import (
	"fmt"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/config"
	"github.com/clawdoctor/clawdoctor/internal/retention"
)

// benchInput is a store of n entries and 2n files: each entry's transcript, half of them with
// a trajectory, plus reset archives and orphans; a tenth of the entries are channels.
func benchInput(n int) retention.Input {
	in := retention.Input{AgentID: "main", StorePath: "/s/sessions.json", StoreName: "sessions.json"}
	in.Files = append(in.Files, retention.File{Name: "sessions.json", Size: int64(n) * 300, ModMs: nowMs()})
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		key := fmt.Sprintf("agent:main:direct:%d", i)
		if i%10 == 0 {
			key = fmt.Sprintf("agent:main:discord:channel:%d", i)
		}
		e := ent(key, id, float64(i%120)+0.5)
		e.ChunkBytes = 300
		in.Entries = append(in.Entries, e)
		in.Files = append(in.Files, file(id+".jsonl", 20_000, float64(i%90)))
		if i%2 == 0 {
			in.Files = append(in.Files, file(id+".trajectory.jsonl", 1000, float64(i%90)))
		} else {
			in.Files = append(in.Files, file(fmt.Sprintf("%s.jsonl.reset.2026-0%d-01T00-00-00.000Z", id, 1+i%4), 5000, float64(i%100)))
		}
	}
	return in
}

// BenchmarkPlan100k plans a store of 100,000 entries and 200,000 files with a disk budget
// that reaches tier 3 (the target: under 5 s and 512 MiB).
func BenchmarkPlan100k(b *testing.B) {
	in := benchInput(100_000)
	s, err := retention.Resolve(config.Maintenance{MaxEntries: 80_000.0, MaxDiskBytes: "1gb", PruneAfter: "100d"}, config.Cron{}, retention.Overrides{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		p := retention.Make(&in, retention.Options{Settings: s, Now: now, DryRun: true})
		if p.Summary.DiskBudget == nil || p.Summary.DiskBudget.RemovedEntries == 0 {
			b.Fatalf("budget did not reach tier 3: %+v", p.Summary.DiskBudget)
		}
	}
}

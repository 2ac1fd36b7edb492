package audit

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// spillInput is a transcript of n turns with faults at both ends, so checks after the scan
// read details from the start (spilled) and from the end (in memory): a dangling parent and an
// unanswered call early, a duplicate id, a displaced result and a lost prompt late.
func spillInput(n int) []byte {
	var b bytes.Buffer
	w := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	w(`{"type":"session","version":3,"id":"5d1c0000-0000-4000-8000-000000000009","timestamp":"2026-05-01T08:00:00.000Z","cwd":"/w"}`)
	w(`{"type":"message","id":"00000001","parentId":null,"timestamp":"2026-05-01T08:00:00.000Z","message":{"role":"user","content":"start","timestamp":1}}`)
	w(`{"type":"message","id":"00000002","parentId":"0000dead","timestamp":"2026-05-01T08:00:00.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_early","name":"exec","arguments":{}}],"provider":"anthropic","model":"m","stopReason":"toolUse","timestamp":1}}`)
	parent := "00000002"
	for i := 3; i < n; i += 3 {
		u, a, r := fmt.Sprintf("%08x", i), fmt.Sprintf("%08x", i+1), fmt.Sprintf("%08x", i+2)
		w(`{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-05-01T08:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"please do step %d %s"}],"timestamp":2}}`, u, parent, i, strings.Repeat("x", i%50))
		w(`{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-05-01T08:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_%d","name":"read","arguments":{"p":1}}],"provider":"anthropic","model":"m","stopReason":"toolUse","timestamp":3}}`, a, u, i)
		w(`{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-05-01T08:00:03.000Z","message":{"role":"toolResult","toolCallId":"call_%d","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":4}}`, r, a, i)
		parent = r
	}
	w(`{"type":"message","id":"00000003","parentId":%q,"timestamp":"2026-05-01T08:00:04.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_late","name":"exec","arguments":{}}],"provider":"anthropic","model":"m","stopReason":"error","errorMessage":"boom","timestamp":5}}`, parent)
	w(`{"type":"message","id":"ffff0001","parentId":"00000003","timestamp":"2026-05-01T08:00:05.000Z","message":{"role":"user","content":%q,"timestamp":6}}`, RetryText)
	w(`{"type":"message","id":"ffff0002","parentId":"ffff0001","timestamp":"2026-05-01T08:00:06.000Z","message":{"role":"toolResult","toolCallId":"call_early","toolName":"exec","content":"late","isError":false,"timestamp":7}}`)
	return b.Bytes()
}

// TestSpilledScanMatchesInMemory: forcing every log of the scan to spill to its temp file gives
// the same findings, and the spill really happened.
func TestSpilledScanMatchesInMemory(t *testing.T) {
	in := spillInput(60000)
	run := func() ([]Finding, *scan) {
		s := newScan(context.Background(), "t.jsonl", Options{})
		s.deliveries = nil
		fs, _, err := s.run(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		return fs, s
	}
	want, s := run()
	if s.details.b.spills+s.calls.spills+s.cold.b.spills != 0 {
		t.Fatal("the in-memory run spilled already: the input is too big for this test")
	}
	defer func(d, c, k int) { detailBudget, callBudget, coldBudget = d, c, k }(detailBudget, callBudget, coldBudget)
	detailBudget, callBudget, coldBudget = 64<<10, 64<<10, 64<<10
	got, s := run()
	if s.details.b.spills == 0 || s.calls.spills == 0 || s.cold.b.spills == 0 {
		t.Fatal("the small budgets did not make the scan spill")
	}
	if len(want) < 4 {
		t.Fatalf("only %d findings: the faults were not found", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings differ when spilled (-memory +spilled):\n%s", diff)
	}
}

// TestIndexSizes: the per-entry structs are what bounds the audit's memory and spill traffic
// (spill.go); growing one should be a decision, not an accident.
func TestIndexSizes(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want uintptr
	}{
		{"node", unsafe.Sizeof(node{}), 12},
		{"detail", unsafe.Sizeof(detail{}), 40},
		{"rare", unsafe.Sizeof(rare{}), 16},
		{"call", unsafe.Sizeof(call{}), 32},
		{"cref", unsafe.Sizeof(cref(0)), 8},
	} {
		if tc.got != tc.want {
			t.Errorf("%s is %d bytes, want %d", tc.name, tc.got, tc.want)
		}
	}
}

// TestChunkLen: every log's chunk, written out in one call, holds at least minChunkBytes (the
// string arena's were 8 KiB, and a write call costs about as much as copying 50 KB).
func TestChunkLen(t *testing.T) {
	for _, tc := range []struct{ size, want int }{
		{1, 64 << 10}, {4, 16 << 10}, {8, 8 << 10}, {16, 8 << 10}, {int(unsafe.Sizeof(detail{})), 8 << 10},
	} {
		if got := chunkLen(tc.size); got != tc.want {
			t.Errorf("chunkLen(%d) = %d, want %d", tc.size, got, tc.want)
		}
	}
	if s := newColdArena(coldBudget); s.b.clen < minChunkBytes { // a chunk of bytes
		t.Errorf("the string arena's chunks hold %d bytes", s.b.clen)
	}
}

// idQueueInput has what the queued id index must get right: parents named while still queued
// (one and several entries back), ids used twice inside one queue run and across runs (a
// later child must hang off the later entry), ids too long for their cold copy, dangling
// parents, and parents that come after their child.
func idQueueInput() []byte {
	var b bytes.Buffer
	w := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	w(`{"type":"session","version":3,"id":"5d1c0000-0000-4000-8000-00000000000a","timestamp":"2026-05-01T08:00:00.000Z","cwd":"/w"}`)
	long := func(k int) string { return fmt.Sprintf("long-%d-%s", k%3, strings.Repeat("z", 5000)) }
	parent := ""
	for i := 0; i < 400; i++ {
		id := fmt.Sprintf("%08x", i%150) // every id is used again after 150 entries
		switch {
		case i%41 == 0:
			id = long(i)
		case i%13 == 0:
			id = fmt.Sprintf("odd id %d", i%60) // not packable: hashed, kept in the cold arena
		}
		p := parent
		switch {
		case i%7 == 0 && i > 3:
			p = fmt.Sprintf("%08x", (i-3)%150) // a few entries back: often still queued
		case i%11 == 0:
			p = "0000dead" // dangling
		case i%17 == 0:
			p = fmt.Sprintf("%08x", (i+2)%150) // comes later in the file
		}
		pj := "null"
		if p != "" {
			pj = fmt.Sprintf("%q", p)
		}
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		w(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-05-01T08:00:01.000Z","message":{"role":%q,"content":[{"type":"text","text":"turn %d"}],"timestamp":%d}}`, id, pj, role, i, i+1)
		parent = id
	}
	return b.Bytes()
}

// TestIDQueueMatchesImmediateInserts: the queued id index (flushIDs) gives the findings that
// inserting each id as it is read gives.
func TestIDQueueMatchesImmediateInserts(t *testing.T) {
	in := idQueueInput()
	run := func(queue int) []Finding {
		defer func(q int) { idQueueLen = q }(idQueueLen)
		idQueueLen = queue
		fs, _, err := newScan(context.Background(), "t.jsonl", Options{MaxPerRule: 1000}).run(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		return fs
	}
	want := run(1)
	dups := 0
	for _, f := range want {
		if f.Rule == "tree.duplicate-id" {
			dups++
		}
	}
	if dups < 200 {
		t.Fatalf("only %d duplicate-id findings: the input does not exercise the index", dups)
	}
	for _, q := range []int{2, 5, 32, 64} {
		if diff := cmp.Diff(want, run(q)); diff != "" {
			t.Errorf("queue of %d: findings differ from immediate inserts (-immediate +queued):\n%s", q, diff)
		}
	}
}

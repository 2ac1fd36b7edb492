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
	if s.details.spills+s.calls.spills+s.cold.b.spills != 0 {
		t.Fatal("the in-memory run spilled already: the input is too big for this test")
	}
	defer func(d, c, k int) { detailBudget, callBudget, coldBudget = d, c, k }(detailBudget, callBudget, coldBudget)
	detailBudget, callBudget, coldBudget = 64<<10, 64<<10, 64<<10
	got, s := run()
	if s.details.spills == 0 || s.calls.spills == 0 || s.cold.b.spills == 0 {
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
		{"node", unsafe.Sizeof(node{}), 16},
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
	if s := newColdArena(coldBudget); s.b.clen*1 < minChunkBytes {
		t.Errorf("the string arena's chunks hold %d bytes", s.b.clen)
	}
}

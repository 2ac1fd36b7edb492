package audit

import (
	"bytes"
	"fmt"
	"testing"
)

// The Reader copies the unfinished line at the end of a handed-off buffer after the handoff
// returns, so readBatches must not give the batch owning that buffer to the scan before then:
// a scan done with it puts it in batchPool, where another scan's reader fills it. Here the
// consumer scribbles over every batch's buffer as soon as it has it (what that other reader
// does), before it lets the reader go on (the work channel is unbuffered): every line must
// still come out whole. Before the fix, the line cut by each buffer's end came out garbled.
func TestBatchHandedOverAfterTheCarryIsCopied(t *testing.T) {
	var in bytes.Buffer
	var want []string
	for i := range 600 {
		l := fmt.Sprintf(`{"type":"message","id":"m%04d","text":"%s"}`, i, bytes.Repeat([]byte{'a' + byte(i%26)}, 40+i%70))
		want = append(want, l)
		in.WriteString(l + "\n")
	}
	out, work := make(chan *batch), make(chan *batch)
	free := make(chan *batch, 3)
	done := make(chan struct{})
	defer close(done)
	go readBatches(bytes.NewReader(in.Bytes()), 0, 4096, out, work, free, done)
	var got []string
	for b := range out {
		for _, l := range b.lines {
			got = append(got, string(l.Bytes))
		}
		last := b.err != nil
		for i := range b.buf[:cap(b.buf)] {
			b.buf[:cap(b.buf)][i] = '#'
		}
		<-work
		if last {
			break
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("line %d:\n got %q\nwant %q", i+1, got[i], want[i])
		}
	}
}

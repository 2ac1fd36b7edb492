package repair

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"testing"
)

// TestHandOverStreamsTheSameBytes plans damaged transcripts with emit, as the overlapped
// repair does, and checks what the writer gets: edits in order, a flush at the first change
// (writing starts there, not at the second change or the end), flushes at most flushStep
// apart after it, and, applied as they come, exactly the bytes of the finished plan.
func TestHandOverStreamsTheSameBytes(t *testing.T) {
	for _, tc := range []struct {
		size int
		seed int64
	}{{1 << 20, 1}, {3 << 20, 2}, {40 << 20, 3}} {
		data, _ := crashInput(tc.size, tc.seed)
		var got []Edit
		open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
		plan, second, err := planStream(context.Background(), open, "s1.jsonl", Options{}, func(e Edit) { got = append(got, e) })
		if err != nil || second {
			t.Fatalf("seed %d: %v, second pass %v", tc.seed, err, second)
		}
		if !plan.Changed() || len(plan.Edits) < 2 {
			t.Fatalf("seed %d: %d edits: the input should need several", tc.seed, len(plan.Edits))
		}
		if len(got) == 0 || got[0].Off != plan.Edits[0].Off || got[0].End != got[0].Off {
			t.Fatalf("seed %d: first hand-over %+v, want a flush at the first change (%d)", tc.seed, got[0], plan.Edits[0].Off)
		}
		var real []Edit
		last := int64(0)
		for _, e := range got {
			if e.Off < last {
				t.Fatalf("seed %d: edit at %d after %d", tc.seed, e.Off, last)
			}
			if e.Off == e.End && len(e.Repl) == 0 {
				if e.Off-last > flushStep+1<<20 && last > 0 {
					t.Errorf("seed %d: %d bytes between flushes", tc.seed, e.Off-last)
				}
			} else {
				real = append(real, e)
			}
			last = e.End
		}
		if len(real) != len(plan.Edits) {
			t.Fatalf("seed %d: %d edits handed over, the plan has %d", tc.seed, len(real), len(plan.Edits))
		}
		var streamed, whole bytes.Buffer
		a := applier{ctx: context.Background(), br: bufioReader(data), w: &streamed}
		for _, e := range got {
			if err := a.edit(e); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := a.finish(plan); err != nil {
			t.Fatal(err)
		}
		if _, err := Apply(context.Background(), plan, bytes.NewReader(data), &whole); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(streamed.Bytes(), whole.Bytes()) {
			t.Fatalf("seed %d: streamed %d bytes, the plan gives %d", tc.seed, streamed.Len(), whole.Len())
		}
	}
}

func bufioReader(b []byte) *bufio.Reader { return bufio.NewReaderSize(bytes.NewReader(b), 1<<20) }

package safefile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// TestWriteBehindPassesBytesAndKicksInSteps: written bytes, by Write and by ReadFrom (the
// kernel copy repair uses), reach the file unchanged, and writeback is started every
// writeBehindStep bytes (kicked follows done in whole steps).
func TestWriteBehindPassesBytesAndKicksInSteps(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	chunk := bytes.Repeat([]byte("0123456789abcdef"), writeBehindStep/16/3)
	if err := os.WriteFile(src, bytes.Repeat(chunk, 4), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "dst"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := &writeBehind{f: f}
	var want bytes.Buffer
	for i := range 5 {
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
		want.Write(chunk)
		if i == 2 {
			in, _ := os.Open(src)
			if _, err := w.ReadFrom(in); err != nil {
				t.Fatal(err)
			}
			in.Close()
			want.Write(bytes.Repeat(chunk, 4))
		}
	}
	got, _ := os.ReadFile(f.Name())
	if !bytes.Equal(got, want.Bytes()) || w.done != int64(want.Len()) {
		t.Fatalf("%d bytes in the file, %d written, %d counted", len(got), want.Len(), w.done)
	}
	if w.kicked == 0 || w.done-w.kicked >= writeBehindStep {
		t.Fatalf("writeback started up to %d of %d bytes", w.kicked, w.done)
	}
}

// TestWriteBehindFlushesAheadAndKeepsItsError: past flushAheadStep a background flush runs
// (where the platform has one), wait waits for it, and a failed one is returned by wait and
// fails ReplaceWith, leaving the target as it was: Linux reports a writeback error to one
// fsync only, so a dropped one would let the final fsync pass.
func TestWriteBehindFlushesAheadAndKeepsItsError(t *testing.T) {
	if !canFlushAhead {
		t.Skip("no background flush on this platform")
	}
	boom := errors.New("injected flush failure")
	var calls atomic.Int32
	fail := false
	old := flushFile
	t.Cleanup(func() { flushFile = old })
	flushFile = func(f *os.File) error {
		calls.Add(1)
		if fail {
			return boom
		}
		return old(f)
	}
	dir := t.TempDir()
	chunk := bytes.Repeat([]byte{'x'}, 1<<20)
	fill := func(w io.Writer) error {
		for range (flushAheadStep + 2*writeBehindStep) >> 20 {
			if _, err := w.Write(chunk); err != nil {
				return err
			}
		}
		return nil
	}

	f, err := os.Create(filepath.Join(dir, "direct"))
	if err != nil {
		t.Fatal(err)
	}
	w := &writeBehind{f: f}
	if err := fill(w); err != nil {
		t.Fatal(err)
	}
	if err := w.wait(); err != nil || calls.Load() != 1 || w.flushed < flushAheadStep {
		t.Fatalf("wait: %v after %d flushes, flushed up to %d", err, calls.Load(), w.flushed)
	}
	f.Close()

	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ReplaceWith(target, ReplaceOptions{}, fill); err != nil {
		t.Fatalf("healthy flush: %v", err)
	}
	if st, _ := os.Stat(target); st.Size() != flushAheadStep+2*writeBehindStep {
		t.Fatalf("target holds %d bytes", st.Size())
	}
	fail = true
	if err := os.WriteFile(target, []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ReplaceWith(target, ReplaceOptions{}, fill); !errors.Is(err, boom) {
		t.Fatalf("failed flush: ReplaceWith returned %v", err)
	}
	if got, _ := os.ReadFile(target); string(got) != "before\n" {
		t.Fatalf("target changed after a failed flush: %d bytes", len(got))
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}
}

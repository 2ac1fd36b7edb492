package safefile

import (
	"bytes"
	"os"
	"path/filepath"
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

//go:build unix

package retention_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/retention"
)

// TestListDir: ListDir gives what os.ReadDir and each regular entry's Info give (the listing
// cleanup used before), over every kind of name a sessions dir can hold, and enough files
// that every worker has some.
func TestListDir(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, size int, mtime time.Time) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2026, 6, 15, 12, 0, 0, 123456789, time.UTC)
	for i := range 3000 {
		write(fmt.Sprintf("%08x-0000-4000-8000-000000000000.jsonl", i*7919%3001), i%97, at.Add(time.Duration(i)*time.Millisecond+time.Duration(i)))
	}
	write("sessions.json", 2, at)
	write("Z-upper.jsonl", 0, at)
	write("é-utf8.jsonl", 5, at)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink("sessions.json", filepath.Join(dir, "link.jsonl")))
	must(os.Symlink("nowhere", filepath.Join(dir, "dangling.jsonl")))
	must(os.Mkdir(filepath.Join(dir, "skills-prompts"), 0o755))
	must(os.Mkdir(filepath.Join(dir, "dir.jsonl"), 0o755))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.jsonl"), 0o644); err != nil && !errors.Is(err, syscall.ENOSYS) {
		t.Fatal(err)
	}
	if l, err := net.Listen("unix", filepath.Join(dir, "sock.jsonl")); err == nil {
		defer l.Close()
	}

	want := listing(t, dir) // os.ReadDir and Info, as the listing was made before
	got, err := retention.ListDir(context.Background(), dir)
	must(err)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ListDir (-os.ReadDir +ListDir):\n%s", diff)
	}

	if _, err := retention.ListDir(context.Background(), filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing dir: %v, want ErrNotExist", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := retention.ListDir(ctx, dir); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

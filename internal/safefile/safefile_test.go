package safefile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/safefile"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o640); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

func TestReplace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.jsonl")
	write(t, p, "old\n")
	if err := safefile.Replace(p, func(w io.Writer) error {
		_, err := io.WriteString(w, "new\n")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != "new\n" {
		t.Errorf("content %q", got)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the old file's 0640", st.Mode().Perm())
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("files left: %v", names)
	}
}

func TestReplaceFailureKeepsOriginal(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.jsonl")
	write(t, p, "old\n")
	boom := errors.New("boom")
	err := safefile.Replace(p, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want the producer's error", err)
	}
	if got := read(t, p); got != "old\n" {
		t.Errorf("original changed to %q", got)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("temp file left behind: %v", names)
	}
}

func TestWriteFileNewFileMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "new.json")
	if err := safefile.WriteFile(p, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o644 || read(t, p) != "{}" {
		t.Errorf("mode %v content %q", st.Mode().Perm(), read(t, p))
	}
}

func TestBackupNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.jsonl")
	write(t, p, "v1")
	b := safefile.BackupName(p, 42, time.UnixMilli(1700000000000))
	if want := p + ".bak-42-1700000000000"; b != want {
		t.Fatalf("BackupName = %s, want %s", b, want)
	}
	if err := safefile.Backup(p, b); err != nil {
		t.Fatal(err)
	}
	// Replacing the original must not change the backup (a hard link keeps the old inode).
	if err := safefile.WriteFile(p, []byte("v2")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, b); got != "v1" {
		t.Errorf("backup holds %q, want the original bytes", got)
	}
	if err := safefile.Backup(p, b); err == nil {
		t.Error("a second backup to the same name succeeded")
	}
	if got := read(t, b); got != "v1" {
		t.Errorf("backup overwritten with %q", got)
	}
}

func TestRenameRefusesExisting(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	write(t, a, "a")
	write(t, b, "b")
	if err := safefile.Rename(a, b); !errors.Is(err, os.ErrExist) {
		t.Errorf("Rename over an existing file: %v", err)
	}
	if read(t, b) != "b" || read(t, a) != "a" {
		t.Error("files changed by a refused rename")
	}
	c := filepath.Join(dir, "c")
	if err := safefile.Rename(a, c); err != nil || read(t, c) != "a" {
		t.Errorf("Rename: %v", err)
	}
	if err := safefile.Remove(c); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(c); !os.IsNotExist(err) {
		t.Error("Remove left the file")
	}
}

func TestConfine(t *testing.T) {
	root := t.TempDir()
	sessions := filepath.Join(root, "sessions")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{sessions, outside, filepath.Join(sessions, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(outside, "secret"), "x")
	write(t, filepath.Join(sessions, "a.jsonl"), "x")
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(sessions, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(sessions, "escape")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		ok   bool
	}{
		{"a.jsonl", true},
		{filepath.Join(sessions, "a.jsonl"), true},
		{"sub/new.jsonl", true},
		{"not-yet.jsonl", true},
		{"../outside/secret", false},
		{filepath.Join(outside, "secret"), false},
		{"/etc/passwd", false},
		{"link.jsonl", false},        // a symlink pointing out
		{"escape/secret", false},     // a symlinked dir pointing out
		{"escape/new.jsonl", false},  // a new file behind a symlinked dir
		{"sub/../../outside", false}, // .. after a real dir
	} {
		_, err := safefile.Confine(sessions, tc.path)
		if (err == nil) != tc.ok {
			t.Errorf("Confine(%q) = %v, want ok=%v", tc.path, err, tc.ok)
		}
		if err != nil && !errors.Is(err, safefile.ErrOutside) && !strings.Contains(err.Error(), "no such file") {
			t.Errorf("Confine(%q) error %v does not wrap ErrOutside", tc.path, err)
		}
	}
}

func TestCreateNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.jsonl")
	fill := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	if err := safefile.Create(p, 0o600, fill("one\n")); err != nil {
		t.Fatal(err)
	}
	if err := safefile.Create(p, 0o600, fill("two\n")); !errors.Is(err, os.ErrExist) {
		t.Fatalf("second Create = %v, want ErrExist", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one\n" {
		t.Errorf("content %q", b)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	// A failing fill leaves nothing behind.
	q := filepath.Join(dir, "b.jsonl")
	if err := safefile.Create(q, 0o600, func(io.Writer) error { return errors.New("boom") }); err == nil {
		t.Fatal("no error")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left %d files, want only a.jsonl", len(ents))
	}
}

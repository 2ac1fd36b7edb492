package store

import (
	"os"
	"path/filepath"
	"testing"
)

// CaseInsensitiveDir tells a case-sensitive dir (Linux's ext4 and tmpfs, where this runs) from
// one where a name's other case is the same file; the second is made here with a hard link
// standing in for the file system's folding.
func TestCaseInsensitiveDir(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Abc.jsonl"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "123.jsonl"), []byte("x"), 0o644)
	if CaseInsensitiveDir(dir, "123.jsonl", "Abc.jsonl") {
		t.Fatal("a case-sensitive dir taken for a case-insensitive one")
	}
	os.WriteFile(filepath.Join(dir, "aBC.JSONL"), []byte("x"), 0o644) // another file: still sensitive
	if CaseInsensitiveDir(dir, "Abc.jsonl") {
		t.Fatal("two files that differ in case taken for one")
	}
	os.Remove(filepath.Join(dir, "aBC.JSONL"))
	if err := os.Link(filepath.Join(dir, "Abc.jsonl"), filepath.Join(dir, "aBC.JSONL")); err != nil {
		t.Skip(err)
	}
	os.Link(filepath.Join(dir, "123.jsonl"), filepath.Join(dir, "123.JSONL"))
	if !CaseInsensitiveDir(dir, "123.jsonl", "Abc.jsonl") {
		t.Fatal("the swapped-case name is the same file, but the dir is not taken for case-insensitive")
	}
}

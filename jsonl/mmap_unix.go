//go:build linux || darwin

package jsonl

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps size bytes of f read-only; unmap undoes it.
func mapFile(f *os.File, size int64) ([]byte, error) {
	return unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
}

func unmap(b []byte) error { return unix.Munmap(b) }

// dropPages tells the kernel that b (page aligned) is done with: its pages leave the process's
// resident set (they stay in the page cache), so a 4 GiB file does not make a 4 GiB RSS.
func dropPages(b []byte) { _ = unix.Madvise(b, unix.MADV_DONTNEED) }

package safefile

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing the range out, without waiting for it
// (SYNC_FILE_RANGE_WRITE): it says nothing of durability, which the fsync before the rename
// still gives.
func startWriteback(f *os.File, off, n int64) {
	_ = unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}

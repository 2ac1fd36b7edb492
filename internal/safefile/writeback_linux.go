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

// canFlushAhead: writeBehind flushes ahead in the background (see there).
const canFlushAhead = true

// flushAhead is an fdatasync of f from another goroutine than the writer's. The file's
// RawConn holds a reference to the descriptor, so a close cannot slip in and hand its number
// to another file.
func flushAhead(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.Fdatasync(int(fd)) }); err != nil {
		return err
	}
	if serr != nil {
		return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: serr}
	}
	return nil
}

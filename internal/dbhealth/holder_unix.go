//go:build unix

package dbhealth

import (
	"os"

	"golang.org/x/sys/unix"
)

// SQLite's unix locks are fcntl byte-range locks from its PENDING byte (1 GiB into the file)
// over the RESERVED byte and the 510 SHARED bytes.
const (
	pendingByte = 0x40000000
	lockSpan    = 512
)

// lockHolder asks the kernel (F_GETLK, which takes no lock) who holds a SQLite lock on the file
// at p: 0 when nobody, the pid when a process does, -1 when held by an open file description
// lock (no pid).
func lockHolder(p string) int {
	f, err := os.Open(p)
	if err != nil {
		return 0
	}
	defer f.Close() // closing drops this process's own fcntl locks: it holds none on the file
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: pendingByte, Len: lockSpan}
	if err := unix.FcntlFlock(f.Fd(), unix.F_GETLK, &lk); err != nil || lk.Type == unix.F_UNLCK {
		return 0
	}
	if lk.Pid <= 0 {
		return -1
	}
	return int(lk.Pid)
}

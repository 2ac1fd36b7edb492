//go:build linux || darwin

package retention

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// statter returns how ListDir stats the names of dir: fstatat relative to the open dir,
// without following symlinks, so the kernel does not walk the dir's path again per name.
func statter(_ string, dir *os.File) func(name string, e *DirEntry) {
	fd := int(dir.Fd())
	return func(name string, e *DirEntry) {
		var st unix.Stat_t
		err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		for err == unix.EINTR {
			err = unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		}
		if err == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
			e.Regular, e.Size, e.ModTime = true, st.Size, time.Unix(st.Mtim.Sec, st.Mtim.Nsec)
		}
	}
}

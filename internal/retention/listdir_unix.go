//go:build linux || darwin

package retention

import (
	"io/fs"
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
		if err == nil {
			mode := uint32(st.Mode) // uint16 on darwin
			e.Stated, e.Type, e.Regular = true, fileType(mode), mode&unix.S_IFMT == unix.S_IFREG
			e.Size, e.ModTime = st.Size, time.Unix(st.Mtim.Sec, st.Mtim.Nsec)
		}
	}
}

// fileType is the fs.FileMode type bits of a stat mode, as os.Lstat gives them.
func fileType(mode uint32) fs.FileMode {
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	}
	return 0
}

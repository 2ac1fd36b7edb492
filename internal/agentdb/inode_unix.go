//go:build unix

package agentdb

import (
	"io/fs"
	"syscall"
)

// inode tells a replaced file from one written in place.
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

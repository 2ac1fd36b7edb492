package safefile

import (
	"io/fs"
	"os"
	"syscall"
)

// openRead opens path read-only, sharing it for reading, writing and deletion. os.Open shares
// no deletion, and a handle without it makes every rename over the file fail with "access is
// denied": the repair keeps the transcript (and its backup, a hard link to the same file) open
// while it renames the repaired file over it, and a gateway (Node opens with every share mode)
// may append meanwhile. FILE_FLAG_BACKUP_SEMANTICS lets a directory open, so that it is
// refused by name (NotRegular) rather than as a permission error.
func openRead(path string) (*os.File, error) {
	p, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := syscall.CreateFile(p, syscall.GENERIC_READ,
		syscall.FILE_SHARE_READ|syscall.FILE_SHARE_WRITE|syscall.FILE_SHARE_DELETE, nil,
		syscall.OPEN_EXISTING, syscall.FILE_ATTRIBUTE_NORMAL|syscall.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

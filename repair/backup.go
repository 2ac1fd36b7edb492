package repair

import (
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/clawdoctor/clawdoctor/safefile"
)

// takeBackup keeps the original bytes of path at dst before anything changes. On the same device
// it is safefile.Backup's hard link (atomic, free). Across devices (a --backup-dir elsewhere)
// the copy goes through safefile.Replace (temp, fsync, rename), so a SIGKILL never leaves a
// half-written file under the backup's name; it then gets the original's mode.
func takeBackup(path, dst string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if sameDevice(st, filepath.Dir(dst)) {
		return safefile.Backup(path, dst)
	}
	if _, err := os.Lstat(dst); err == nil {
		return &os.PathError{Op: "backup", Path: dst, Err: os.ErrExist}
	}
	err = safefile.Replace(dst, func(w io.Writer) error {
		src, err := safefile.Open(path)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(w, src)
		return err
	})
	if err != nil {
		return err
	}
	return os.Chmod(dst, st.Mode().Perm())
}

func sameDevice(st os.FileInfo, dir string) bool {
	dst, err := os.Stat(dir)
	if err != nil {
		return true // let safefile.Backup report it
	}
	a, ok1 := st.Sys().(*syscall.Stat_t)
	b, ok2 := dst.Sys().(*syscall.Stat_t)
	return !ok1 || !ok2 || a.Dev == b.Dev
}

package repair

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/clawdoctor/clawdoctor/internal/safefile"
)

// takeBackup keeps the original bytes of path at dst before anything changes: a hard link on
// the same device (atomic, free), else an fsynced copy that reaches dst's name only whole (a
// --backup-dir elsewhere); see safefile.Backup. An existing file is never overwritten. In a
// shared backup dir (--backup-dir: the files of every sessions dir of the run) two files of one
// name repaired in the same millisecond (side by side, see Run) want one name: a name taken
// gets "-2", "-3", ... after it. It returns the name used.
func takeBackup(path, dst string, shared bool) (string, error) {
	name := dst
	for n := 2; ; n++ {
		err := safefile.Backup(path, name)
		if err == nil || !shared || !errors.Is(err, fs.ErrExist) || n > 1000 {
			return name, err
		}
		name = fmt.Sprintf("%s-%d", dst, n)
	}
}

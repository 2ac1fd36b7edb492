package repair

import (
	"github.com/clawdoctor/clawdoctor/safefile"
)

// takeBackup keeps the original bytes of path at dst before anything changes: a hard link on
// the same device (atomic, free), else an fsynced copy that reaches dst's name only whole (a
// --backup-dir elsewhere); see safefile.Backup.
func takeBackup(path, dst string) error {
	return safefile.Backup(path, dst)
}

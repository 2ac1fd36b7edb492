package store

import (
	"os"
	"path/filepath"
	"strings"
)

// CaseInsensitiveDir reports whether dir is on a file system that does not tell names apart
// by letter case (macOS's APFS and HFS+ by default, Windows' NTFS): there "ABC.jsonl" named by
// a sessions.json row and "abc.jsonl" in the listing are one file. names are some of dir's
// entries; the first with a cased letter is looked up in the other case. OpenClaw
// compares names exactly, so on such a file system its cleanup can take a row's transcript
// for an orphan; clawdoctor keeps it (see retention's keepSafe, doctor's orphan check).
func CaseInsensitiveDir(dir string, names ...string) bool {
	for _, n := range names {
		swapped := otherCase(n)
		if swapped == n {
			continue
		}
		a, err := os.Lstat(filepath.Join(dir, n))
		if err != nil {
			continue
		}
		b, err := os.Lstat(filepath.Join(dir, swapped))
		return err == nil && os.SameFile(a, b)
	}
	return false
}

// otherCase is name in lower case, or in upper case when it has no upper-case letter.
func otherCase(name string) string {
	if l := strings.ToLower(name); l != name {
		return l
	}
	return strings.ToUpper(name)
}

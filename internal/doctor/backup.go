package doctor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/safefile"
)

// Backups keeps the original bytes of everything doctor changes or removes, under one dir per
// run: <state-dir>/clawdoctor-backups/<UTC stamp>/<path relative to the state dir>. Restoring a
// fix is copying its file back.
type Backups struct {
	StateDir string
	Dir      string // fixed dir, or "" for the default
	Now      time.Time
	made     string
}

func (b *Backups) root() (string, error) {
	if b.made != "" {
		return b.made, nil
	}
	dir := b.Dir
	if dir == "" {
		base := filepath.Join(b.StateDir, "clawdoctor-backups", b.Now.UTC().Format("20060102T150405Z"))
		dir = base
		for i := 1; exists(dir); i++ {
			dir = fmt.Sprintf("%s-%d", base, i)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("backup dir: %w", err)
	}
	b.made = dir
	return dir, nil
}

func (b *Backups) used() string { return b.made }

// target is where path's backup goes.
func (b *Backups) target(path string) (string, error) {
	root, err := b.root()
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(b.StateDir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		rel = filepath.Join("external", filepath.Base(path))
	}
	dst := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return "", err
	}
	for i := 1; exists(dst); i++ {
		dst = fmt.Sprintf("%s.%d", filepath.Join(root, rel), i)
	}
	return dst, nil
}

// Copy keeps the current bytes of path (a hard link when possible) and returns where.
func (b *Backups) Copy(path string) (string, error) {
	dst, err := b.target(path)
	if err != nil {
		return "", err
	}
	if err := safefile.Backup(path, dst); err != nil {
		return "", err
	}
	return dst, nil
}

// Move takes path out of the sessions dir into the backup dir, which is how doctor "removes"
// leftovers and stale locks without losing a byte.
func (b *Backups) Move(path string) (string, error) {
	dst, err := b.target(path)
	if err != nil {
		return "", err
	}
	err = safefile.Rename(path, dst)
	if errors.Is(err, syscall.EXDEV) {
		if err = safefile.Backup(path, dst); err == nil {
			err = safefile.Remove(path)
		}
	}
	if err != nil {
		return "", err
	}
	return dst, nil
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

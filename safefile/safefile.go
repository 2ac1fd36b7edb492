// Package safefile is the only package that creates, replaces, renames or removes user files.
// Every write goes temp file in the same dir → fsync → rename → fsync dir, a backup is taken
// before any change, and paths are confined to a root directory so a hostile sessionFile or a
// symlink can never make clawdoctor touch a file outside the sessions dir.
package safefile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrOutside is returned for a path that resolves outside the allowed root.
var ErrOutside = errors.New("path is outside the sessions dir")

// Confine resolves path (relative paths are taken inside root) and checks that it stays inside
// root after following symlinks of its directory and of the file itself. It returns the
// cleaned absolute path.
func Confine(root, path string) (string, error) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	realRoot, err := filepath.EvalSymlinks(absRoot)
	if err != nil {
		return "", err
	}
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(absRoot, p)
	}
	p = filepath.Clean(p)
	if !within(absRoot, p) && !within(realRoot, p) {
		return "", fmt.Errorf("%s: %w", path, ErrOutside)
	}
	// Follow symlinks on the existing part of the path.
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		dir, derr := filepath.EvalSymlinks(filepath.Dir(p))
		if derr != nil {
			return "", derr
		}
		real = filepath.Join(dir, filepath.Base(p))
	}
	if !within(realRoot, real) {
		return "", fmt.Errorf("%s: %w (resolves to %s)", path, ErrOutside, real)
	}
	return p, nil
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Replace streams fill's output into a temp file beside path, fsyncs it, gives it path's mode
// (0644 for a new file) and renames it over path, then fsyncs the directory. On any error path
// is left unchanged and the temp file is removed.
func Replace(path string, fill func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := writeTemp(path, mode, fill)
	if err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("replace %s: %w", path, err)
	}
	return SyncDir(dir)
}

// writeTemp streams fill's output into a new temp file beside path, gives it mode and fsyncs
// it, and returns its name. On any error the temp file is removed.
func writeTemp(path string, mode os.FileMode, fill func(w io.Writer) error) (name string, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".clawdoctor-*.tmp")
	if err != nil {
		return "", fmt.Errorf("create temp for %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 256<<10)
	if err = fill(bw); err != nil {
		return "", err
	}
	if err = bw.Flush(); err != nil {
		return "", fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err = tmp.Chmod(mode); err != nil {
		return "", fmt.Errorf("chmod %s: %w", tmp.Name(), err)
	}
	if err = tmp.Sync(); err != nil {
		return "", fmt.Errorf("fsync %s: %w", tmp.Name(), err)
	}
	if err = tmp.Close(); err != nil {
		return "", fmt.Errorf("close %s: %w", tmp.Name(), err)
	}
	return tmp.Name(), nil
}

// WriteFile atomically replaces path with data (see Replace).
func WriteFile(path string, data []byte) error {
	return Replace(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// SyncDir fsyncs a directory so a rename or create in it survives a power loss.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("fsync dir %s: %w", dir, err)
	}
	return nil
}

// BackupName is OpenClaw's repair backup naming: "<file>.bak-<pid>-<ms>".
func BackupName(path string, pid int, t time.Time) string {
	return fmt.Sprintf("%s.bak-%d-%d", path, pid, t.UnixMilli())
}

// Backup keeps the current bytes of path at dst before path is changed: a hard link when
// possible (free and atomic), else a copy that is fsynced. An existing dst is never
// overwritten. The directory of dst is fsynced.
func Backup(path, dst string) error {
	if err := os.Link(path, dst); err == nil {
		return SyncDir(filepath.Dir(dst))
	} else if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("backup %s: %w", dst, err)
	}
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, st.Mode().Perm())
	if err != nil {
		return fmt.Errorf("backup %s: %w", dst, err)
	}
	if _, err := io.Copy(out, src); err != nil {
		out.Close()
		os.Remove(dst)
		return fmt.Errorf("backup %s: %w", dst, err)
	}
	if err := out.Sync(); err != nil {
		out.Close()
		os.Remove(dst)
		return fmt.Errorf("backup %s: %w", dst, err)
	}
	if err := out.Close(); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(dst))
}

// Rename moves oldpath to newpath inside the same directory tree, refusing to overwrite, and
// fsyncs both directories.
func Rename(oldpath, newpath string) error {
	if _, err := os.Lstat(newpath); err == nil {
		return fmt.Errorf("rename %s: %s: %w", oldpath, newpath, os.ErrExist)
	}
	if err := os.Rename(oldpath, newpath); err != nil {
		return err
	}
	if err := SyncDir(filepath.Dir(newpath)); err != nil {
		return err
	}
	if filepath.Dir(oldpath) != filepath.Dir(newpath) {
		return SyncDir(filepath.Dir(oldpath))
	}
	return nil
}

// Remove deletes path and fsyncs its directory.
func Remove(path string) error {
	if err := os.Remove(path); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// Create streams fill's output into a new file at path (mode perm) and never replaces one:
// the complete, fsynced temp file is hard-linked to path, which fails when path exists, then
// the temp name is removed, so path appears whole or not at all. Where hard links are not
// supported it falls back to creating path exclusively (removed again on error). The error
// for an existing path satisfies errors.Is(err, os.ErrExist).
func Create(path string, perm os.FileMode, fill func(w io.Writer) error) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("create %s: %w", path, os.ErrExist)
	}
	tmp, err := writeTemp(path, perm, fill)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err = os.Link(tmp, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("create %s: %w", path, err)
		}
		if err = copyExclusive(tmp, path, perm); err != nil {
			return err
		}
	}
	return SyncDir(filepath.Dir(path))
}

// copyExclusive writes the content of the file src into a new file at path.
func copyExclusive(src, path string, perm os.FileMode) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	_, err = io.Copy(out, f)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("create %s: %w", path, err)
	}
	return nil
}

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
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/natefinch/atomic"
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

// ReplaceOptions tune ReplaceWith.
type ReplaceOptions struct {
	// BeforeRename runs once the temp file is written and fsynced, just before it is renamed
	// over the target. It may append to tmp (fsyncing what it appends), e.g. the tail a live
	// writer added meanwhile, or return an error to abandon the replace, leaving the target
	// unchanged.
	BeforeRename func(tmp *os.File) error
}

// TempPrefix and TempSuffix frame the name of every temp file Replace creates beside base:
// ".<base>.clawdoctor-<pid>-<random>.tmp". The pid lets the next run tell a temp left by a
// killed process (dead pid) from one a running process is still writing.
func TempPrefix(base string) string { return "." + base + ".clawdoctor-" }

// TempSuffix ends every temp file name (see TempPrefix).
const TempSuffix = ".tmp"

// Replace streams fill's output into a temp file beside path, fsyncs it, gives it path's mode
// (0644 for a new file) and renames it over path, then fsyncs the directory. On any error path
// is left unchanged and the temp file is removed. When path is a symlink its target is
// replaced and the link stays (dotfile setups link openclaw.json and sessions.json).
func Replace(path string, fill func(w io.Writer) error) error {
	return ReplaceWith(path, ReplaceOptions{}, fill)
}

// ReplaceWith is Replace with options.
func ReplaceWith(path string, o ReplaceOptions, fill func(w io.Writer) error) error {
	target, err := WriteTarget(path)
	if err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(target); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, untrack, err := writeTemp(target, mode, o.BeforeRename, fill)
	if err != nil {
		return err
	}
	defer untrack()
	// natefinch/atomic: rename(2) on unix, MoveFileEx(REPLACE_EXISTING|WRITE_THROUGH) on
	// Windows, whose plain rename neither replaces atomically nor waits for the disk
	if err = atomic.ReplaceFile(tmp, target); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("replace %s: %w", path, err)
	}
	record("replaced " + target)
	return SyncDir(filepath.Dir(target))
}

// writeTemp streams fill's output into a new temp file beside path
// (".<name>.clawdoctor-<pid>-<random>.tmp"), gives it mode, fsyncs it, runs before (when set)
// on it, and returns its name. The temp is registered for Abort until untrack is called. On
// any error the temp file is removed.
func writeTemp(path string, mode os.FileMode, before func(*os.File) error, fill func(w io.Writer) error) (name string, untrack func(), err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, fmt.Sprintf("%s%d-*%s", TempPrefix(base), os.Getpid(), TempSuffix))
	if err != nil {
		return "", nil, fmt.Errorf("create temp for %s: %w", path, err)
	}
	tracked := Track(removeQuietly(tmp.Name()))
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			tracked()
		}
	}()
	wb := &writeBehind{f: tmp}
	bw := bufio.NewWriterSize(wb, 256<<10)
	err = fill(bw)
	if err == nil {
		if err = bw.Flush(); err != nil {
			err = fmt.Errorf("write %s: %w", tmp.Name(), err)
		}
	}
	if ferr := wb.wait(); err == nil && ferr != nil { // before any return: no flush outlives the file
		err = fmt.Errorf("write %s: %w", tmp.Name(), ferr)
	}
	if err != nil {
		return "", nil, err
	}
	if err = tmp.Chmod(mode); err != nil {
		return "", nil, fmt.Errorf("chmod %s: %w", tmp.Name(), err)
	}
	if err = tmp.Sync(); err != nil {
		return "", nil, fmt.Errorf("fsync %s: %w", tmp.Name(), err)
	}
	if before != nil {
		if err = before(tmp); err != nil {
			return "", nil, err
		}
	}
	if err = tmp.Close(); err != nil {
		return "", nil, fmt.Errorf("close %s: %w", tmp.Name(), err)
	}
	return tmp.Name(), tracked, nil
}

// WriteTarget is the file a write to path really changes: path itself, or the target of a
// symlink at path. The target must be a regular file or not exist yet.
func WriteTarget(path string) (string, error) {
	st, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return path, nil
	}
	if err != nil {
		return "", err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", fmt.Errorf("%s: symlink to a missing or unreachable file: %w", path, err)
		}
		if st, err = os.Stat(real); err != nil {
			return "", err
		}
		path = real
	}
	if err := NotRegular(path, st.Mode()); err != nil {
		return "", err
	}
	return path, nil
}

// WriteFile atomically replaces path with data (see Replace).
func WriteFile(path string, data []byte) error {
	return Replace(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// BackupName is OpenClaw's repair backup naming: "<file>.bak-<pid>-<ms>".
func BackupName(path string, pid int, t time.Time) string {
	return fmt.Sprintf("%s.bak-%d-%d", path, pid, t.UnixMilli())
}

// Backup keeps the current bytes of path at dst before path is changed: a hard link when
// possible (free and atomic), else a copy written to a temp file beside dst, fsynced, and
// linked to dst, so a SIGKILL never leaves a partial file under dst's name. An existing dst
// is never overwritten (an error wrapping os.ErrExist). The directory of dst is fsynced. A
// symlink at path is followed: the backup holds the bytes of its target.
func Backup(path, dst string) error {
	path, err := WriteTarget(path) // the bytes, not a symlink to them
	if err != nil {
		return err
	}
	if err := os.Link(path, dst); err == nil {
		record("backup " + dst)
		return SyncDir(filepath.Dir(dst))
	} else if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("backup %s: %w", dst, err)
	}
	src, err := Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		return err
	}
	tmp, untrack, err := writeTemp(dst, st.Mode().Perm(), nil, func(w io.Writer) error {
		_, err := io.Copy(w, src)
		return err
	})
	if err != nil {
		return fmt.Errorf("backup %s: %w", dst, err)
	}
	defer untrack()
	defer os.Remove(tmp)    // after the link, dst keeps the bytes
	err = os.Link(tmp, dst) // fails rather than overwrite
	if err != nil && !errors.Is(err, os.ErrExist) {
		// a file system without hard links (FAT, some network mounts): rename, after
		// checking that the name is free
		if _, lerr := os.Lstat(dst); errors.Is(lerr, os.ErrNotExist) {
			err = os.Rename(tmp, dst)
		}
	}
	if err != nil {
		return fmt.Errorf("backup %s: %w", dst, err)
	}
	record("backup " + dst)
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
	record("renamed " + oldpath + " to " + newpath)
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
	record("removed " + path)
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
	tmp, untrack, err := writeTemp(path, perm, nil, fill)
	if err != nil {
		return err
	}
	defer untrack()
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

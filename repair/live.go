package repair

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/safefile"
)

// tailGuard protects what a live writer appends to an uncompressed transcript while it is
// repaired. Transcripts are append-only, so the plan covers the bytes that existed when the
// repair began (planned of them); just before the rename the file is checked again: replaced
// by another file, shrunk, or rewritten in place (same size, new mtime) abandons the repair
// with the original untouched; bytes appended meanwhile are copied after the repaired content,
// until the size stops changing. A writer that ignores the write lock and appends between that
// last check and the rename lands in the old file (the backup's inode); afterRename carries
// those bytes too when the new file is still as written.
type tailGuard struct {
	path    string
	orig    os.FileInfo  // the transcript when the repair began
	planned int64        // bytes the plan covers
	src     *os.File     // the original, kept open across the rename
	carried int64        // end of what the new file holds from the original
	wrote   int64        // size of the new file as renamed
	mtime   time.Time    // mtime of the original at the last check
	phase   func(string) // Options.phase: "renaming" once the tail is carried, just before the rename
}

func newTailGuard(path string, orig os.FileInfo, planned int64) *tailGuard {
	return &tailGuard{path: path, orig: orig, planned: planned, carried: planned, mtime: orig.ModTime()}
}

// check compares the file at path with the original and reports its current size.
func (g *tailGuard) check() (int64, error) {
	st, err := os.Lstat(g.path)
	if err != nil {
		return 0, err
	}
	switch {
	case !os.SameFile(st, g.orig):
		return 0, fmt.Errorf("%s: %w: replaced by another file meanwhile", g.path, ErrChanged)
	case st.Size() < g.carried:
		return 0, fmt.Errorf("%s: %w: shrank from %d to %d bytes", g.path, ErrChanged, g.carried, st.Size())
	case st.Size() == g.planned && !st.ModTime().Equal(g.orig.ModTime()):
		return 0, fmt.Errorf("%s: %w: rewritten in place (same size, new mtime)", g.path, ErrChanged)
	}
	g.mtime = st.ModTime()
	return st.Size(), nil
}

// beforeRename is safefile.ReplaceOptions.BeforeRename: it appends to tmp whatever was added to
// the original since planning.
func (g *tailGuard) beforeRename(tmp *os.File) error {
	if g.src == nil {
		f, err := safefile.Open(g.path)
		if err != nil {
			return err
		}
		g.src = f
	}
	for {
		size, err := g.check()
		if err != nil {
			return err
		}
		if size == g.carried {
			break
		}
		if err := copyRange(tmp, g.src, g.carried, size); err != nil {
			return err
		}
		g.carried = size
	}
	if g.carried > g.planned {
		if err := tmp.Sync(); err != nil {
			return fmt.Errorf("fsync %s: %w", tmp.Name(), err)
		}
	}
	st, err := tmp.Stat()
	if err != nil {
		return err
	}
	g.wrote = st.Size()
	if g.phase != nil {
		g.phase("renaming")
	}
	return nil
}

// afterRename carries bytes appended to the old file between the last check and the rename.
// It returns how many it carried; an error means such bytes exist but could not be carried
// (they are in the old file, which the backup keeps when it is a hard link).
func (g *tailGuard) afterRename() (int64, error) {
	if g.src == nil {
		return 0, nil
	}
	st, err := g.src.Stat()
	if err != nil || st.Size() <= g.carried {
		return 0, err
	}
	extra := st.Size() - g.carried
	dst, err := os.OpenFile(g.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return 0, err
	}
	defer dst.Close()
	if cur, err := dst.Stat(); err != nil || cur.Size() != g.wrote {
		return 0, fmt.Errorf("%s: %d bytes appended to the old file during the rename could not be carried: the new file changed too", g.path, extra)
	}
	if err := copyRange(dst, g.src, g.carried, st.Size()); err != nil {
		return 0, err
	}
	if err := dst.Sync(); err != nil {
		return 0, err
	}
	g.carried = st.Size()
	g.mtime = st.ModTime()
	return extra, nil
}

// keepInBackup makes sure the bytes the old file got after the backup was taken are in the
// backup, and says where they are. A hard-link backup is the old file itself: it holds them. A
// copy (a --backup-dir on another device) was made before they were appended, and the old file
// is unlinked by the rename, so the old file's bytes past the copy's end are appended to the
// copy and fsynced (issue 31: without this a line appended during the rename was in neither).
func (g *tailGuard) keepInBackup(backup string) (string, error) {
	if g.src == nil || backup == "" {
		return "", fmt.Errorf("no backup of %s", g.path)
	}
	old, err := g.src.Stat()
	if err != nil {
		return "", err
	}
	bst, err := os.Stat(backup)
	if err != nil {
		return "", err
	}
	if os.SameFile(old, bst) {
		return fmt.Sprintf("they are in the old file, kept as the backup %s", backup), nil
	}
	if bst.Size() > old.Size() {
		return "", fmt.Errorf("backup %s (%d bytes) is longer than the old file (%d bytes)", backup, bst.Size(), old.Size())
	}
	b, err := os.OpenFile(backup, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return "", err
	}
	defer b.Close()
	// the copy ends where the old file ended when it was taken; what follows came later
	from := bst.Size()
	for {
		st, err := g.src.Stat()
		if err != nil {
			return "", err
		}
		if st.Size() <= from {
			break
		}
		if err := copyRange(b, g.src, from, st.Size()); err != nil {
			return "", err
		}
		from = st.Size()
	}
	if err := b.Sync(); err != nil {
		return "", fmt.Errorf("fsync %s: %w", backup, err)
	}
	return fmt.Sprintf("the old file's bytes, these included, were appended to its copy, the backup %s (%d bytes)", backup, from), nil
}

func (g *tailGuard) close() {
	if g.src != nil {
		g.src.Close()
	}
}

// copyRange appends src[from:to) to dst.
func copyRange(dst io.Writer, src *os.File, from, to int64) error {
	n, err := io.Copy(dst, io.NewSectionReader(src, from, to-from))
	if err == nil && n != to-from {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return fmt.Errorf("carry appended bytes of %s: %w", src.Name(), err)
	}
	return nil
}

// grewOnly reports whether st is orig or orig with bytes appended (same file, not shorter, and
// a new mtime only together with a new size).
func grewOnly(st, orig os.FileInfo) bool {
	if !os.SameFile(st, orig) || st.Size() < orig.Size() {
		return false
	}
	return st.Size() > orig.Size() || st.ModTime().Equal(orig.ModTime())
}

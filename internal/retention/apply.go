package retention

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/internal/safefile"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

// ErrStoreChanged is returned when sessions.json changed between planning and applying.
var ErrStoreChanged = errors.New("sessions.json changed since it was read; run cleanup again")

// Applied is what Apply did.
type Applied struct {
	Backup       string        `json:"backup,omitempty"` // copy of sessions.json taken before the rewrite
	RemovedKeys  int           `json:"removedKeys"`
	Archived     int           `json:"archived"`
	Deleted      int           `json:"deleted"`
	FreedBytes   int64         `json:"freedBytes"`
	Removed      []RemovedFile `json:"removed,omitempty"` // every file deleted, with its size
	Skipped      []string      `json:"skipped,omitempty"` // "path: why", for the partial exit status
	Notes        []string      `json:"notes,omitempty"`   // e.g. temps of killed runs removed
	AppliedCount int           `json:"appliedCount"`
}

// RemovedFile is one file Apply deleted.
type RemovedFile struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
	Copy  string `json:"copy,omitempty"` // its copy in the backup dir
}

// ApplyOptions tune ApplyWith.
type ApplyOptions struct {
	Now time.Time
	// BackupDir, when set, gets a copy of every deleted file (a hard link when on the same
	// device) and of the old sessions.json before they go.
	BackupDir string
}

// BackupName is where Apply keeps the old sessions.json: a name no OpenClaw cleanup treats as
// an archive or transcript ("sessions.json.clawdoctor-<UTC>.bak").
func BackupName(storePath string, t time.Time) string {
	return storePath + ".clawdoctor-" + t.UTC().Format("20060102T150405Z") + ".bak"
}

// Apply carries out p on the store l was gathered from: sessions.json is backed up and
// rewritten atomically without the removed keys (every other byte kept), then transcripts
// are archived and files deleted in plan order, each confined to the sessions dir and
// refused when it is a symlink, gone, or locked by a live process. A file that cannot be
// handled is skipped and reported; the rest goes on.
func Apply(ctx context.Context, l *Loaded, p *Plan, now time.Time) (Applied, error) {
	return ApplyWith(ctx, l, p, ApplyOptions{Now: now})
}

// ApplyWith is Apply with options.
func ApplyWith(ctx context.Context, l *Loaded, p *Plan, o ApplyOptions) (Applied, error) {
	var a Applied
	now := o.Now
	// Files whose lock is held (or unusable) are skipped; read before anything is written.
	locked := map[string]bool{}
	locks, err := store.LiveLocks(l.SessionsDir, now, 0)
	if err != nil {
		return a, err
	}
	for _, lk := range locks {
		locked[filepath.Base(lk.Path[:len(lk.Path)-len(".lock")])] = true
	}
	removed := p.RemovedKeys()
	a.AppliedCount = len(l.Input.Entries) - len(removed)
	if len(removed) > 0 {
		cur, err := store.ReadStoreFile(ctx, l.Input.StorePath)
		if err != nil {
			return a, err
		}
		if l.Missing || sha256.Sum256(cur) != l.Digest {
			return a, fmt.Errorf("%s: %w", l.Input.StorePath, ErrStoreChanged)
		}
		obj, err := jsonobj.Parse(cur)
		if err != nil {
			return a, fmt.Errorf("%s:%v: %w", l.Input.StorePath, err, ErrCorruptStore)
		}
		// Rebuild rather than Delete one by one: each Delete reindexes the whole object.
		gone := make(map[string]bool, len(removed))
		for _, k := range removed {
			gone[k] = true
		}
		kept := &jsonobj.Object{}
		for _, m := range obj.Members() {
			if !gone[m.Key] {
				if err := kept.Set(m.Key, m.Value); err != nil {
					return a, fmt.Errorf("%s: %w", l.Input.StorePath, err)
				}
			}
		}
		out, err := kept.MarshalJS("  ")
		if err != nil {
			return a, fmt.Errorf("%s: %w", l.Input.StorePath, err)
		}
		a.Notes = append(a.Notes, store.RemoveStaleTemps(l.Input.StorePath)...)
		a.Backup = BackupName(l.Input.StorePath, now)
		if o.BackupDir != "" {
			a.Backup = filepath.Join(o.BackupDir, filepath.Base(a.Backup))
		}
		// A run in the same second (or a rerun after a kill) finds the name taken: never
		// overwrite a backup, take the next free name.
		name := a.Backup
		for i := 1; ; i++ {
			err := keepCopy(l.Input.StorePath, a.Backup)
			if err == nil {
				break
			}
			if !errors.Is(err, os.ErrExist) || i > 100 {
				return a, err
			}
			a.Backup = fmt.Sprintf("%s.%d", name, i)
		}
		if err := safefile.WriteFile(l.Input.StorePath, out); err != nil {
			return a, err
		}
		a.RemovedKeys = len(removed)
	}
	for i, f := range p.Files {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return a, err
			}
		}
		cp, err := applyFile(l, f, locked, o.BackupDir)
		if err != nil {
			a.Skipped = append(a.Skipped, fmt.Sprintf("%s: %v", f.Path, err))
			continue
		}
		if f.Action == FileArchive {
			a.Archived++
		} else {
			a.Deleted++
			a.FreedBytes += f.Bytes
			a.Removed = append(a.Removed, RemovedFile{Path: f.Path, Bytes: f.Bytes, Copy: cp})
		}
	}
	return a, nil
}

// applyFile archives or deletes one file; a deleted file is first copied into backupDir
// (when set), whose path it returns.
func applyFile(l *Loaded, f FileAction, locked map[string]bool, backupDir string) (string, error) {
	if locked[filepath.Base(f.Path)] {
		return "", errors.New("locked by a live process")
	}
	path, err := safefile.Confine(l.RealDir, filepath.FromSlash(f.Path))
	if err != nil {
		return "", err
	}
	st, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", errors.New("not a regular file (symlinks are never followed)")
	}
	switch f.Action {
	case FileArchive:
		to, err := safefile.Confine(l.RealDir, filepath.FromSlash(f.To))
		if err != nil {
			return "", err
		}
		return "", safefile.Rename(path, to)
	case FileDelete:
		var cp string
		if backupDir != "" {
			cp = filepath.Join(backupDir, filepath.FromSlash(f.Path))
			if err := os.MkdirAll(filepath.Dir(cp), 0o700); err != nil {
				return "", err
			}
			name := cp
			for i := 1; ; i++ {
				err := keepCopy(path, cp)
				if err == nil || errors.Is(err, os.ErrExist) && sameBytes(cp, path) {
					break // a rerun after a kill finds its own copy
				}
				if !errors.Is(err, os.ErrExist) || i > 100 {
					return "", fmt.Errorf("copy into the backup dir: %w", err)
				}
				cp = fmt.Sprintf("%s.%d", name, i)
			}
		}
		return cp, safefile.Remove(path)
	}
	return "", nil
}

// sameBytes reports whether a and b hold the same bytes (the same file, or equal content).
func sameBytes(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil || sa.Size() != sb.Size() {
		return false
	}
	if os.SameFile(sa, sb) {
		return true
	}
	x, err1 := safefile.ReadFile(context.Background(), a, sa.Size()+1, "")
	y, err2 := safefile.ReadFile(context.Background(), b, sb.Size()+1, "")
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// keepCopy keeps path's bytes at dst: a hard link on the same device, else an fsynced copy.
func keepCopy(path, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	return safefile.Backup(path, dst)
}

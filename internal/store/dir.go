package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// File is one entry of a sessions dir listing, as plain data so planners stay pure.
type File struct {
	// Name is the base name, or for files below skills-prompts/ the slash-separated path
	// relative to the sessions dir.
	Name    string    `json:"name"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mtime"`
	Dir     bool      `json:"dir,omitempty"`
	// Symlink is set for a symbolic link (Size and ModTime are the link's own); Target is
	// what it points to. Nothing may be written through a symlink.
	Symlink bool   `json:"symlink,omitempty"`
	Target  string `json:"target,omitempty"`
	// Regular is false for directories, symlinks, FIFOs, sockets and devices.
	Regular bool `json:"regular"`
	// Class is what the name says the file is.
	Class Name `json:"class"`
}

// Listing is the content of one sessions dir.
type Listing struct {
	Dir   string `json:"dir"`
	Files []File `json:"files"`
}

// List reads the top level of a sessions dir, plus the skills-prompts/ and cold/ trees, without
// following symlinks, and classifies every name. Files are sorted by name.
func List(dir string) (Listing, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return Listing{}, err
	}
	l := Listing{Dir: dir}
	for _, e := range ents {
		f, err := fileOf(filepath.Join(dir, e.Name()), e.Name())
		if errors.Is(err, os.ErrNotExist) {
			continue // removed while listing
		}
		if err != nil {
			return Listing{}, err
		}
		if (e.Name() == "skills-prompts" || e.Name() == "cold") && f.Dir {
			blobs, err := listTree(dir, e.Name())
			if err != nil {
				return Listing{}, err
			}
			l.Files = append(l.Files, blobs...)
			continue
		}
		l.Files = append(l.Files, f)
	}
	sort.Slice(l.Files, func(i, j int) bool { return l.Files[i].Name < l.Files[j].Name })
	return l, nil
}

func fileOf(path, name string) (File, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return File{}, err
	}
	f := File{Name: name, Size: st.Size(), ModTime: st.ModTime(), Dir: st.IsDir(), Regular: st.Mode().IsRegular(), Class: Classify(name)}
	if st.Mode()&fs.ModeSymlink != 0 {
		f.Symlink = true
		f.Target, _ = os.Readlink(path)
	}
	if f.Dir && f.Class.Kind != KindSQLiteArchive {
		f.Class = Name{Kind: KindForeign}
	}
	return f, nil
}

// listTree walks skills-prompts/ (phase C content-addressed prompt blobs) or cold/ (the
// SQLite era's cold transcript storage).
func listTree(dir, sub string) ([]File, error) {
	var out []File
	root := filepath.Join(dir, sub)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		f, err := fileOf(path, filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		out = append(out, f)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", root, err)
	}
	return out, nil
}

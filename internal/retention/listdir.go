package retention

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// ListDir lists a sessions dir as the planner reads it: every name, sorted as os.ReadDir
// sorts, with the size and modification time of each regular file (symlinks, dirs and
// sockets are names only: OpenClaw's dirent.isFile() is false for them; a file that vanishes
// while listed is a name too). The names come in one read and the files are lstat'ed
// relative to the open dir by one worker per core: on the 200,000-file dir of issue 14 the
// listing was a third of cleanup's critical path, most of it lstat walking the full path
// and os.ReadDir sorting interface values.
func ListDir(ctx context.Context, dir string) ([]DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, &os.PathError{Op: "readdir", Path: dir, Err: err}
	}
	slices.SortFunc(names, strings.Compare)
	out := make([]DirEntry, len(names))
	for i, n := range names {
		out[i].Name = n
	}
	stat := statter(dir, f)
	workers := min(runtime.GOMAXPROCS(0), 4, len(out)/512+1)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n, i := 0, w; i < len(out); n, i = n+1, i+workers {
				if n%1024 == 0 && ctx.Err() != nil {
					return
				}
				stat(out[i].Name, &out[i])
			}
		}()
	}
	wg.Wait()
	return out, ctx.Err()
}

// lstatter stats the names of dir with os.Lstat: the portable statter.
func lstatter(dir string) func(name string, e *DirEntry) {
	return func(name string, e *DirEntry) {
		if info, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			e.Stated, e.Type, e.Regular = true, info.Mode().Type(), info.Mode().IsRegular()
			e.Size, e.ModTime = info.Size(), info.ModTime()
		}
	}
}

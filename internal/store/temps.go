package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/safefile"
)

// legacyTempAge is how old a temp without a pid in its name (written by clawdoctor before
// temps carried one) must be before it counts as left behind: a running repair rewrites its
// temp continuously, so its mtime stays fresh.
const legacyTempAge = time.Hour

// RemoveStaleTemps removes the temp files that killed clawdoctor runs left beside each of paths
// (".<name>.clawdoctor-<pid>-*.tmp" whose pid is dead, or an older pid-less one not written
// for an hour) and returns a sentence for each, for the report. Every writer calls it before
// it replaces a path; a temp of a live pid is kept whatever its age. It lists each directory
// of paths once; a run that replaces many files of one directory shares a Temps instead.
func RemoveStaleTemps(paths ...string) []string {
	return NewTemps().RemoveStale(paths...)
}

// Temps is one run's view of the temps left in the directories it writes: each directory is
// listed once, the first time a path in it is asked about, and the temps of a path are looked
// up by its name. A listing for each file repaired made a repair of every file of a sessions
// directory quadratic: 1,000 repairs among 9,000 files took 20 s, 60 % of it listing (2,000
// among 18,000: 72 s). A temp a run killed after the listing left is not seen until the next
// run; one the listing saw is examined again when it is removed (Lstat, and its pid probed
// then), so a run alive at the listing and dead since is handled as if listed now. Safe for
// concurrent use.
type Temps struct {
	mu   sync.Mutex
	dirs map[string]map[string][]string // directory: base of the path: names of its temps
}

// NewTemps returns an empty Temps.
func NewTemps() *Temps { return &Temps{dirs: map[string]map[string][]string{}} }

// RemoveStale is RemoveStaleTemps with the run's listings. A nil Temps lists afresh.
func (t *Temps) RemoveStale(paths ...string) []string {
	if t == nil {
		t = NewTemps()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var notes []string
	for _, p := range paths {
		dir, base := filepath.Split(p)
		if dir == "" {
			dir = "."
		}
		byBase, ok := t.dirs[dir]
		if !ok {
			byBase = listTemps(dir)
			t.dirs[dir] = byBase
		}
		names := byBase[base]
		delete(byBase, base) // examined now: a later call about base finds only what this one kept
		var kept []string
		for _, name := range names {
			note, keep := removeStaleTemp(dir, name)
			if note != "" {
				notes = append(notes, note)
			}
			if keep {
				kept = append(kept, name)
			}
		}
		if len(kept) > 0 {
			byBase[base] = kept
		}
	}
	return notes
}

// listTemps lists dir's clawdoctor temps by the base name of the file each is a temp of. The
// names are read unsorted and not stat'ed: a sessions directory can hold 200,000 files, of
// which a few are temps.
func listTemps(dir string) map[string][]string {
	byBase := map[string][]string{}
	f, err := os.Open(dir)
	if err != nil {
		return byBase
	}
	defer f.Close()
	names, _ := f.Readdirnames(-1) // what was read before an error is still examined
	for _, name := range names {
		if !strings.HasSuffix(name, safefile.TempSuffix) {
			continue
		}
		n := Classify(name)
		if n.Kind != KindRepairTemp || !strings.HasPrefix(name, safefile.TempPrefix(n.Base)) {
			continue
		}
		byBase[n.Base] = append(byBase[n.Base], name)
	}
	return byBase
}

// removeStaleTemp removes dir/name if the run that wrote it is gone, and says so. keep reports
// a temp that is still there (a live run's, or one that could not be removed).
func removeStaleTemp(dir, name string) (note string, keep bool) {
	p := filepath.Join(dir, name)
	info, err := os.Lstat(p)
	if err != nil || !info.Mode().IsRegular() {
		return "", false // gone since the listing (its run finished), or not a file we write
	}
	n := Classify(name)
	var why string
	switch {
	case n.PID > 0 && n.PID != os.Getpid() && !PIDAlive(n.PID):
		why = fmt.Sprintf("its pid %d is dead", n.PID)
	case n.PID == 0 && time.Since(info.ModTime()) > legacyTempAge:
		why = fmt.Sprintf("no pid in its name and not written for %s", time.Since(info.ModTime()).Round(time.Minute))
	default:
		return "", true
	}
	if err := safefile.Remove(p); err != nil {
		return fmt.Sprintf("could not remove the temp file %s left by a killed run (%s): %v", name, why, err), true
	}
	return fmt.Sprintf("removed the temp file %s (%d bytes) left by a killed run: %s", name, info.Size(), why), false
}

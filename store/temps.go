package store

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/clawdoctor/clawdoctor/safefile"
)

// legacyTempAge is how old a temp without a pid in its name (written by clawdoctor before
// temps carried one) must be before it counts as left behind: a running repair rewrites its
// temp continuously, so its mtime stays fresh.
const legacyTempAge = time.Hour

// RemoveStaleTemps removes the temp files that killed clawdoctor runs left beside each of paths
// (".<name>.clawdoctor-<pid>-*.tmp" whose pid is dead, or an older pid-less one not written
// for an hour) and returns a sentence for each, for the report. Every writer calls it before
// it replaces a path; a temp of a live pid is kept whatever its age. Paths in one directory
// share one listing of it: a sessions directory can hold 200,000 files, and a listing for each
// of a transcript's temps and its lock's doubled the time of a repair of every file in it.
func RemoveStaleTemps(paths ...string) []string {
	var notes []string
	byDir := map[string][]string{} // directory: the bases of paths in it
	var dirs []string
	for _, p := range paths {
		dir, base := filepath.Split(p)
		if dir == "" {
			dir = "."
		}
		if _, ok := byDir[dir]; !ok {
			dirs = append(dirs, dir)
		}
		byDir[dir] = append(byDir[dir], base)
	}
	for _, dir := range dirs {
		notes = append(notes, removeStaleTemps(dir, byDir[dir])...)
	}
	return notes
}

// removeStaleTemps is RemoveStaleTemps for the bases of paths in one directory.
func removeStaleTemps(dir string, bases []string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var notes []string
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, safefile.TempSuffix) || !e.Type().IsRegular() {
			continue
		}
		n := Classify(name)
		if n.Kind != KindRepairTemp || !slices.Contains(bases, n.Base) || !strings.HasPrefix(name, safefile.TempPrefix(n.Base)) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		var why string
		switch {
		case n.PID > 0 && n.PID != os.Getpid() && !PIDAlive(n.PID):
			why = fmt.Sprintf("its pid %d is dead", n.PID)
		case n.PID == 0 && time.Since(info.ModTime()) > legacyTempAge:
			why = fmt.Sprintf("no pid in its name and not written for %s", time.Since(info.ModTime()).Round(time.Minute))
		default:
			continue
		}
		p := filepath.Join(dir, name)
		if err := safefile.Remove(p); err != nil {
			notes = append(notes, fmt.Sprintf("could not remove the temp file %s left by a killed run (%s): %v", name, why, err))
			continue
		}
		notes = append(notes, fmt.Sprintf("removed the temp file %s (%d bytes) left by a killed run: %s", name, info.Size(), why))
	}
	return notes
}

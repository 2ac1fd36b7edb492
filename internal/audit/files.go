package audit

import (
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

// archiveRE matches OpenClaw's archive suffix (store.md §1.4), milliseconds optional.
var archiveRE = lazyre.New(`\.jsonl\.(?:reset|deleted|bak)\.\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{3})?Z$`)

// stripCompression removes a .zst or .gz suffix.
func stripCompression(name string) string {
	for _, ext := range []string{".zst", ".gz"} {
		if strings.HasSuffix(name, ext) {
			return strings.TrimSuffix(name, ext)
		}
	}
	return name
}

// kindOf classifies a file name with store.Classify, looking through a .gz/.zst suffix.
func kindOf(name string) store.Kind {
	k := store.Classify(name).Kind
	if k == store.KindForeign {
		if plain := stripCompression(name); plain != name {
			k = store.Classify(plain).Kind
		}
	}
	return k
}

// TranscriptLike reports whether a file name in a sessions dir holds a transcript: a live or
// topic transcript, a checkpoint, a .reset./.deleted./.bak. archive or a repair backup,
// compressed or not. Trajectory sidecars (another format), locks and store files are not.
func TranscriptLike(name string) bool {
	switch kindOf(name) {
	case store.KindTranscript, store.KindTopic, store.KindCheckpoint, store.KindResetArchive,
		store.KindDeletedArchive, store.KindBakArchive, store.KindRepairBackup:
		return true
	}
	return false
}

// liveTranscript reports whether name is a primary (live or topic) transcript: what a
// sessions.json row should reference.
func liveTranscript(name string) bool { return store.Classify(name).Kind.IsPrimary() }

// sessionsDir is one directory to audit: its store (when present) and its transcripts.
type sessionsDir struct {
	dir          string
	store        bool     // sessions.json present
	storeNotFile bool     // sessions.json is a directory, FIFO or device: unreadable
	notFiles     []string // transcript names that are not regular files: unreadable
	transcripts  []string // transcript-like files, sorted
	locks        []string // *.jsonl.lock and sessions.json.lock
	all          []string // every file name, for orphan checks
	names        []string // every name, directories too, sorted: what an lstat would find
	era          store.Era
}

// skipDirs are never descended into when a directory argument is walked.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "skills-prompts": true}

// discover walks root and returns every directory that holds a sessions.json or
// transcript-like files, and the directories it could not read (a read that fails is never a
// clean pass). Symlinks are not followed, except a symlinked agents/<id> or agents/<id>/sessions,
// which is what the gateway itself reads. agent, when set, keeps only agents/<agent>/sessions.
func discover(root, agent string) (found []*sessionsDir, unreadable []string, err error) {
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			unreadable = append(unreadable, p)
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 && p != root && isAgentPart(p) {
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				f, u, err := discover(p+string(filepath.Separator), agent)
				if err != nil {
					unreadable = append(unreadable, p)
				}
				found, unreadable = append(found, f...), append(unreadable, u...)
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if p != root && skipDirs[d.Name()] {
			return filepath.SkipDir
		}
		if p != root && d.Name() == "cold" && filepath.Base(filepath.Dir(p)) == "sessions" {
			// cold storage (2026.9+): zstd archives of records, not transcripts; the database's
			// audit verifies them against their rows (sqlite.cold-archive)
			return filepath.SkipDir
		}
		if agent != "" && filepath.Base(p) == "sessions" && filepath.Base(filepath.Dir(filepath.Dir(p))) == "agents" &&
			filepath.Base(filepath.Dir(p)) != agent {
			return filepath.SkipDir
		}
		sd, err := readSessionsDir(p)
		if err != nil {
			unreadable = append(unreadable, p)
			return filepath.SkipDir
		}
		if sd.store || sd.storeNotFile || len(sd.transcripts) > 0 || len(sd.notFiles) > 0 || sd.era.SQLite || sd.era.Unknown != "" {
			found = append(found, sd)
		}
		return nil
	})
	return found, unreadable, err
}

// isAgentPart reports agents/<id> and agents/<id>/sessions paths.
func isAgentPart(p string) bool {
	p = filepath.Clean(p)
	parent := filepath.Base(filepath.Dir(p))
	return parent == "agents" || (filepath.Base(p) == "sessions" && filepath.Base(filepath.Dir(filepath.Dir(p))) == "agents")
}

func readSessionsDir(dir string) (*sessionsDir, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	sd := &sessionsDir{dir: dir}
	if filepath.Base(dir) == "sessions" {
		sd.era = store.DetectEra(dir) // a SQLite-era agent's sessions dir may hold no JSONL at all
	}
	sd.names = make([]string, len(ents))
	for i, e := range ents {
		sd.names[i] = e.Name() // os.ReadDir sorts by name
	}
	for _, e := range ents {
		if e.IsDir() {
			switch name := e.Name(); {
			case name == "sessions.json":
				sd.storeNotFile = true
			case strings.HasSuffix(name, ".jsonl.lock"), name == "sessions.json.lock":
				sd.locks = append(sd.locks, name) // unreadable as a lock: reported
			case TranscriptLike(name):
				sd.notFiles = append(sd.notFiles, name) // a directory under a transcript's name: unreadable, never a clean pass
			}
			continue
		}
		name := e.Name()
		sd.all = append(sd.all, name)
		switch {
		case name == "sessions.json" && !e.Type().IsRegular() && e.Type()&fs.ModeSymlink == 0:
			sd.storeNotFile = true
		case name == "sessions.json":
			sd.store = true
		case strings.HasSuffix(name, ".jsonl.lock"), name == "sessions.json.lock":
			sd.locks = append(sd.locks, name)
		case TranscriptLike(name) && e.Type().IsRegular():
			sd.transcripts = append(sd.transcripts, name)
		case TranscriptLike(name) && e.Type()&fs.ModeSymlink == 0:
			sd.notFiles = append(sd.notFiles, name) // a FIFO or device under a transcript's name
		}
	}
	sort.Strings(sd.transcripts)
	return sd, nil
}

package audit

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/clawdoctor/clawdoctor/store"
)

// archiveRE matches OpenClaw's archive suffix (store.md §1.4), milliseconds optional.
var archiveRE = regexp.MustCompile(`\.jsonl\.(?:reset|deleted|bak)\.\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{3})?Z$`)

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
	dir         string
	store       bool     // sessions.json present
	transcripts []string // transcript-like files, sorted
	locks       []string // *.jsonl.lock and sessions.json.lock
	all         []string // every file name, for orphan checks
	era         store.Era
}

// skipDirs are never descended into when a directory argument is walked.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "skills-prompts": true}

// discover walks root (without following symlinks) and returns every directory that holds a
// sessions.json or transcript-like files. agent, when set, keeps only agents/<agent>/sessions.
func discover(root, agent string) ([]*sessionsDir, error) {
	var out []*sessionsDir
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // unreadable subdirectory: skip it
		}
		if !d.IsDir() {
			return nil
		}
		if p != root && skipDirs[d.Name()] {
			return filepath.SkipDir
		}
		if agent != "" && filepath.Base(p) == "sessions" && filepath.Base(filepath.Dir(filepath.Dir(p))) == "agents" &&
			filepath.Base(filepath.Dir(p)) != agent {
			return filepath.SkipDir
		}
		sd, err := readSessionsDir(p)
		if err == nil && (sd.store || len(sd.transcripts) > 0 || sd.era.SQLite || sd.era.Unknown != "") {
			out = append(out, sd)
		}
		return nil
	})
	return out, err
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
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		name := e.Name()
		sd.all = append(sd.all, name)
		switch {
		case name == "sessions.json":
			sd.store = true
		case strings.HasSuffix(name, ".jsonl.lock"), name == "sessions.json.lock":
			sd.locks = append(sd.locks, name)
		case TranscriptLike(name) && e.Type().IsRegular():
			sd.transcripts = append(sd.transcripts, name)
		}
	}
	sort.Strings(sd.transcripts)
	return sd, nil
}

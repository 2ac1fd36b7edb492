package store_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

// copyTree copies the files of src (one level) to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		in, err := os.Open(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dst, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		in.Close()
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

var (
	reEntries = regexp.MustCompile(`^store:(\d+) entries`)
)

// expectation is the independent count of one corpus folder.
type expectation struct {
	files, transcripts, topics, archives, deleted, reset, locks, entries, missing, orphans int
	fileBytes, transcriptBytes, archiveBytes, orphanBytes                                  int64
	oldest, newest                                                                         int64
	missingArchived                                                                        int
}

// TestInventoryCorpus runs the inventory on a copy of every corpus folder and compares it
// with counts made here from MANIFEST.tsv (kinds and sizes measured by the corpus collector)
// and from sessions.json decoded with encoding/json and a deliberately simple reference rule.
func TestInventoryCorpus(t *testing.T) {
	dir := corpusDir(t)
	rows := readManifest(t, dir)
	byDir := map[string][]manifestRow{}
	for _, r := range rows {
		d := filepath.Dir(r.file)
		byDir[d] = append(byDir[d], r)
	}
	dirs := make([]string, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	tmp := t.TempDir()
	for _, d := range dirs {
		t.Run(d, func(t *testing.T) {
			dst := filepath.Join(tmp, filepath.FromSlash(d))
			copyTree(t, filepath.Join(dir, filepath.FromSlash(d)), dst)
			want := expect(t, dst, byDir[d])

			targets, err := store.Targets("", "", false, []string{dst})
			if err != nil || len(targets) != 1 {
				t.Fatalf("Targets = %v, %v", targets, err)
			}
			s, err := store.Inventory(context.Background(), targets, store.StatsOptions{Now: now}, nil)
			if err != nil {
				t.Fatal(err)
			}
			a := s.Agents[0]
			check := func(what string, got, want int64) {
				if got != want {
					t.Errorf("%s = %d, want %d", what, got, want)
				}
			}
			check("files", int64(a.Files.Files), int64(want.files))
			check("file bytes", a.Files.Bytes, want.fileBytes)
			check("transcripts", int64(a.Transcripts.Files), int64(want.transcripts))
			check("transcript bytes", a.Transcripts.Bytes, want.transcriptBytes)
			check("topics", int64(a.Topics.Files), int64(want.topics))
			check("archives", int64(a.Archives.Files), int64(want.archives))
			check("archive bytes", a.Archives.Bytes, want.archiveBytes)
			check("deleted archives", int64(a.ArchivesByKind[store.KindDeletedArchive].Files), int64(want.deleted))
			check("reset archives", int64(a.ArchivesByKind[store.KindResetArchive].Files), int64(want.reset))
			check("entries", int64(a.Store.Entries), int64(want.entries))
			check("missing transcripts", int64(a.MissingTranscripts), int64(want.missing))
			check("orphans", int64(a.Orphans.Files), int64(want.orphans))
			check("orphan bytes", a.Orphans.Bytes, want.orphanBytes)
			check("stale locks", int64(a.Locks.Stale), int64(want.locks))
			check("live locks", int64(a.Locks.Live), 0)
			check("oldest update", a.OldestUpdate.UnixMilli(), want.oldest)
			check("newest update", a.NewestUpdate.UnixMilli(), want.newest)
			check("missing but archived", int64(a.MissingArchived), int64(want.missingArchived))
			if want.entries > 0 && !a.Store.Canonical {
				t.Error("corpus store not recognised as OpenClaw-written")
			}
		})
	}
}

func expect(t *testing.T, dst string, rows []manifestRow) expectation {
	t.Helper()
	e := expectation{}
	sweepable := map[string]int64{}
	for _, r := range rows {
		size, err := strconv.ParseInt(r.bytes, 10, 64)
		if err != nil {
			t.Fatalf("%s: bytes %q", r.file, r.bytes)
		}
		name := filepath.Base(r.file)
		e.files++
		e.fileBytes += size
		kind, _ := manifestKind(r)
		switch kind {
		case store.KindTranscript, store.KindTopic:
			e.transcripts++
			e.transcriptBytes += size
			if kind == store.KindTopic {
				e.topics++
			}
			sweepable[name] = size
		case store.KindDeletedArchive, store.KindResetArchive:
			e.archives++
			e.archiveBytes += size
			if kind == store.KindDeletedArchive {
				e.deleted++
			} else {
				e.reset++
			}
		case store.KindTranscriptLock:
			e.locks++
		case store.KindCheckpoint, store.KindTrajectory, store.KindTrajectoryPointer:
			sweepable[name] = size
		case store.KindStore:
			m := reEntries.FindStringSubmatch(r.types)
			if m == nil {
				t.Fatalf("%s: no entry count in %q", r.file, r.types)
			}
			e.entries, _ = strconv.Atoi(m[1])
		}
	}
	// The reference rule: an entry points at the last path segment of sessionFile (either
	// separator), else at <sessionId>.jsonl; trajectory sidecars share its base.
	referenced := map[string]bool{}
	data, err := os.ReadFile(filepath.Join(dst, "sessions.json"))
	if err == nil {
		var st map[string]struct {
			SessionID   string   `json:"sessionId"`
			SessionFile string   `json:"sessionFile"`
			UpdatedAt   *float64 `json:"updatedAt"`
		}
		if err := json.Unmarshal(data, &st); err != nil {
			t.Fatal(err)
		}
		if len(st) != e.entries {
			t.Fatalf("encoding/json sees %d entries, manifest %d", len(st), e.entries)
		}
		for _, en := range st {
			name := en.SessionID + ".jsonl"
			if en.SessionFile != "" {
				parts := strings.FieldsFunc(en.SessionFile, func(r rune) bool { return r == '/' || r == '\\' })
				name = parts[len(parts)-1]
			}
			referenced[name] = true
			base := strings.TrimSuffix(name, ".jsonl")
			referenced[base+".trajectory.jsonl"] = true
			referenced[base+".trajectory-path.json"] = true
			if _, err := os.Stat(filepath.Join(dst, name)); err != nil {
				e.missing++
				for _, r := range rows {
					if b := filepath.Base(r.file); strings.HasPrefix(b, name+".deleted.") || strings.HasPrefix(b, name+".reset.") {
						e.missingArchived++
						break
					}
				}
			}
			if en.UpdatedAt != nil {
				ms := int64(*en.UpdatedAt)
				if e.oldest == 0 || ms < e.oldest {
					e.oldest = ms
				}
				if ms > e.newest {
					e.newest = ms
				}
			}
		}
	}
	if e.oldest == 0 {
		e.oldest = time.Time{}.UnixMilli()
		e.newest = time.Time{}.UnixMilli()
	}
	for name, size := range sweepable {
		if !referenced[name] {
			e.orphans++
			e.orphanBytes += size
		}
	}
	return e
}

func TestInventoryEdgeCases(t *testing.T) {
	state := t.TempDir()
	dir := filepath.Join(state, "agents", "main", "sessions")
	os.MkdirAll(filepath.Join(dir, "skills-prompts", "sha256", "ab"), 0o755)
	hash := "ab" + strings.Repeat("0", 62)
	files := map[string]string{
		"sessions.json": "{\n  \"bad\": ",
		"a.jsonl":       "{}\n",
		"a.jsonl.reset.2026-01-01T00-00-00.000Z.zst": "xx",
		"sessions.json.bak.1700000000000":            "{}",
		"skills-prompts/sha256/ab/" + hash + ".txt":  "prompt",
		"notes.txt": "n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink("/etc/hostname", filepath.Join(dir, "link.jsonl"))
	os.Mkdir(filepath.Join(dir, "session-sqlite-import-archive"), 0o755)

	targets, err := store.Targets(state, "", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.Inventory(context.Background(), targets, store.StatsOptions{Now: now}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := s.Agents[0]
	if a.Agent != "main" || a.Store.Corrupt == "" || !strings.Contains(a.Store.Corrupt, "sessions.json:2:10") {
		t.Errorf("corrupt store not reported with its position: %+v", a.Store)
	}
	if a.Era.SQLite || a.Era.ImportArchive == "" { // an import archive alone is no evidence
		t.Errorf("era %+v: want JSONL era with the import archive noted", a.Era)
	}
	if a.Transcripts.Files != 2 || a.Symlinks != 1 || a.Dirs != 1 {
		t.Errorf("transcripts %d symlinks %d dirs %d", a.Transcripts.Files, a.Symlinks, a.Dirs)
	}
	if a.Orphans.Files != 2 { // a corrupt store references nothing, as OpenClaw would read it
		t.Errorf("orphans = %d, want 2", a.Orphans.Files)
	}
	if a.Archives.Files != 2 || a.Compressed.Files != 1 || a.ArchivesByKind[store.KindStoreBackup].Files != 1 {
		t.Errorf("archives %+v compressed %+v", a.ArchivesByKind, a.Compressed)
	}
	if a.Kinds[store.KindSkillsPrompt].Files != 1 || a.Kinds[store.KindForeign].Files != 1 {
		t.Errorf("kinds %+v", a.Kinds)
	}

	if _, err := store.Targets(t.TempDir(), "", false, nil); err == nil {
		t.Error("a state dir without agents gave no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := store.Inventory(ctx, targets, store.StatsOptions{Now: now}, nil); err == nil {
		t.Error("cancelled inventory gave no error")
	}
}

type countingBar struct {
	totals      []int64
	added       int64
	done        int
	addsAtTotal int
}

func (c *countingBar) SetTotal(n int64) { c.totals = append(c.totals, n); c.addsAtTotal = int(c.added) }
func (c *countingBar) Add(n int64)      { c.added += n }
func (c *countingBar) Done()            { c.done++ }

func TestInventoryProgress(t *testing.T) {
	state := t.TempDir()
	var want int64
	for _, a := range []string{"main", "ops"} {
		dir := filepath.Join(state, "agents", a, "sessions")
		os.MkdirAll(dir, 0o755)
		for i, content := range []string{"{}", "0123456789"} {
			name := filepath.Join(dir, []string{"sessions.json", "x.jsonl"}[i])
			os.WriteFile(name, []byte(content), 0o600)
			want += int64(len(content))
		}
	}
	targets, err := store.Targets(state, "", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	bar := &countingBar{}
	if _, err := store.Inventory(context.Background(), targets, store.StatsOptions{Now: now}, bar); err != nil {
		t.Fatal(err)
	}
	if len(bar.totals) != 1 || bar.totals[0] != want || bar.added != want || bar.done != 1 || bar.addsAtTotal != 0 {
		t.Errorf("progress: %+v, want one SetTotal(%d) before the adds, adds summing to it, one Done", bar, want)
	}
}

func TestInventoryNeverOpensFIFOs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agents", "main", "sessions")
	os.MkdirAll(dir, 0o755)
	for _, name := range []string{"sessions.json", "a.jsonl.lock"} {
		if err := syscallMkfifo(filepath.Join(dir, name)); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	targets, err := store.Targets(filepath.Dir(filepath.Dir(filepath.Dir(dir))), "", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	var s store.Stats
	go func() {
		var err error
		s, err = store.Inventory(context.Background(), targets, store.StatsOptions{Now: now}, nil)
		done <- err
	}()
	select {
	case err := <-done:
		// issue 10, scope 6: the FIFO store is reported as unreadable and the run is partial
		if err != nil || !s.Partial() || !strings.Contains(strings.Join(s.Agents[0].Unreadable, " "), "not a regular file") {
			t.Errorf("Inventory over a FIFO store = %v, unreadable %q; want it listed as not a regular file", err, s.Agents[0].Unreadable)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Inventory blocked on a FIFO")
	}
	if _, err := store.InspectLockFile(filepath.Join(dir, "a.jsonl.lock"), store.LockOptions{}); err == nil {
		t.Error("InspectLockFile opened a FIFO")
	}
}

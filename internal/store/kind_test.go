package store_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestClassify(t *testing.T) {
	const id = "3f0c2a9e-6b1d-4c55-9a0e-1c2d3e4f5a6b"
	const cp = "0b8e1111-2222-4333-8444-555566667777"
	hash := strings.Repeat("4f", 32)
	for _, tc := range []struct {
		name string
		want store.Name
	}{
		{"sessions.json", store.Name{Kind: store.KindStore}},
		{id + ".jsonl", store.Name{Kind: store.KindTranscript, Base: id + ".jsonl", SessionID: id}},
		{"anything-else.jsonl", store.Name{Kind: store.KindTranscript, Base: "anything-else.jsonl", SessionID: "anything-else"}},
		{id + "-topic-42.jsonl", store.Name{Kind: store.KindTopic, Base: id + "-topic-42.jsonl", SessionID: id, Topic: "42"}},
		{"abc-topic-a%2Fb.jsonl", store.Name{Kind: store.KindTopic, Base: "abc-topic-a%2Fb.jsonl", SessionID: "abc", Topic: "a/b"}},
		{id + ".jsonl.reset.2026-03-14T09-05-33.123Z", store.Name{Kind: store.KindResetArchive, Base: id + ".jsonl", Time: ts("2026-03-14T09:05:33.123Z")}},
		{id + ".jsonl.reset.2026-03-14T09-05-33Z", store.Name{Kind: store.KindResetArchive, Base: id + ".jsonl", Time: ts("2026-03-14T09:05:33Z")}},
		{id + ".jsonl.deleted.2026-01-25T18-25-42.431Z", store.Name{Kind: store.KindDeletedArchive, Base: id + ".jsonl", Time: ts("2026-01-25T18:25:42.431Z")}},
		{id + ".jsonl.deleted.2026-01-25T18-25-42.431Z.zst", store.Name{Kind: store.KindDeletedArchive, Base: id + ".jsonl", Time: ts("2026-01-25T18:25:42.431Z"), Compressed: true}},
		{id + ".jsonl.bak.2026-02-01T00-00-00.000Z", store.Name{Kind: store.KindBakArchive, Base: id + ".jsonl", Time: ts("2026-02-01T00:00:00Z")}},
		{id + "-topic-7.jsonl.reset.2026-02-01T00-00-00.000Z", store.Name{Kind: store.KindResetArchive, Base: id + "-topic-7.jsonl", Time: ts("2026-02-01T00:00:00Z")}},
		{"sessions.json.bak.1741939200000", store.Name{Kind: store.KindStoreBackup, Base: "sessions.json", Time: time.UnixMilli(1741939200000).UTC()}},
		{id + ".jsonl.bak-164503-1777881393601", store.Name{Kind: store.KindRepairBackup, Base: id + ".jsonl", PID: 164503, Time: time.UnixMilli(1777881393601).UTC()}},
		{"sessions.json.bak-99-1777881393601", store.Name{Kind: store.KindRepairBackup, Base: "sessions.json", PID: 99, Time: time.UnixMilli(1777881393601).UTC()}},
		{id + ".jsonl.repair-12-1777881393601.tmp", store.Name{Kind: store.KindRepairTemp, Base: id + ".jsonl", PID: 12, Time: time.UnixMilli(1777881393601).UTC()}},
		{"." + id + ".jsonl.clawdoctor-123456.tmp", store.Name{Kind: store.KindRepairTemp, Base: id + ".jsonl"}},
		{id + ".checkpoint." + cp + ".jsonl", store.Name{Kind: store.KindCheckpoint, SessionID: id, CheckpointID: cp}},
		{id + ".checkpoint." + strings.ToUpper(cp) + ".jsonl", store.Name{Kind: store.KindCheckpoint, SessionID: id, CheckpointID: cp}},
		{id + ".trajectory.jsonl", store.Name{Kind: store.KindTrajectory, Base: id + ".jsonl"}},
		{id + ".trajectory-path.json", store.Name{Kind: store.KindTrajectoryPointer, Base: id + ".jsonl"}},
		{id + ".jsonl.lock", store.Name{Kind: store.KindTranscriptLock, Base: id + ".jsonl"}},
		{id + "-topic-1.jsonl.lock", store.Name{Kind: store.KindTranscriptLock, Base: id + "-topic-1.jsonl"}},
		{"sessions.json.lock", store.Name{Kind: store.KindStoreLock, Base: "sessions.json"}},
		{"sessions.json.4242." + cp + ".tmp", store.Name{Kind: store.KindStoreTemp, Base: "sessions.json", PID: 4242}},
		{"sessions.json." + cp + ".tmp", store.Name{Kind: store.KindStoreTemp, Base: "sessions.json"}},
		{"skills-prompts/sha256/4f/" + hash + ".txt", store.Name{Kind: store.KindSkillsPrompt, Base: hash}},
		{"skills-prompts/sha256/4f/" + hash + ".txt.77." + cp + ".tmp", store.Name{Kind: store.KindSkillsPromptTemp, Base: hash, PID: 77}},
		{"skills-prompts/sha256/00/" + hash + ".txt", store.Name{Kind: store.KindForeign}}, // wrong fan-out dir
		{"session-sqlite-import-archive", store.Name{Kind: store.KindSQLiteArchive}},
		// SQLite era (2026.9): a generation after the timestamp, and cold storage.
		{id + ".jsonl.deleted.2026-03-26T12-08-15.185Z.0123456789abcdef0123456789abcdef.zst", store.Name{Kind: store.KindDeletedArchive, Base: id + ".jsonl", Time: ts("2026-03-26T12:08:15.185Z"), Generation: "0123456789abcdef0123456789abcdef", Compressed: true}},
		{id + ".jsonl.reset.2026-03-26T12-08-15Z.0123456789abcdef0123456789abcdef", store.Name{Kind: store.KindResetArchive, Base: id + ".jsonl", Time: ts("2026-03-26T12:08:15Z"), Generation: "0123456789abcdef0123456789abcdef"}},
		{id + ".jsonl.reset.2026-03-26T12-08-15Z.0123456789ABCDEF0123456789ABCDEF", store.Name{Kind: store.KindForeign}}, // upper-case hex is not OpenClaw's
		{id + ".jsonl.reset.2026-03-26T12-08-15Z.0123", store.Name{Kind: store.KindForeign}},
		{"cold/" + hash + ".jsonl.zst", store.Name{Kind: store.KindColdArchive, Base: hash, Compressed: true}},
		{"cold/" + hash + ".jsonl", store.Name{Kind: store.KindForeign}},
		// Foreign: nothing OpenClaw writes, or a near miss.
		{"sessions.json.telegram-sent-messages.json", store.Name{Kind: store.KindForeign}},
		{".usage-cost-cache.json.lock", store.Name{Kind: store.KindForeign}},
		{id + ".jsonl.reset.yesterday", store.Name{Kind: store.KindForeign}},
		{id + ".jsonl.reset.2026-13-14T09-05-33.123Z", store.Name{Kind: store.KindForeign}}, // month 13
		{id + ".jsonl.reset.2026-03-14T09:05:33.123Z", store.Name{Kind: store.KindForeign}}, // ':' not swapped
		{"sessions.json.bak", store.Name{Kind: store.KindForeign}},
		{"sessions.json.tmp", store.Name{Kind: store.KindForeign}},
		{".jsonl", store.Name{Kind: store.KindForeign}},
		{"notes.txt", store.Name{Kind: store.KindForeign}},
		{".DS_Store", store.Name{Kind: store.KindForeign}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, store.Classify(tc.name)); diff != "" {
				t.Errorf("Classify(%q) (-want +got):\n%s", tc.name, diff)
			}
		})
	}
}

func TestArchiveTimeRoundTrip(t *testing.T) {
	tm := time.Date(2026, 3, 14, 9, 5, 33, 123e6, time.UTC)
	s := store.ArchiveTime(tm)
	if s != "2026-03-14T09-05-33.123Z" {
		t.Fatalf("ArchiveTime = %s", s)
	}
	if got, ok := store.ParseArchiveTime(s); !ok || !got.Equal(tm) {
		t.Fatalf("ParseArchiveTime(%s) = %v, %v", s, got, ok)
	}
}

// corpusDir is ../shared/corpus beside the repository.
func corpusDir(t testing.TB) string {
	dir := filepath.Join("..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST.tsv")); err != nil {
		t.Skipf("corpus not found at %s (it lives beside the repo as shared/corpus): %v", dir, err)
	}
	return dir
}

type manifestRow struct {
	file     string
	bytes    string
	types    string
	features string
}

func readManifest(t testing.TB, dir string) []manifestRow {
	f, err := os.Open(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []manifestRow
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 11 || cols[0] == "file" {
			continue
		}
		rows = append(rows, manifestRow{file: cols[0], bytes: cols[4], types: cols[8], features: cols[10]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// manifestKind is the independent classification: the corpus collector's kind column, which
// was made by reading the files, mapped to our kinds.
func manifestKind(r manifestRow) (store.Kind, string) {
	switch {
	case strings.Contains(r.features, "kind=live"):
		return store.KindTranscript, ""
	case strings.Contains(r.features, "kind=topic-session"):
		return store.KindTopic, ""
	case strings.Contains(r.features, "kind=store"):
		return store.KindStore, ""
	case strings.Contains(r.features, "kind=deleted-archive"):
		return store.KindDeletedArchive, ""
	case strings.Contains(r.features, "kind=reset-archive"):
		return store.KindResetArchive, ""
	case strings.Contains(r.features, "kind=bak"):
		return store.KindRepairBackup, ""
	case strings.Contains(r.features, "kind=checkpoint"):
		return store.KindCheckpoint, ""
	case strings.Contains(r.features, "kind=trajectory"):
		return store.KindTrajectory, ""
	case strings.Contains(r.features, "kind=foreign-codex"):
		// A Codex rollout: foreign by content, but any *.jsonl in a sessions dir is a primary
		// transcript to OpenClaw, and a name-only classification cannot tell.
		return store.KindTranscript, "foreign by content"
	case strings.Contains(r.features, "sibling file: lock"):
		return store.KindTranscriptLock, ""
	case strings.Contains(r.features, "sibling file: trajectory-path"):
		return store.KindTrajectoryPointer, ""
	case strings.Contains(r.features, "sibling file: store-sibling"):
		return store.KindForeign, ""
	}
	return "", ""
}

// TestClassifyCorpus classifies every file name of every corpus folder and checks it against
// the manifest, and checks that the manifest lists every file on disk.
func TestClassifyCorpus(t *testing.T) {
	dir := corpusDir(t)
	rows := readManifest(t, dir)
	listed := map[string]bool{}
	kinds := map[store.Kind]int{}
	for _, r := range rows {
		listed[r.file] = true
		want, _ := manifestKind(r)
		if want == "" {
			t.Errorf("%s: manifest row has no kind the test knows: %q", r.file, r.features)
			continue
		}
		got := store.Classify(filepath.Base(r.file))
		kinds[got.Kind]++
		if got.Kind != want {
			t.Errorf("%s: Classify = %s, manifest says %s", r.file, got.Kind, want)
		}
	}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Dir(path) == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if !listed[filepath.ToSlash(rel)] {
			t.Errorf("%s is on disk but not in MANIFEST.tsv (not classified against it)", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 90 || len(kinds) < 9 {
		t.Errorf("only %d manifest rows of %d kinds checked", len(rows), len(kinds))
	}
}

package audit_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/audit"
	"github.com/clawdoctor/clawdoctor/internal/session"
)

// corpusDir is shared/corpus beside the repository (read in place: audit never writes).
func corpusDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST.tsv")); err != nil {
		t.Skipf("corpus not found at %s (it sits beside the repo as shared/corpus): %v", dir, err)
	}
	return dir
}

// counts is what the corpus test compares.
type counts struct {
	UnpairedCalls, OrphanResults, DuplicateResults, DanglingParents, MultiRootFiles, MissingHeaders,
	LostPrompts, MissingTranscripts, OrphanTranscripts int
}

// TestCorpusCounts audits every corpus folder and compares rule counts with an independent
// count written here: a plain map[string]any walk of every transcript and store, and, where the
// corpus MANIFEST has them, its numbers.
//
// Deliberate differences, explained:
//   - tool pairing is counted on the active branch (leaf = last entry, walk parents), as audit
//     does; the MANIFEST counts the whole file. They agree on this corpus (checked below).
//   - trajectory sidecars (*.trajectory.jsonl) are another format: audit does not read them as
//     transcripts, so their NO_SESSION_HEADER marks in the MANIFEST are not counted.
//   - missing/orphan transcripts are compared with the MANIFEST's git-tree cross-reference only
//     for folders the corpus holds completely (dir_files == in_corpus).
func TestCorpusCounts(t *testing.T) {
	root := corpusDir(t)
	res, err := audit.Run(context.Background(), []string{root}, audit.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Unreadable) > 0 {
		t.Errorf("unreadable: %v", res.Unreadable)
	}
	got := counts{}
	multiRoot := map[string]bool{}
	for _, f := range res.Findings {
		switch f.Rule {
		case "tool.unpaired-call":
			got.UnpairedCalls++
		case "tool.orphan-result":
			got.OrphanResults++
		case "tool.duplicate-result":
			got.DuplicateResults++
		case "tree.dangling-parent":
			got.DanglingParents++
		case "tree.multiple-roots":
			multiRoot[f.Path] = true
		case "header.missing":
			got.MissingHeaders++
		case "fallback.lost-prompt":
			got.LostPrompts++
		case "store.missing-transcript":
			got.MissingTranscripts++
		case "store.orphan-transcript":
			got.OrphanTranscripts++
		}
	}
	got.MultiRootFiles = len(multiRoot)

	want := independentCounts(t, root)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit counts differ from the independent count (-want +got):\n%s", diff)
	}

	// The MANIFEST agrees with the independent count where it has the numbers.
	m := manifestCounts(t, root)
	for _, c := range []struct {
		name      string
		mine, man int
	}{
		{"UNPAIRED_TOOLCALLS", want.UnpairedCalls, m["UNPAIRED_TOOLCALLS"]},
		{"ORPHAN_TOOLRESULTS", want.OrphanResults, m["ORPHAN_TOOLRESULTS"]},
		{"DANGLING_PARENT", want.DanglingParents, m["DANGLING_PARENT"]},
		{"NO_SESSION_HEADER (trajectories excluded)", want.MissingHeaders, m["NO_SESSION_HEADER"]},
	} {
		if c.mine != c.man {
			t.Errorf("%s: independent count %d, MANIFEST %d", c.name, c.mine, c.man)
		}
	}
	// and session.BuildIndex, the tree index the other commands use, sees the same tree
	var sDangling, sMultiRoot int
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !audit.TranscriptLike(d.Name()) {
			return err
		}
		ix, err := session.IndexFile(context.Background(), p, session.IndexOptions{}, nil)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		sDangling += len(ix.Dangling())
		roots := 0
		for _, r := range ix.Roots() {
			if ix.Node(r).HasID { // entries without ids (pi v1, foreign formats) have no tree
				roots++
			}
		}
		if roots > 1 {
			sMultiRoot++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if sDangling != got.DanglingParents || sMultiRoot != got.MultiRootFiles {
		t.Errorf("session.Index: %d dangling, %d multi-root files; audit: %d, %d", sDangling, sMultiRoot, got.DanglingParents, got.MultiRootFiles)
	}
	if want.UnpairedCalls == 0 || want.OrphanResults == 0 || want.DanglingParents == 0 || want.MissingTranscripts == 0 {
		t.Errorf("corpus counts suspiciously empty: %+v", want)
	}
	t.Logf("corpus: %+v (%d files, %d entries)", got, res.Summary.Files, res.Summary.Entries)
}

func manifestCounts(t *testing.T, root string) map[string]int {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int{}
	num := regexp.MustCompile(`\b(UNPAIRED_TOOLCALLS|ORPHAN_TOOLRESULTS|DANGLING_PARENT)=(\d+)`)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 11 || cols[0] == "file" {
			continue
		}
		for _, m := range num.FindAllStringSubmatch(cols[10], -1) {
			n, _ := strconv.Atoi(m[2])
			out[m[1]] += n
		}
		if strings.Contains(cols[10], "NO_SESSION_HEADER") && !strings.Contains(cols[0], ".trajectory") {
			out["NO_SESSION_HEADER"]++
		}
	}
	return out
}

// independentCounts walks the corpus with encoding/json into map[string]any.
func independentCounts(t *testing.T, root string) counts {
	t.Helper()
	var c counts
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := d.Name()
		switch {
		case name == "sessions.json":
			storeCounts(t, filepath.Dir(p), &c)
		case strings.Contains(name, ".jsonl") && !strings.Contains(name, ".trajectory") && !strings.HasSuffix(name, ".lock"):
			transcriptCounts(t, p, &c)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func transcriptCounts(t *testing.T, path string, c *counts) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var objs []map[string]any
	for _, line := range strings.Split(string(data), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m != nil {
			objs = append(objs, m)
		}
	}
	if len(objs) == 0 {
		return
	}
	if objs[0]["type"] != "session" {
		c.MissingHeaders++
	}
	byID := map[string]map[string]any{}
	var entries []map[string]any
	for _, o := range objs {
		if o["type"] == "session" {
			continue
		}
		entries = append(entries, o)
		if id, _ := o["id"].(string); id != "" {
			byID[id] = o
		}
	}
	roots := 0
	for _, e := range entries {
		id, _ := e["id"].(string)
		if id == "" {
			continue
		}
		p, _ := e["parentId"].(string)
		if p == "" {
			roots++
		} else if byID[p] == nil {
			c.DanglingParents++
		}
		if msg, _ := e["message"].(map[string]any); msg != nil && msg["role"] == "user" && strings.TrimSpace(plainText(msg["content"])) == audit.RetryText {
			c.LostPrompts++
		}
	}
	if roots > 1 {
		c.MultiRootFiles++
	}
	// active branch: the last entry with an id, then its parents
	var leaf map[string]any
	for i := len(entries) - 1; i >= 0 && leaf == nil; i-- {
		if id, _ := entries[i]["id"].(string); id != "" {
			leaf = entries[i]
		}
	}
	var branch []map[string]any
	for e, n := leaf, 0; e != nil && n <= len(entries); n++ {
		branch = append([]map[string]any{e}, branch...)
		p, _ := e["parentId"].(string)
		e = byID[p]
	}
	results := map[string]int{}
	called := map[string]bool{}
	var pending []string
	for _, e := range branch {
		msg, _ := e["message"].(map[string]any)
		if msg == nil {
			continue
		}
		switch msg["role"] {
		case "assistant":
			blocks, _ := msg["content"].([]any)
			failed := msg["stopReason"] == "error" || msg["stopReason"] == "aborted"
			for _, b := range blocks {
				bm, _ := b.(map[string]any)
				switch bm["type"] {
				case "toolCall", "toolUse", "functionCall", "tool_use", "tool_call", "function_call":
					if id, _ := bm["id"].(string); id != "" {
						called[id] = true
						if !failed {
							pending = append(pending, id)
						}
					}
				}
			}
		case "toolResult":
			id, _ := msg["toolCallId"].(string)
			if !called[id] {
				c.OrphanResults++
				continue
			}
			results[id]++
			if results[id] == 2 {
				c.DuplicateResults++
			}
		}
	}
	for _, id := range pending {
		if results[id] == 0 {
			c.UnpairedCalls++
		}
	}
}

func plainText(content any) string {
	switch v := content.(type) {
	case string:
		return v
	case []any:
		var sb strings.Builder
		for _, b := range v {
			if bm, _ := b.(map[string]any); bm["type"] == "text" {
				s, _ := bm["text"].(string)
				sb.WriteString(s)
			}
		}
		return sb.String()
	}
	return ""
}

func storeCounts(t *testing.T, dir string, c *counts) {
	data, err := os.ReadFile(filepath.Join(dir, "sessions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var store map[string]map[string]any
	if err := json.Unmarshal(data, &store); err != nil {
		return
	}
	referenced := map[string]bool{}
	for _, e := range store {
		id, _ := e["sessionId"].(string)
		name := id + ".jsonl"
		if sf, _ := e["sessionFile"].(string); sf != "" {
			name = filepath.Base(strings.ReplaceAll(sf, `\`, "/"))
		}
		referenced[name] = true
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			c.MissingTranscripts++
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		n := e.Name()
		if strings.HasSuffix(n, ".jsonl") && !strings.HasSuffix(n, ".trajectory.jsonl") && !strings.Contains(n, ".checkpoint.") && !referenced[n] {
			c.OrphanTranscripts++
		}
	}
}

// TestCorpusStoreMatchesManifest compares missing and orphan transcripts per store with the
// MANIFEST's git-tree cross-reference, for the folders the corpus holds completely.
func TestCorpusStoreMatchesManifest(t *testing.T) {
	root := corpusDir(t)
	f, err := os.Open(filepath.Join(root, "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	xref := regexp.MustCompile(`entries_only_archived=(\d+) entries_missing=(\d+) unreferenced_live_jsonl=(\d+); dir_files=(\d+), in_corpus=(\d+)`)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	checked := 0
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 11 || !strings.HasSuffix(cols[0], "sessions.json") {
			continue
		}
		m := xref.FindStringSubmatch(cols[10])
		if m == nil || m[4] != m[5] {
			continue // the corpus lacks some files of this folder
		}
		archived, _ := strconv.Atoi(m[1])
		missing, _ := strconv.Atoi(m[2])
		unref, _ := strconv.Atoi(m[3])
		dir := filepath.Join(root, filepath.Dir(cols[0]))
		res, err := audit.Run(context.Background(), []string{dir}, audit.Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var gotMissing, gotOrphan int
		for _, f := range res.Findings {
			switch f.Rule {
			case "store.missing-transcript":
				gotMissing++
			case "store.orphan-transcript":
				gotOrphan++
			}
		}
		if gotMissing != archived+missing || gotOrphan != unref {
			t.Errorf("%s: missing %d orphan %d, MANIFEST says missing %d (+%d archived only) unreferenced %d",
				cols[0], gotMissing, gotOrphan, missing, archived, unref)
		}
		checked++
	}
	if checked < 5 {
		t.Errorf("only %d complete store folders checked", checked)
	}
}

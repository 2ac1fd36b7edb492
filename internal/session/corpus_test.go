package session_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/internal/session"
	"github.com/clawdoctor/clawdoctor/jsonl"
	"github.com/google/go-cmp/cmp"
)

// corpusFiles returns every transcript-like file (*.jsonl*, locks excluded) of the shared
// corpus, which sits beside the repository. Tests read it in place and never write to it.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("corpus not found at %s (it sits beside the repository in CI): %v", dir, err)
	}
	var files []string
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if !d.IsDir() && strings.Contains(name, ".jsonl") && !strings.HasSuffix(name, ".lock") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no transcripts under %s", dir)
	}
	return files
}

func rel(p string) string {
	if i := strings.Index(p, "corpus/"); i >= 0 {
		return p[i+len("corpus/"):]
	}
	return p
}

// TestCorpusRoundTrip decodes every line of every corpus transcript and checks that writing
// back what nobody changed gives the same bytes: the whole file reassembled from Scan items,
// a no-op field edit, and the content re-encoded from its decoded blocks.
func TestCorpusRoundTrip(t *testing.T) {
	var lines, contents, strContents int
	for _, path := range corpusFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		err = session.Scan(context.Background(), bytes.NewReader(data), path, session.ScanOptions{}, func(it session.Item) error {
			lines++
			var raw []byte
			switch it.Kind {
			case session.ItemEntry:
				raw = it.Entry.Raw
				e := it.Entry
				// A no-op edit keeps every byte.
				if v, ok, err := session.GetField(raw, "type"); err != nil || !ok {
					t.Errorf("%s:%d: GetField(type) = %v %v", rel(path), it.Line.Num, ok, err)
				} else if got, err := session.SetField(raw, "type", v); err != nil || !bytes.Equal(got, raw) {
					t.Errorf("%s:%d: SetField(type, same) changed the line: %v", rel(path), it.Line.Num, err)
				}
				if got, deleted, err := session.DeleteField(raw, "noSuchField"); err != nil || deleted || !bytes.Equal(got, raw) {
					t.Errorf("%s:%d: DeleteField(absent) changed the line: %v", rel(path), it.Line.Num, err)
				}
				checkStrings(t, rel(path), it.Line.Num, raw)
				if e.Message != nil {
					want, ok, _ := session.GetField(raw, "message.content")
					if ok {
						contents++
						if e.Message.Content.IsText {
							strContents++
						}
						got, err := e.Message.Content.MarshalJSON()
						if err != nil || !bytes.Equal(got, want) {
							t.Errorf("%s:%d: content re-encoded differs (%v):\n got %.200s\nwant %.200s", rel(path), it.Line.Num, err, got, want)
						}
					}
				}
			case session.ItemHeader, session.ItemStrayHeader:
				raw = it.Header.Raw
			default:
				raw = it.Line.Bytes
			}
			if it.Line.Has(jsonl.FlagBOM) {
				out.WriteString("\uFEFF")
			}
			out.Write(raw)
			if it.Line.Has(jsonl.FlagCRLF) {
				out.WriteByte('\r')
			}
			if !it.Line.Has(jsonl.FlagNoNewline) {
				out.WriteByte('\n')
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), data) {
			t.Errorf("%s: reassembled file differs from the original", rel(path))
		}
	}
	if lines == 0 || contents == 0 {
		t.Fatalf("corpus exercised too little: %d lines, %d contents", lines, contents)
	}
	t.Logf("%d lines, %d message contents (%d strings) round-tripped", lines, contents, strContents)
}

// independent is a tree summary computed with a generic map[string]any walk, written
// separately from the Index code so the two can disagree.
type independent struct {
	Entries, Roots, Dangling int
	Duplicates               []string
	Leaf                     string
	Path                     []string
	HeaderLine               int
	Bad                      int
}

func countIndependently(t *testing.T, data []byte) independent {
	var r independent
	type ent struct {
		id, parent string
		hasID      bool
		parentKind int // 0 root, 1 string, 2 other
	}
	var ents []ent
	parsed := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<30)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		var v any
		if json.Unmarshal(line, &v) != nil {
			r.Bad++
			continue
		}
		first := !parsed
		parsed = true
		m, ok := v.(map[string]any)
		if !ok {
			r.Bad++
			continue
		}
		if m["type"] == "session" {
			if first {
				r.HeaderLine = n
			} else {
				r.Bad++
			}
			continue
		}
		var e ent
		e.id, e.hasID = m["id"].(string)
		switch p := m["parentId"].(type) {
		case nil:
		case string:
			if p != "" {
				e.parent, e.parentKind = p, 1
			}
		default:
			e.parentKind = 2
		}
		ents = append(ents, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	last := map[string]int{}
	count := map[string]int{}
	for i, e := range ents {
		if e.hasID {
			last[e.id] = i
			count[e.id]++
		}
	}
	for id, c := range count {
		if c > 1 {
			r.Duplicates = append(r.Duplicates, id)
		}
	}
	slices.Sort(r.Duplicates)
	for _, e := range ents {
		switch e.parentKind {
		case 0:
			r.Roots++
		case 1:
			if _, ok := last[e.parent]; !ok {
				r.Dangling++
			}
		case 2:
			r.Dangling++
		}
	}
	r.Entries = len(ents)
	if len(ents) > 0 {
		r.Leaf = ents[len(ents)-1].id
		seen := map[int]bool{}
		var rev []string
		for i := len(ents) - 1; !seen[i]; {
			seen[i] = true
			rev = append(rev, ents[i].id)
			if ents[i].parentKind != 1 {
				break
			}
			p, ok := last[ents[i].parent]
			if !ok {
				break
			}
			i = p
		}
		slices.Reverse(rev)
		r.Path = rev
	}
	return r
}

// TestCorpusIndex checks the tree index of every corpus transcript against the independent
// count: entries, roots, dangling parents, duplicate ids, the leaf and the active path.
func TestCorpusIndex(t *testing.T) {
	var withDangling, withMultiRoot, withDup, compacted, keptFound, contextMessages int
	for _, path := range corpusFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		x, err := session.BuildIndex(context.Background(), bytes.NewReader(data), path, session.IndexOptions{})
		if err != nil {
			t.Fatalf("%s: %v", rel(path), err)
		}
		want := countIndependently(t, data)
		got := independent{Entries: x.Len(), Roots: len(x.Roots()), Dangling: len(x.Dangling()), Bad: len(x.Problems())}
		for _, d := range x.Duplicates() {
			got.Duplicates = append(got.Duplicates, d.ID)
		}
		if h, line := x.Header(); h != nil {
			got.HeaderLine = int(line)
		}
		if leaf := x.ActiveLeaf(); leaf >= 0 {
			got.Leaf = x.Node(leaf).ID
		}
		for _, i := range x.ActivePath() {
			got.Path = append(got.Path, x.Node(i).ID)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: index disagrees with the independent count (-want +got):\n%s", rel(path), diff)
		}
		// Every entry on the path reads back from its offset with the id the index holds.
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		es, err := x.ReadEntries(f, x.ActivePath())
		f.Close()
		if err != nil {
			t.Errorf("%s: ReadEntries: %v", rel(path), err)
		}
		for k, e := range es {
			if e.ID != got.Path[k] {
				t.Errorf("%s: path entry %d read back as %q, want %q", rel(path), k, e.ID, got.Path[k])
			}
		}
		// The context from the indexed path equals pi's map-based walk over all entries.
		var all []*session.Entry
		if err := session.Scan(context.Background(), bytes.NewReader(data), path, session.ScanOptions{}, func(it session.Item) error {
			if it.Kind == session.ItemEntry {
				all = append(all, it.Entry)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		fromIndex, fromMap := session.BuildContext(es), session.BuildContextFrom(all, nil)
		if diff := cmp.Diff(summarize(fromMap.Messages), summarize(fromIndex.Messages)); diff != "" {
			t.Errorf("%s: context from the index differs from the map walk (-map +index):\n%s", rel(path), diff)
		}
		if fromIndex.Compaction != nil {
			compacted++
			if fromIndex.FirstKeptFound {
				keptFound++
			}
		}
		contextMessages += len(fromIndex.Messages)
		if got.Dangling > 0 {
			withDangling++
		}
		if got.Roots > 1 {
			withMultiRoot++
		}
		if len(got.Duplicates) > 0 {
			withDup++
		}
	}
	t.Logf("files with dangling parents: %d, several roots: %d, duplicate ids: %d; %d context messages, %d compacted contexts (%d with firstKeptEntryId on the path)",
		withDangling, withMultiRoot, withDup, contextMessages, compacted, keptFound)
	if compacted == 0 || contextMessages == 0 {
		t.Errorf("the corpus has compactions and messages; contexts found %d compactions, %d messages", compacted, contextMessages)
	}
	if withDangling == 0 || withMultiRoot == 0 {
		t.Errorf("the corpus is known to have dangling parents and several roots; the index found none")
	}
}

// checkStrings re-encodes every string of a line as JSON.stringify would and compares it with
// the bytes OpenClaw (Node) wrote, which checks the package's JavaScript string escaping.
func checkStrings(t *testing.T, path string, line int64, raw []byte) {
	t.Helper()
	for _, tok := range session.StringTokens(raw) {
		var s string
		if err := json.Unmarshal(tok, &s); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		if got := jsonobj.Quote(s); !bytes.Equal(got, tok) {
			t.Errorf("%s:%d: JS string encoding differs:\n got %.120s\nwant %.120s", path, line, got, tok)
			return
		}
	}
}

package view_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/audit"
	"github.com/clawdoctor/clawdoctor/internal/replay"
	"github.com/clawdoctor/clawdoctor/internal/session"
	"github.com/clawdoctor/clawdoctor/internal/view"
)

var noReplay = []view.Target{}

// TestSessionPageTree checks, for every transcript fixture, that the page lists exactly the
// entries of session's index, in a layout that is a permutation of them where the active path
// stays at depth 0 in path order and every branch's span covers exactly its subtree.
func TestSessionPageTree(t *testing.T) {
	for _, name := range transcriptFixtures() {
		t.Run(name, func(t *testing.T) {
			path := fixtureFile(t, name)
			_, html := writeSession(t, path, view.Options{Replays: noReplay})
			p := decodePage(t, html).session(t)
			idx, err := session.IndexFile(context.Background(), path, session.IndexOptions{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Entries) != idx.Len() {
				t.Fatalf("page has %d entries, index %d", len(p.Entries), idx.Len())
			}
			for i := range p.Entries {
				nd := idx.Node(i)
				if p.Entries[i].ID != nd.ID || p.Entries[i].P != nd.Parent || p.Entries[i].L != nd.Line {
					t.Errorf("entry %d: page %+v, index id %q parent %d line %d", i, p.Entries[i], nd.ID, nd.Parent, nd.Line)
				}
			}
			seen := make([]bool, idx.Len())
			for _, i := range p.Layout.Order {
				if seen[i] {
					t.Fatalf("entry %d listed twice", i)
				}
				seen[i] = true
			}
			if len(p.Layout.Order) != idx.Len() {
				t.Fatalf("layout lists %d of %d entries", len(p.Layout.Order), idx.Len())
			}
			var onPath []int
			for r, i := range p.Layout.Order {
				if p.Entries[i].Fl&1 != 0 {
					onPath = append(onPath, i)
					if p.Layout.Depth[r] != 0 {
						t.Errorf("active entry %d at depth %d", i, p.Layout.Depth[r])
					}
				}
			}
			if want := idx.ActivePath(); !equalInts(onPath, want) {
				t.Errorf("active rows %v, active path %v", onPath, want)
			}
			descends := func(i, root int) bool {
				for k := 0; i >= 0 && k <= len(p.Entries); k++ {
					if i == root {
						return true
					}
					i = p.Entries[i].P
				}
				return false
			}
			for r, span := range p.Layout.Span {
				if span == 0 || p.Entries[p.Layout.Order[r]].Fl&4 != 0 {
					continue // cycles have no subtree to speak of
				}
				root := p.Layout.Order[r]
				for k := r; k < r+span; k++ {
					if !descends(p.Layout.Order[k], root) {
						t.Errorf("row %d in the span of row %d is not below entry %d", k, r, root)
					}
				}
				if r+span < len(p.Layout.Order) && descends(p.Layout.Order[r+span], root) {
					t.Errorf("branch at row %d ends before its subtree does", r)
				}
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestToolPairing checks the call ↔ result links against a pairing computed here from the
// decoded entries: a result answers the latest earlier call with its id.
func TestToolPairing(t *testing.T) {
	for _, name := range []string{"clean.jsonl", "clean_providers.jsonl", "unpaired_tool_call.jsonl", "orphan_tool_result.jsonl", "duplicate_tool_result.jsonl", "displaced_tool_result.jsonl", "clean_compaction_branch.jsonl"} {
		t.Run(name, func(t *testing.T) {
			path := fixtureFile(t, name)
			_, html := writeSession(t, path, view.Options{Replays: noReplay})
			p := decodePage(t, html).session(t)
			calls := map[string]int{}
			wantRes := map[[2]int]int{} // entry, part → result entry + 1
			wantCall := map[int]int{}   // result entry → call entry + 1
			i := 0
			pairs := 0
			err := session.ScanFile(context.Background(), path, session.ScanOptions{}, nil, func(it session.Item) error {
				if it.Kind != session.ItemEntry {
					return nil
				}
				if m := it.Entry.Message; m != nil {
					if m.Role == session.RoleToolResult {
						if c, ok := calls[m.ResultID()]; ok && m.ResultID() != "" {
							wantCall[i] = c + 1
							pairs++
						}
					}
					for k, b := range m.Content.Blocks {
						if m.Role == session.RoleAssistant && b.IsToolCall() && b.AnyID() != "" {
							calls[b.AnyID()] = i
							wantRes[[2]int{i, k}] = 0
						}
					}
				}
				i++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for e := range p.Entries {
				if tr := p.Entries[e].TR; tr != nil && tr.Call != wantCall[e] {
					t.Errorf("result %d links call %d, want %d", e, tr.Call-1, wantCall[e]-1)
				}
			}
			for r, c := range wantCall { // the call's part points back at its last result
				wantRes[[2]int{c - 1, indexOfCall(p, c-1, p.Entries[r].TR.ID)}] = r + 1
			}
			for k, res := range wantRes {
				if got := p.Entries[k[0]].B[k[1]].Res; got != res && !laterResult(p, k, got, res) {
					t.Errorf("call %v links result %d, want %d", k, got-1, res-1)
				}
			}
			if name == "clean.jsonl" && pairs == 0 {
				t.Fatal("clean.jsonl has no tool pair: the test would prove nothing")
			}
		})
	}
}

func indexOfCall(p pageData, e int, id string) int {
	for k, b := range p.Entries[e].B {
		if b.K == "call" && b.ID == id {
			return k
		}
	}
	return -1
}

// laterResult allows a call answered twice to link either of its results.
func laterResult(p pageData, k [2]int, got, want int) bool {
	return got > 0 && want > 0 && p.Entries[got-1].TR != nil && p.Entries[got-1].TR.ID == p.Entries[k[0]].B[k[1]].ID
}

// TestFindingsOnEntries checks every audit finding is in the page, on the entry of its line.
func TestFindingsOnEntries(t *testing.T) {
	for _, name := range transcriptFixtures() {
		t.Run(name, func(t *testing.T) {
			path := fixtureFile(t, name)
			_, html := writeSession(t, path, view.Options{Replays: noReplay})
			p := decodePage(t, html).session(t)
			res, err := audit.Run(context.Background(), []string{path}, audit.Options{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Findings) != len(res.Findings) {
				t.Fatalf("page has %d findings, audit %d", len(p.Findings), len(res.Findings))
			}
			for k, f := range res.Findings {
				pf := p.Findings[k]
				if pf.Rule != f.Rule || pf.Line != f.Line || pf.Msg != f.Message {
					t.Errorf("finding %d: page %+v, audit %+v", k, pf, f)
				}
				if pf.E >= 0 && p.Entries[pf.E].L != f.Line && p.Entries[pf.E].ID != f.EntryID {
					t.Errorf("finding %s at line %d sits on entry %d (line %d)", f.Rule, f.Line, pf.E, p.Entries[pf.E].L)
				}
				if pf.E < 0 && f.EntryID != "" {
					if _, ok := indexByID(p, f.EntryID); ok {
						t.Errorf("finding %s names entry %s but is on no entry", f.Rule, f.EntryID)
					}
				}
			}
		})
	}
}

func indexByID(p pageData, id string) (int, bool) {
	for i, e := range p.Entries {
		if e.ID == id {
			return i, true
		}
	}
	return -1, false
}

// TestCompactionRegions checks a compaction's kept region starts at its firstKeptEntryId.
func TestCompactionRegions(t *testing.T) {
	path := fixtureFile(t, "clean_compaction_branch.jsonl")
	_, html := writeSession(t, path, view.Options{Replays: noReplay})
	p := decodePage(t, html).session(t)
	found := false
	for _, e := range p.Entries {
		if e.C == nil {
			continue
		}
		found = true
		if e.C.Kept == nil || p.Entries[e.C.Kept[0]].ID != e.C.FirstKept {
			t.Errorf("compaction %s keeps %v, firstKept %s", e.ID, e.C.Kept, e.C.FirstKept)
		}
		if e.C.Summed == nil || e.C.Summed[1] != p.Entries[e.C.Kept[0]].P {
			t.Errorf("compaction %s summarises %v: must end right before the kept region", e.ID, e.C.Summed)
		}
	}
	if !found {
		t.Fatal("fixture has no compaction")
	}
}

// TestReplaysMatchReplay checks the "what OpenClaw sends" data against replay itself.
func TestReplaysMatchReplay(t *testing.T) {
	path := fixtureFile(t, "clean_providers.jsonl")
	targets := []view.Target{{Provider: "anthropic", Model: "claude-sonnet-4-5"}, {Provider: "google", Model: "gemini-2.5-pro"}, {Provider: "mistral", Model: "mistral-large-latest"}}
	_, html := writeSession(t, path, view.Options{Replays: targets})
	p := decodePage(t, html).session(t)
	if len(p.Replays) != len(targets) {
		t.Fatalf("%d replays, want %d", len(p.Replays), len(targets))
	}
	changed := 0
	for k, tg := range targets {
		res, err := replay.RunFile(context.Background(), path, replay.Options{Provider: tg.Provider, Model: tg.Model})
		if err != nil {
			t.Fatal(err)
		}
		rp := p.Replays[k]
		if rp.Error != "" || rp.Target != tg.String() || len(rp.Sent) != len(res.Messages) {
			t.Errorf("%s: page %q error %q, %d sent; replay %d", tg, rp.Target, rp.Error, len(rp.Sent), len(res.Messages))
		}
		for _, s := range rp.Sent {
			if s.S != 0 {
				changed++
			}
		}
	}
	if changed == 0 {
		t.Error("no replay marked a changed message: mistral ids and google ordering must change some")
	}
}

// TestDefaultReplays: the session's own model comes first, then one per other provider.
func TestDefaultReplays(t *testing.T) {
	path := fixtureFile(t, "clean.jsonl")
	_, html := writeSession(t, path, view.Options{})
	p := decodePage(t, html).session(t)
	if len(p.Replays) < len(view.DefaultReplays) {
		t.Fatalf("%d replays", len(p.Replays))
	}
	for _, r := range p.Replays {
		if r.Error != "" {
			t.Errorf("%s: %s", r.Target, r.Error)
		}
	}
}

// TestTextBounds: a long text is previewed, kept in full up to MaxText, and the page holds
// no more than TextBudget of full texts.
func TestTextBounds(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "long.jsonl")
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"s1","timestamp":"2026-05-01T08:00:00.000Z","cwd":"/w"}` + "\n")
	parent := "null"
	for i := range 40 {
		id := "e" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		text := strings.Repeat("word"+string(rune('A'+i%26))+" ", 50_000) // 300 kB each
		b.WriteString(`{"type":"message","id":"` + id + `","parentId":` + parent + `,"timestamp":"2026-05-01T08:00:01.000Z","message":{"role":"user","content":"` + text + `"}}` + "\n")
		parent = `"` + id + `"`
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, html := writeSession(t, path, view.Options{Replays: noReplay, MaxText: 100_000, TextBudget: 1_000_000})
	d := decodePage(t, html)
	var full int
	for k, blk := range d.blocks {
		if k != "data" {
			full += len(blk)
		}
	}
	if full > 1_000_000 {
		t.Errorf("full texts %d bytes, over the 1 MB budget", full)
	}
	if full < 900_000 {
		t.Errorf("full texts %d bytes: the budget should be used (10 texts of 100 kB)", full)
	}
	if len(html) > 1_500_000 {
		t.Errorf("page is %d bytes for a 12 MB transcript with a 1 MB budget", len(html))
	}
	if !bytes.Contains(d.blocks["data"], []byte(`"omittedTexts":30`)) {
		t.Errorf("the page must count the 30 texts left as previews")
	}
}

// TestOutputRefusals: never overwrite a file we did not write, never write into a sessions dir.
func TestOutputRefusals(t *testing.T) {
	path := fixtureFile(t, "clean.jsonl")
	ctx := context.Background()
	dir := t.TempDir()
	foreign := filepath.Join(dir, "notes.html")
	if err := os.WriteFile(foreign, []byte("<p>mine</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := view.Write(ctx, path, view.Options{Out: foreign, Replays: noReplay}); !errors.Is(err, view.ErrNotOurs) {
		t.Errorf("overwriting a foreign file: %v", err)
	}
	if b, _ := os.ReadFile(foreign); string(b) != "<p>mine</p>" {
		t.Error("foreign file changed")
	}
	if _, err := view.Write(ctx, path, view.Options{Out: filepath.Join(dir, "x.txt"), Replays: noReplay}); !errors.Is(err, view.ErrNotHTML) {
		t.Errorf("a non-.html output: %v", err)
	}
	ours := filepath.Join(dir, "page.html")
	for range 2 { // a second run replaces our own page
		if _, err := view.Write(ctx, path, view.Options{Out: ours, Replays: noReplay}); err != nil {
			t.Fatal(err)
		}
	}
	state := t.TempDir()
	if err := fixtures.WriteDemo(state); err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(state, "agents", "main", "sessions")
	tr, _ := filepath.Glob(filepath.Join(live, "*.jsonl"))
	if _, err := view.Write(ctx, tr[0], view.Options{OutDir: live, Replays: noReplay}); !errors.Is(err, view.ErrInside) {
		t.Errorf("writing into a sessions dir: %v", err)
	}
	if _, err := view.Write(ctx, state, view.Options{Out: ours}); !errors.Is(err, view.ErrOutForDir) {
		t.Errorf("--out for a dir: %v", err)
	}
	if _, err := view.Write(ctx, state, view.Options{OutDir: filepath.Join(state, "view")}); !errors.Is(err, view.ErrInside) {
		t.Errorf("--out-dir inside the state dir: %v", err)
	}
	if _, err := view.Write(ctx, state, view.Options{OutDir: dir}); !errors.Is(err, view.ErrNotOurs) {
		t.Errorf("--out-dir with other files: %v", err)
	}
}

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		in, provider, model string
		ok                  bool
	}{
		{"anthropic/claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5", true},
		{"openrouter/google/gemini-2.5-pro", "openrouter", "google/gemini-2.5-pro", true},
		{"anthropic", "", "", false},
		{"/x", "", "", false},
	} {
		got, err := view.ParseTarget(tc.in)
		if (err == nil) != tc.ok || got.Provider != tc.provider || got.Model != tc.model {
			t.Errorf("ParseTarget(%q) = %+v, %v", tc.in, got, err)
		}
	}
}

// TestWriteSession renders to an io.Writer what Write puts in a file.
func TestWriteSession(t *testing.T) {
	path := fixtureFile(t, "lost_prompt.jsonl")
	var buf bytes.Buffer
	p, err := view.WriteSession(context.Background(), &buf, path, view.Options{Replays: noReplay})
	if err != nil {
		t.Fatal(err)
	}
	if p.Bytes != int64(buf.Len()) || p.Findings == 0 {
		t.Fatalf("page %+v, %d bytes written", p, buf.Len())
	}
	_, html := writeSession(t, path, view.Options{Replays: noReplay})
	a, b := decodePage(t, buf.Bytes()).session(t), decodePage(t, html).session(t)
	if len(a.Entries) != len(b.Entries) || len(a.Findings) != len(b.Findings) {
		t.Errorf("WriteSession: %d entries %d findings; Write: %d, %d", len(a.Entries), len(a.Findings), len(b.Entries), len(b.Findings))
	}
}

// TestThumbnails: a decodable image gets a small JPEG thumbnail, an undecodable one none, and
// a redacted page none at all.
func TestThumbnails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "img.jsonl")
	writeFile(t, path, `{"type":"session","version":3,"id":"s1","timestamp":"2026-05-01T08:00:00.000Z","cwd":"/w"}
{"type":"message","id":"u1","parentId":null,"timestamp":"2026-05-01T08:00:01.000Z","message":{"role":"user","content":[{"type":"image","data":"`+tinyImage()+`","mimeType":"image/png"},{"type":"image","data":"iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf","mimeType":"image/png"}]}}
`)
	thumbs := func(o view.Options) []string {
		_, html := writeSession(t, path, o)
		var d struct {
			Entries []struct {
				B []struct {
					K, Img string
				} `json:"b"`
			} `json:"entries"`
		}
		if err := jsonUnmarshal(decodePage(t, html).blocks["data"], &d); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range d.Entries[0].B {
			out = append(out, p.Img)
		}
		return out
	}
	got := thumbs(view.Options{Replays: noReplay})
	if len(got) != 2 || got[1] != "" || !strings.HasPrefix(got[0], "data:image/jpeg;base64,") {
		t.Fatalf("thumbnails %.60q", got)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(got[0], "data:image/jpeg;base64,"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(raw))
	if err != nil || cfg.Width != 96 || cfg.Height != 64 {
		t.Errorf("thumbnail %dx%d, %v (a 96×64 image fits in 160 px as it is)", cfg.Width, cfg.Height, err)
	}
	for _, s := range thumbs(view.Options{Replays: noReplay, Redact: true}) {
		if s != "" {
			t.Error("a redacted page holds a thumbnail")
		}
	}
}

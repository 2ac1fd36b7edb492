package view_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/view"
)

// TestBrowserTimeline checks the token timeline of a long generated session in Chromium: the
// turns it plots are exactly the assistant turns with usage on the active path (read from the
// transcript itself), its marks are exactly the error turns, the compactions and the first
// turns after a model fallback there, each kind is drawn on the canvas in its colour, and
// clicking a mark's symbol selects its entry.
func TestBrowserTimeline(t *testing.T) {
	dir := t.TempDir()
	m, err := fixtures.Generate(context.Background(), dir, fixtures.Options{Single: true, Entries: 3000, Seed: 7,
		Faults: []string{"empty-error", "lost-prompt"}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, m.Single)
	page, html := writeSession(t, path, view.Options{Replays: noReplay})
	p := decodePage(t, html).session(t)

	// The transcript's own view of each entry, by id.
	type raw struct {
		Type    string `json:"type"`
		ID      string `json:"id"`
		Message *struct {
			Role       string          `json:"role"`
			Usage      json.RawMessage `json:"usage"`
			StopReason string          `json:"stopReason"`
		} `json:"message"`
	}
	byID := map[string]raw{}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r raw
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.ID != "" {
			byID[r.ID] = r
		}
	}
	f.Close()
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}

	// The active path in path order (the page's layout puts it first; TestSessionPageTree
	// checks that against the session index).
	var active []int
	for _, i := range p.Layout.Order {
		if p.Entries[i].Fl&1 != 0 {
			active = append(active, i)
		}
	}
	fallbackAt := map[int]bool{}
	for _, f := range p.Findings {
		if f.Rule == "fallback.chain" && f.E >= 0 {
			fallbackAt[f.E] = true
		}
	}
	wantPoints := []int{}
	wantMarks := [][2]any{}
	kinds := map[string]int{}
	for _, i := range active {
		r := byID[p.Entries[i].ID]
		if r.Message != nil && r.Message.Role == "assistant" && len(r.Message.Usage) > 0 && string(r.Message.Usage) != "null" {
			wantPoints = append(wantPoints, i)
		}
		add := func(kind string) { wantMarks = append(wantMarks, [2]any{float64(i), kind}); kinds[kind]++ }
		if r.Message != nil && r.Message.StopReason == "error" {
			add("error")
		}
		if r.Type == "compaction" {
			add("compaction")
		}
		if fallbackAt[i] {
			add("fallback")
		}
	}
	for _, k := range []string{"error", "compaction", "fallback"} {
		if kinds[k] == 0 {
			t.Fatalf("the generated session has no %s on its active path: the test would prove little (%v)", k, kinds)
		}
	}
	if len(wantPoints) < 100 {
		t.Fatalf("only %d turns to plot", len(wantPoints))
	}

	tb := open(t, page)
	var got struct {
		Points []int    `json:"points"`
		Marks  [][2]any `json:"marks"`
	}
	tb.eval(t, `window.__view.timeline`, &got)
	if !slices.Equal(got.Points, wantPoints) {
		t.Errorf("plotted turns: %d, want the %d assistant turns with usage on the active path (first got %v, want %v)",
			len(got.Points), len(wantPoints), got.Points[:min(5, len(got.Points))], wantPoints[:5])
	}
	if fmt.Sprint(got.Marks) != fmt.Sprint(wantMarks) {
		t.Errorf("marks:\n got %v\nwant %v", got.Marks, wantMarks)
	}

	// Each kind of mark is drawn in its colour near its x (the context line in its own).
	colours := map[string][3]int{"context": {0x1f, 0x6f, 0xeb}, "compaction": {0xad, 0x57, 0x00}, "error": {0xc6, 0x28, 0x28}, "fallback": {0xe0, 0x7b, 0x00}}
	for kind, c := range colours {
		entry := -1
		if kind == "context" {
			entry = wantPoints[len(wantPoints)/2]
		} else {
			for _, mk := range wantMarks {
				if mk[1] == kind {
					entry = int(mk[0].(float64))
					break
				}
			}
		}
		var n int
		tb.eval(t, fmt.Sprintf(`(() => {
			const cv = document.getElementById('timeline-canvas'), g = cv.getContext('2d'), dpr = window.devicePixelRatio || 1;
			const r = cv.getBoundingClientRect(), x = Math.round((window.__view.timeline.clientX(%d) - r.left) * dpr);
			const d = g.getImageData(Math.max(0, x - 3 * dpr), 0, 7 * dpr, cv.height).data;
			let n = 0;
			for (let i = 0; i < d.length; i += 4)
				if (d[i + 3] > 200 && Math.abs(d[i] - %d) + Math.abs(d[i + 1] - %d) + Math.abs(d[i + 2] - %d) < 60) n++;
			return n; })()`, entry, c[0], c[1], c[2]), &n)
		if n == 0 {
			t.Errorf("no %s pixel drawn near entry %d", kind, entry)
		}
	}

	// Clicking a mark selects its entry.
	for _, kind := range []string{"error", "compaction", "fallback"} {
		entry := -1
		for _, mk := range wantMarks {
			if mk[1] == kind {
				entry = int(mk[0].(float64))
				break
			}
		}
		var xy [2]float64
		tb.eval(t, fmt.Sprintf(`[window.__view.timeline.clientX(%d), window.__view.timeline.clientY(%q)]`, entry, kind), &xy)
		if err := chromedp.Do(tb.ctx, chromedp.MouseClickXY(xy[0], xy[1])); err != nil {
			t.Fatal(err)
		}
		if i, _ := tb.selectedRow(t); i != entry {
			t.Errorf("clicking the %s mark of entry %d selected entry %d", kind, entry, i)
		}
	}
	tb.clean(t)
}

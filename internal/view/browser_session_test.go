package view_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/view"
)

// TestBrowserFixtures opens the page of every transcript fixture in Chromium: no console
// error, exception or network request; every entry drawn by the virtual list (scrolled end
// to end) with its id; every audit finding in the findings panel; every entry's details and
// every replay view rendered without error.
func TestBrowserFixtures(t *testing.T) {
	for _, name := range transcriptFixtures() {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // one tab each
			path := fixtureFile(t, name)
			page, html := writeSession(t, path, view.Options{})
			p := decodePage(t, html).session(t)
			tb := open(t, page)
			rows := tb.allRows(t)
			if len(rows) != len(p.Entries) {
				t.Errorf("the list drew %d distinct entries of %d", len(rows), len(p.Entries))
			}
			for i, e := range p.Entries {
				if id, ok := rows[i]; !ok || id != e.ID {
					t.Errorf("entry %d (%q) drawn as %q, %v", i, e.ID, id, ok)
				}
			}
			tb.click(t, "#tab-findings")
			var rules []string
			tb.eval(t, `[...document.querySelectorAll('#pane .finding')].map(f => f.dataset.rule)`, &rules)
			if len(rules) != len(p.Findings) {
				t.Errorf("findings panel lists %d of %d findings", len(rules), len(p.Findings))
			}
			for k, f := range p.Findings {
				if k < len(rules) && rules[k] != f.Rule {
					t.Errorf("finding %d: panel %s, data %s", k, rules[k], f.Rule)
				}
			}
			var shown int
			tb.eval(t, fmt.Sprintf(`(() => { let n = 0; for (let i = 0; i < %d; i++) { window.__view.select(i); if (document.querySelector('#pane .kv')) n++; } return n; })()`, len(p.Entries)), &shown)
			if shown != len(p.Entries) {
				t.Errorf("details shown for %d of %d entries", shown, len(p.Entries))
			}
			for k, r := range p.Replays {
				var n int
				tb.eval(t, fmt.Sprintf(`(() => { window.__view.setMode(%d); return document.querySelectorAll('#list .row').length; })()`, k), &n)
				if want := min(len(r.Sent), 10); n < want {
					t.Errorf("replay %s: %d rows drawn, want at least %d", r.Target, n, want)
				}
			}
			tb.clean(t)
		})
	}
}

// TestBrowserFindingJump clicks every finding of a generated session whose faults sit far
// down a long list: the finding's entry must be selected and scrolled into view.
func TestBrowserFindingJump(t *testing.T) {
	dir := t.TempDir()
	m, err := fixtures.Generate(context.Background(), dir, fixtures.Options{Single: true, Entries: 3000, Seed: 7,
		Faults: []string{"unpaired", "orphan-result", "displaced", "lost-prompt", "dangling", "empty-error", "blank-user", "dup-id", "first-kept"}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, m.Single)
	page, html := writeSession(t, path, view.Options{Replays: noReplay})
	p := decodePage(t, html).session(t)
	tb := open(t, page)
	jumps := 0
	for k, f := range p.Findings {
		if f.E < 0 {
			continue
		}
		tb.eval(t, `window.__view.scrollList(0)`, nil)
		tb.click(t, "#tab-findings")
		tb.click(t, fmt.Sprintf(`#pane .finding[data-i="%d"]`, k))
		i, visible := tb.selectedRow(t)
		if i != f.E || !visible {
			t.Errorf("finding %d (%s, line %d): selected row %d visible %v, want entry %d", k, f.Rule, f.Line, i, visible, f.E)
		}
		jumps++
	}
	if jumps < 5 {
		t.Fatalf("only %d findings name an entry: the test would prove little", jumps)
	}
	tb.clean(t)
}

// TestBrowserToolJumps follows every call → result link and back in a long generated session.
func TestBrowserToolJumps(t *testing.T) {
	dir := t.TempDir()
	m, err := fixtures.Generate(context.Background(), dir, fixtures.Options{Single: true, Entries: 2000, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	page, html := writeSession(t, filepath.Join(dir, m.Single), view.Options{Replays: noReplay})
	p := decodePage(t, html).session(t)
	tb := open(t, page)
	checked := 0
	for i, e := range p.Entries {
		if checked >= 25 {
			break
		}
		for _, b := range e.B {
			if b.K != "call" || b.Res == 0 {
				continue
			}
			res := b.Res - 1
			tb.eval(t, fmt.Sprintf(`window.__view.select(%d)`, i), nil)
			tb.click(t, fmt.Sprintf(`#pane .part.call[data-call=%q] .jump-result`, b.ID))
			if got, vis := tb.selectedRow(t); got != res || !vis {
				t.Errorf("call %s in entry %d: jumped to %d (visible %v), want result %d", b.ID, i, got, vis, res)
			}
			tb.click(t, `#pane .jump-call`)
			if got, vis := tb.selectedRow(t); got != i || !vis {
				t.Errorf("result %d: jumped back to %d (visible %v), want call %d", res, got, vis, i)
			}
			checked++
			break
		}
	}
	if checked < 10 {
		t.Fatalf("only %d paired calls checked", checked)
	}
	tb.clean(t)
}

// TestBrowserHostileText: texts that look like HTML stay text.
func TestBrowserHostileText(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.jsonl")
	evil := `<img src=x onerror=\"window.__pwned=1\"></script><script>window.__pwned=2</script>`
	writeFile(t, path, `{"type":"session","version":3,"id":"s1","timestamp":"2026-05-01T08:00:00.000Z","cwd":"/w"}
{"type":"message","id":"a1","parentId":null,"timestamp":"2026-05-01T08:00:01.000Z","message":{"role":"user","content":"`+evil+`"}}
{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-05-01T08:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"x<b>","arguments":{"q":"`+evil+`"}}],"stopReason":"toolUse"}}
`)
	page, _ := writeSession(t, path, view.Options{Replays: noReplay})
	tb := open(t, page)
	tb.eval(t, `window.__view.select(0)`, nil)
	var pwned any
	var text string
	tb.eval(t, `window.__pwned === undefined ? null : window.__pwned`, &pwned)
	tb.eval(t, `document.getElementById('pane').innerText`, &text)
	if pwned != nil {
		t.Fatalf("script from the transcript ran: %v", pwned)
	}
	if !contains(text, `<script>window.__pwned=2</script>`) {
		t.Errorf("the text is not shown as text: %q", text)
	}
	tb.clean(t)
}

// TestBrowserLoadTime logs how long a generated 1,000-entry session takes to be ready
// (docs/view.md has the 1k/10k/100k figures of BenchmarkBrowserLoad).
func TestBrowserLoadTime(t *testing.T) {
	dir := t.TempDir()
	m, err := fixtures.Generate(context.Background(), dir, fixtures.Options{Single: true, Entries: 1000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	page, html := writeSession(t, filepath.Join(dir, m.Single), view.Options{})
	tb := open(t, page)
	t.Logf("1,000 entries: page %d bytes, ready after %.0f ms", len(html), tb.loadMs)
	if tb.loadMs <= 0 {
		t.Errorf("load time not measured: %v", tb.loadMs)
	}
	tb.clean(t)
}

// TestBrowserEdgeFiles: an empty file, a header alone, entries without ids (pi v1) and a
// line that is not JSON open without an error.
func TestBrowserEdgeFiles(t *testing.T) {
	for name, body := range map[string]string{
		"empty.jsonl":  "",
		"header.jsonl": `{"type":"session","version":3,"id":"h1","timestamp":"2026-05-01T08:00:00.000Z","cwd":"/w"}` + "\n",
		"v1.jsonl": `{"type":"session","id":"v1","timestamp":"2026-05-01T08:00:00.000Z","cwd":"/w"}
{"type":"message","timestamp":"2026-05-01T08:00:01.000Z","message":{"role":"user","content":"hi"}}
{"type":"message","timestamp":"2026-05-01T08:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}],"stopReason":"stop"}}
`,
		"garbage.jsonl": "not json at all\n{\"broken\":\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			writeFile(t, path, body)
			page, html := writeSession(t, path, view.Options{})
			p := decodePage(t, html).session(t)
			tb := open(t, page)
			if rows := tb.allRows(t); len(rows) != len(p.Entries) {
				t.Errorf("%d rows drawn for %d entries", len(rows), len(p.Entries))
			}
			tb.eval(t, `(() => { for (const b of document.querySelectorAll('.tabs button')) b.click(); return 1; })()`, nil)
			tb.clean(t)
		})
	}
}

package view_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/audit"
	"github.com/clawdoctor/clawdoctor/internal/store"
	"github.com/clawdoctor/clawdoctor/internal/view"
)

// TestBrowserRedactedDOM renders redacted pages in Chromium, opens every entry and every
// tab, and checks the text on screen holds no piece of an input text; the plain page must.
func TestBrowserRedactedDOM(t *testing.T) {
	// (generated sessions are checked by TestRedactedSessionHoldsNoText on the page data)
	inputs := []string{fixtureFile(t, "lost_prompt.jsonl"), fixtureFile(t, "message_batched.jsonl"),
		fixtureFile(t, "clean_providers.jsonl"), fixtureFile(t, "clean_compaction_branch.jsonl")}
	screen := func(t *testing.T, page string) string {
		tb := open(t, page)
		var s string
		tb.eval(t, `(() => { let out = document.body.innerText;
			const n = window.__view.data.entries.length;
			for (let i = 0; i < n; i++) { window.__view.select(i); out += document.getElementById('pane').innerText; }
			for (const b of document.querySelectorAll('.tabs button')) { b.click(); out += document.getElementById('pane').innerText; }
			for (let k = 0; k < window.__view.data.replays.length; k++) { window.__view.setMode(k); out += document.getElementById('list').innerText; }
			return out; })()`, &s)
		tb.clean(t)
		return s
	}
	for _, path := range inputs {
		t.Run(filepath.Base(path), func(t *testing.T) {
			texts := inputTexts(t, path)
			red, _ := writeSession(t, path, view.Options{Redact: true})
			if l := leaked(texts, screen(t, red)); len(l) > 0 {
				t.Errorf("the redacted page shows %d input text piece(s), e.g. %q", len(l), l[0])
			}
			plain, _ := writeSession(t, path, view.Options{})
			if l := leaked(texts, screen(t, plain)); len(l) == 0 {
				t.Errorf("the plain page shows no input text: the check proves nothing")
			}
		})
	}
}

// TestBrowserStateDir opens the index of the demo state dir: a row per sessions.json entry
// and per transcript no entry names, links that lead to session pages (and back), disk use
// for every agent, sorting and filtering.
func TestBrowserStateDir(t *testing.T) {
	state := t.TempDir()
	if err := fixtures.WriteDemo(state); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	logs, _ := filepath.Glob(filepath.Join(state, "logs", "*.log"))
	res, err := view.Write(context.Background(), state, view.Options{OutDir: out, Logs: logs})
	if err != nil {
		t.Fatal(err)
	}
	// what the table must hold, from store and audit directly
	targets, err := store.Scope{Paths: []string{state}, All: true}.Targets()
	if err != nil {
		t.Fatal(err)
	}
	wantRows := 0
	for _, tg := range targets {
		st, err := store.Load(tg.Store())
		if err != nil {
			t.Fatal(err)
		}
		wantRows += st.Len()
		named := map[string]bool{}
		r := store.NewResolver(tg.SessionsDir, tg.Agent, tg.StateDir)
		for _, e := range st.Entries() {
			named[filepath.Base(r.Transcript(e).Path)] = true
		}
		ents, _ := os.ReadDir(tg.SessionsDir)
		for _, e := range ents {
			if e.Type().IsRegular() && audit.TranscriptLike(e.Name()) && !named[e.Name()] {
				wantRows++
			}
		}
	}
	tb := open(t, res.Index)
	var rows []struct {
		Key, File, Page, Agent string
		Entries, Findings      int
	}
	tb.eval(t, `window.__view.data.rows.map(r => ({Key: r.key || '', File: r.file || '', Page: r.page || '', Agent: r.agent, Entries: r.entries, Findings: r.findings}))`, &rows)
	if len(rows) != wantRows {
		t.Errorf("%d rows, want %d", len(rows), wantRows)
	}
	pages := 0
	for _, r := range rows {
		if r.Page == "" {
			continue
		}
		pages++
		if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(r.Page))); err != nil {
			t.Errorf("row %s links a missing page: %v", r.Key, err)
		}
		if r.Entries <= 0 && !strings.Contains(r.File, "reset") {
			t.Errorf("row %s/%s: %d entries", r.Agent, r.File, r.Entries)
		}
	}
	if pages != len(res.Pages) {
		t.Errorf("%d rows link a page, %d pages written", pages, len(res.Pages))
	}
	var agents []string
	tb.eval(t, `[...document.querySelectorAll('#disk tr[data-agent]')].map(r => r.dataset.agent)`, &agents)
	if fmt.Sprint(agents) != "[main work]" {
		t.Errorf("disk table agents %v", agents)
	}
	// sort by key, ascending
	tb.click(t, `.tablehead span[data-col="key"]`)
	var keys []string
	tb.eval(t, `window.__view.shown().map(r => r.key || r.file || '')`, &keys)
	if !sort.StringsAreSorted(keys) {
		t.Errorf("not sorted by key: %v", keys)
	}
	// filter by one transcript's name
	name := ""
	for _, r := range rows {
		if r.Page != "" && r.Key != "" {
			name = strings.TrimSuffix(r.File, ".jsonl")
			break
		}
	}
	if err := chromedp.Do(tb.ctx, chromedp.SendKeys(chromedp.CSS("#filter"), name)); err != nil {
		t.Fatal(err)
	}
	var shown []string
	tb.eval(t, `window.__view.shown().map(r => r.file || '')`, &shown)
	want := 0
	for _, r := range rows {
		if strings.Contains(r.File, name) || strings.Contains(r.Key, name) {
			want++
		}
	}
	if len(shown) != want || want == 0 {
		t.Errorf("filter %s: rows %v, want %d", name, shown, want)
	}
	tb.clean(t)
	// follow a link to a session page, then its back link
	tb.click(t, `#sessions .row a[href]`)
	tb.waitFor(t, `document.body.classList.contains('session') && window.__view && window.__view.ready === true`)
	tb.click(t, `header.top a[href]`)
	tb.waitFor(t, `document.body.classList.contains('state') && window.__view && window.__view.ready === true`)
	tb.clean(t)
}

package view_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/audit"
	"github.com/clawdoctor/clawdoctor/internal/view"
)

// TestBrowserForensicPanes checks, in Chromium, the panes that tell a session's story against
// audit's own findings on the same transcript: every fallback chain with its from → to models,
// the error turn that triggered it and the first turn on the new model; every lost fallback
// prompt linked to the user prompt it replaced; every turn that held its message-tool sends
// until its end, with one row per send.
func TestBrowserForensicPanes(t *testing.T) {
	dir := t.TempDir()
	m, err := fixtures.Generate(context.Background(), dir, fixtures.Options{Single: true, Entries: 3000, Seed: 7,
		Faults: []string{"lost-prompt", "batched", "empty-error"}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, m.Single)
	res, err := audit.Run(context.Background(), []string{path}, audit.Options{MaxPerRule: 1 << 20}, nil)
	if err != nil {
		t.Fatal(err)
	}
	type chain struct{ From, To, ErrorID, FirstID string }
	var wantChains []chain
	var wantLost []string // the replaced prompts' entry ids
	var wantSends []int   // sends per batched turn
	for _, f := range res.Findings {
		ev := func(k string) string { s, _ := f.Evidence[k].(string); return s }
		switch f.Rule {
		case "fallback.chain":
			wantChains = append(wantChains, chain{ev("from"), ev("to"), ev("errorEntryId"), f.EntryID})
		case "fallback.lost-prompt":
			wantLost = append(wantLost, ev("promptEntryId"))
		case "delivery.message-batched":
			n, _ := f.Evidence["sends"].(int)
			if fl, ok := f.Evidence["sends"].(float64); ok {
				n = int(fl)
			}
			wantSends = append(wantSends, n)
		}
	}
	if len(wantChains) == 0 || len(wantLost) == 0 || len(wantSends) == 0 {
		t.Fatalf("the session must hold fallback chains, lost prompts and batched sends: %d, %d, %d", len(wantChains), len(wantLost), len(wantSends))
	}

	page, _ := writeSession(t, path, view.Options{Replays: noReplay})
	tb := open(t, page)
	tb.click(t, "#tab-models")
	var got struct {
		Chains []chain  `json:"chains"`
		Lost   []string `json:"lost"`
		Empty  []string `json:"empty"`
	}
	// Each chain's block: its heading "from → to", then the links of its error turn and of the
	// first turn on the new model, by the entry ids they name.
	tb.eval(t, `(() => {
		const E = window.__view.data.entries, id = a => a ? E[+a.dataset.goto].id : '';
		const h2 = [...document.querySelectorAll('#pane h2')];
		const after = title => { const out = []; let n = h2.find(h => h.textContent === title)?.nextElementSibling;
			for (; n && n.tagName !== 'H2'; n = n.nextElementSibling) if (n.classList.contains('part')) out.push(n); return out; };
		const chains = after('Fallback chains').map(p => {
			const [from, to] = p.querySelector('.ph b').textContent.split(' → ');
			const divs = [...p.querySelectorAll('.pb > div')];
			const link = word => id(divs.find(d => d.textContent.startsWith(word))?.querySelector('a.link'));
			return { From: from, To: to, ErrorID: link('after the error turn'), FirstID: link('first turn on the new model') };
		});
		const lost = after('Lost fallback prompts').map(p => id([...p.querySelectorAll('a.link')].find(a => a.parentElement.textContent.startsWith('original prompt'))));
		return { chains, lost };
	})()`, &got)
	if !slices.Equal(got.Chains, wantChains) {
		t.Errorf("fallback chains:\n got %+v\nwant %+v", got.Chains, wantChains)
	}
	if !slices.Equal(got.Lost, wantLost) {
		t.Errorf("lost prompts link %v, want %v", got.Lost, wantLost)
	}

	tb.click(t, "#tab-deliveries")
	var rows []int
	tb.eval(t, `[...document.querySelectorAll('#pane table.grid')].map(t => t.querySelectorAll('tr').length - 1)`, &rows)
	if fmt.Sprint(rows) != fmt.Sprint(wantSends) {
		t.Errorf("deliveries pane: %v send rows per turn, want %v", rows, wantSends)
	}
	tb.clean(t)
}

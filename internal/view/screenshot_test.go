package view_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"flag"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/view"
)

var screenshots = flag.String("screenshots", "", "write the docs/view.md screenshots into this dir")

// TestScreenshots makes the screenshots of docs/view.md:
//
//	go test ./internal/view -run TestScreenshots -screenshots ../docs/view
func TestScreenshots(t *testing.T) {
	if *screenshots == "" {
		t.Skip("only with -screenshots DIR")
	}
	ctx := context.Background()
	dir := t.TempDir()
	m, err := fixtures.Generate(ctx, filepath.Join(dir, "g"), fixtures.Options{Single: true, Entries: 400, Seed: 21,
		Faults: []string{"lost-prompt", "unpaired", "empty-error", "displaced"}})
	if err != nil {
		t.Fatal(err)
	}
	session := filepath.Join(dir, "g", m.Single)
	page, _ := writeSession(t, session, view.Options{})
	redacted, _ := writeSession(t, session, view.Options{Redact: true})
	branch, _ := writeSession(t, fixtureFile(t, "clean_compaction_branch.jsonl"), view.Options{})
	img := filepath.Join(dir, "image.jsonl")
	writeFile(t, img, `{"type":"session","version":3,"id":"5b0c1e2a-image-demo","timestamp":"2026-05-01T08:00:00.000Z","cwd":"/home/user/project"}
{"type":"message","id":"u1","parentId":null,"timestamp":"2026-05-01T08:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"What colours are in this picture?"},{"type":"image","data":"`+tinyImage()+`","mimeType":"image/png"}]}}
{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-05-01T08:00:04.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"A gradient from dark blue to pink and green.","thinkingSignature":"c2ln"},{"type":"text","text":"It is a gradient: blue in the top left corner, turning pink to the right and green towards the bottom."}],"provider":"anthropic","model":"claude-sonnet-4-5","api":"anthropic-messages","usage":{"input":1210,"output":38,"cacheRead":0,"cacheWrite":0,"totalTokens":1248},"stopReason":"stop"}}
`)
	image, _ := writeSession(t, img, view.Options{})
	state := filepath.Join(dir, "state")
	if err := fixtures.WriteDemo(state); err != nil {
		t.Fatal(err)
	}
	logs, _ := filepath.Glob(filepath.Join(state, "logs", "*.log"))
	res, err := view.Write(ctx, state, view.Options{OutDir: filepath.Join(dir, "site"), Logs: logs})
	if err != nil {
		t.Fatal(err)
	}
	shoot := func(name, page, setup string) {
		t.Helper()
		tb := open(t, page)
		if err := chromedp.Do(tb.ctx, chromedp.EmulateViewport(1200, 720)); err != nil {
			t.Fatal(err)
		}
		tb.waitFor(t, `document.getElementById('app').clientWidth === 1200`)
		if setup != "" {
			tb.eval(t, setup, nil)
		}
		time.Sleep(400 * time.Millisecond) // full texts inflate asynchronously
		png, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*screenshots, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
		tb.clean(t)
	}
	const firstCall = `(() => { const E = __view.data.entries; for (let i = 0; i < E.length; i++) { if ((E[i].b || []).some(p => p.k === 'call' && p.res) && E[i].b.some(p => p.k === 'text')) { __view.select(i); return i; } } })()`
	shoot("view-session.png", page, firstCall)
	shoot("view-findings.png", page, `(() => { document.getElementById('tab-findings').click();
		const k = __view.data.findings.findIndex(f => f.rule === 'fallback.lost-prompt');
		document.querySelector('#pane .finding[data-i="' + k + '"]').click(); return k; })()`)
	shoot("view-replay.png", page, `(() => { const R = __view.data.replays; let k = R.findIndex(r => r.target.startsWith('google'));
		__view.setMode(k); const s = R[k].sent.findIndex(x => x.s === 2 || x.s === 1);
		const list = document.getElementById('list'); list.scrollTop = Math.max(0, s * 28 - 200); list.dispatchEvent(new Event('scroll'));
		return s; })()`)
	shoot("view-branches.png", branch, `(() => { const E = __view.data.entries; __view.select(E.findIndex(e => e.c)); })()`)
	shoot("view-image.png", image, `__view.select(0)`)
	shoot("view-redacted.png", redacted, firstCall)
	shoot("view-state.png", res.Index, `__view.sortBy("cleanup")`)
}

// tinyImage is a 96×64 PNG gradient, as base64.
func tinyImage() string {
	img := image.NewRGBA(image.Rect(0, 0, 96, 64))
	for x := range 96 {
		for y := range 64 {
			img.Set(x, y, color.RGBA{uint8(x * 2), uint8(y * 3), 160, 255})
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

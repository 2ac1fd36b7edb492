package view_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// RequireBrowserEnv, when set (as .ci/run does), turns a missing Chromium into a failure
// instead of a skip: CI must run the browser tests.
const RequireBrowserEnv = "CLAWDOCTOR_REQUIRE_BROWSER"

var (
	browserOnce sync.Once
	browserCtx  context.Context
	browserErr  error
	browserStop func() // closes Chromium and removes its profile dir; nil until started
)

// TestMain closes the shared Chromium after the tests: left running, it kept its profile dir
// and its shared-memory files in $TMPDIR after every run.
func TestMain(m *testing.M) {
	code := m.Run()
	if browserStop != nil {
		browserStop()
	}
	os.Exit(code)
}

// chromium finds a Chromium binary: $CLAWDOCTOR_CHROMIUM, else the usual names on PATH.
func chromium() string {
	if p := os.Getenv("CLAWDOCTOR_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser returns a context for a new tab of the shared headless Chromium, or skips (fails
// under CI) when there is no Chromium.
func browser(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(sharedBrowser(t))
	ctx, cancelT := context.WithTimeout(ctx, 120*time.Second)
	t.Cleanup(func() { cancelT(); cancel() })
	return ctx
}

// sharedBrowser starts Chromium once per test binary and returns its context.
func sharedBrowser(t testing.TB) context.Context {
	t.Helper()
	exe := chromium()
	if exe == "" {
		if os.Getenv(RequireBrowserEnv) != "" {
			t.Fatalf("the browser tests need Chromium and %s is set: install it (apt-get install -y chromium) or set CLAWDOCTOR_CHROMIUM", RequireBrowserEnv)
		}
		t.Skip("browser test skipped: no chromium on PATH (apt-get install -y chromium runs them; CI requires them)")
	}
	browserOnce.Do(func() {
		dir, err := os.MkdirTemp("", "clawdoctor-chromium-")
		if err != nil {
			browserErr = err
			return
		}
		opts := []chromedp.ExecAllocatorOption{
			chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
			chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(dir),
			chromedp.WindowSize(1400, 900),
			chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
			chromedp.Flag("disable-dev-shm-usage", true),
			// Chromium's singleton socket dir and its shared-memory files go to $TMPDIR and
			// outlive a killed browser: kept inside the profile dir, they go with it.
			chromedp.Env("TMPDIR=" + dir),
		}
		actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
		bctx, cancelB := chromedp.NewContext(actx)
		// Cancelling the allocator's context kills Chromium and waits for it to exit; a
		// profile dir the caller gave is not removed by chromedp, so it goes last, here.
		browserStop = func() { cancelB(); cancelA(); os.RemoveAll(dir) }
		if err := chromedp.Do(bctx); err != nil { // starts the browser
			browserErr = fmt.Errorf("start %s: %w", exe, err)
			return
		}
		browserCtx = bctx
	})
	if browserErr != nil {
		t.Fatal(browserErr)
	}
	return browserCtx
}

// tab is one open page with what it printed.
type tab struct {
	ctx      context.Context
	mu       sync.Mutex
	problems []string // console errors, exceptions, log errors, network requests
	loadMs   float64
}

// open loads a page from file:// and waits until its script says it is ready.
func open(t *testing.T, path string) *tab {
	t.Helper()
	tb := &tab{ctx: browser(t)}
	err := chromedp.Listen(tb.ctx, func(ev any) {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				tb.problems = append(tb.problems, "console."+string(e.Type)+": "+strings.Join(parts, " "))
			}
		case *runtime.EventExceptionThrown:
			d := e.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			tb.problems = append(tb.problems, "exception: "+msg)
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError {
				tb.problems = append(tb.problems, "log: "+e.Entry.Text)
			}
		case *network.EventRequestWillBeSent:
			if u := e.Request.URL; !strings.HasPrefix(u, "file:") && !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "blob:") {
				tb.problems = append(tb.problems, "network request: "+u)
			}
		}
	})
	if err == nil {
		err = chromedp.Do(tb.ctx, chromedp.Navigate("file://"+path))
	}
	if err == nil {
		_, err = chromedp.Run(tb.ctx, chromedp.Poll[bool](`window.__view && window.__view.ready === true`, chromedp.WithPollingTimeout(60*time.Second), chromedp.WithPollingInterval(10*time.Millisecond)))
	}
	if err == nil {
		tb.loadMs, err = chromedp.Run(tb.ctx, chromedp.Evaluate[float64](`window.__view.ms`))
	}
	if err != nil {
		t.Fatalf("open %s: %v (problems: %v)", path, err, tb.problems)
	}
	return tb
}

// clean fails the test on any console error, exception or network request so far.
func (tb *tab) clean(t *testing.T) {
	t.Helper()
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, p := range tb.problems {
		t.Errorf("page problem: %s", p)
	}
}

// eval runs js in the page and decodes its value (JSON) into out, when out is not nil.
func (tb *tab) eval(t *testing.T, js string, out any) {
	t.Helper()
	s, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`JSON.stringify((`+js+`) ?? null)`))
	if err != nil {
		t.Fatalf("eval %s: %v", js, err)
	}
	if out != nil {
		if err := json.Unmarshal([]byte(s), out); err != nil {
			t.Fatalf("eval %s: %v (%s)", js, err, s)
		}
	}
}

// click clicks the first element matching the CSS selector sel, as a user would.
func (tb *tab) click(t *testing.T, sel string) {
	t.Helper()
	if err := chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible)); err != nil {
		t.Fatalf("click %s: %v", sel, err)
	}
}

// selectedRow returns the entry index of the selected list row and whether it is fully
// inside the list's visible box.
func (tb *tab) selectedRow(t *testing.T) (int, bool) {
	t.Helper()
	var r struct {
		I       int  `json:"i"`
		Visible bool `json:"visible"`
	}
	tb.eval(t, `(() => { const s = document.querySelector('#list .row.sel'); if (!s) return {i: -1, visible: false};
		const a = s.getBoundingClientRect(), b = document.getElementById('list').getBoundingClientRect();
		return {i: +s.dataset.i, visible: a.top >= b.top - 1 && a.bottom <= b.bottom + 1}; })()`, &r)
	return r.I, r.Visible
}

// allRows scrolls the list from top to bottom and returns the entry index and id of every
// row it drew.
func (tb *tab) allRows(t *testing.T) map[int]string {
	t.Helper()
	var rows [][2]string
	tb.eval(t, `(() => { const list = document.getElementById('list'), seen = new Map();
		for (let top = 0; ; top += Math.max(50, list.clientHeight / 2)) {
			window.__view.scrollList(top);
			for (const r of list.querySelectorAll('.row')) seen.set(r.dataset.i, r.dataset.id);
			if (top > list.scrollHeight) break;
		}
		return [...seen.entries()]; })()`, &rows)
	out := map[int]string{}
	for _, r := range rows {
		var i int
		fmt.Sscan(r[0], &i)
		out[i] = r[1]
	}
	return out
}

// waitFor polls js until it is true, across a navigation (which replaces the page's
// execution context under a running poll).
func (tb *tab) waitFor(t *testing.T, js string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ok, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](`!!(`+js+`)`))
		if err == nil && ok {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", js)
}

package view_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/audit"
	"github.com/clawdoctor/clawdoctor/internal/replay"
	"github.com/clawdoctor/clawdoctor/internal/view"
)

// The benchmarks run at 1k, 10k and 100k entries (generated sessions: branches,
// compactions, tool calls, images, long texts), each beside its baselines on the same file:
// audit and one replay for the write, Chromium opening the raw JSONL for the load.
//
//	go test -run '^$' -bench 'View' -benchtime 1x ./internal/view
var benchSizes = []int{1000, 10000, 100000}

var benchInputs sync.Map // entries → transcript path

func benchInput(b *testing.B, n int) string {
	if p, ok := benchInputs.Load(n); ok {
		return p.(string)
	}
	dir, err := os.MkdirTemp("", "clawdoctor-view-bench-")
	if err != nil {
		b.Fatal(err)
	}
	m, err := fixtures.Generate(context.Background(), filepath.Join(dir, "state"), fixtures.Options{Single: true, Entries: n, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(dir, "state", m.Single)
	benchInputs.Store(n, p)
	return p
}

func BenchmarkViewWrite(b *testing.B) {
	for _, n := range benchSizes {
		path := benchInput(b, n)
		st, _ := os.Stat(path)
		out := filepath.Join(b.TempDir(), "page.html")
		b.Run(fmt.Sprintf("entries=%d/view", n), func(b *testing.B) {
			b.SetBytes(st.Size())
			var size int64
			for b.Loop() {
				res, err := view.Write(context.Background(), path, view.Options{Out: out})
				if err != nil {
					b.Fatal(err)
				}
				size = res.Pages[0].Bytes
			}
			b.ReportMetric(float64(size), "page-bytes")
		})
		b.Run(fmt.Sprintf("entries=%d/baseline=audit", n), func(b *testing.B) {
			b.SetBytes(st.Size())
			for b.Loop() {
				if _, err := audit.Run(context.Background(), []string{path}, audit.Options{}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("entries=%d/baseline=replay", n), func(b *testing.B) {
			b.SetBytes(st.Size())
			for b.Loop() {
				if _, err := replay.RunFile(context.Background(), path, replay.Options{Provider: "anthropic", Model: "claude-sonnet-4-5"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkViewLoad measures, in headless Chromium, the time from navigation to the page's
// ready mark (data inflated, list and timeline drawn), reported as ready-ms; the baseline is
// Chromium opening the transcript itself as text (to its load event).
func BenchmarkViewLoad(b *testing.B) {
	for _, n := range benchSizes {
		path := benchInput(b, n)
		page := filepath.Join(b.TempDir(), "page.html")
		if _, err := view.Write(context.Background(), path, view.Options{Out: page}); err != nil {
			b.Fatal(err)
		}
		st, _ := os.Stat(page)
		b.Run(fmt.Sprintf("entries=%d/view", n), func(b *testing.B) {
			var ms, cpu float64
			for b.Loop() {
				ms, cpu = benchOpen(b, "file://"+page, `window.__view && window.__view.ready === true`, `window.__view.ms`)
			}
			b.ReportMetric(ms, "ready-ms")
			b.ReportMetric(cpu, "main-cpu-ms")
			b.ReportMetric(float64(st.Size()), "page-bytes")
		})
		if n > 10000 {
			continue // Chromium takes minutes to lay out 170 MB of text: no figure
		}
		b.Run(fmt.Sprintf("entries=%d/baseline=raw-jsonl", n), func(b *testing.B) {
			var ms, cpu float64
			for b.Loop() {
				ms, cpu = benchOpen(b, "file://"+path, `document.readyState === 'complete'`, `performance.getEntriesByType('navigation')[0].loadEventEnd`)
			}
			b.ReportMetric(ms, "ready-ms")
			b.ReportMetric(cpu, "main-cpu-ms")
		})
	}
}

// benchOpen loads url in a new tab, waits for ready and returns the figure the page gives
// (ms since navigation) and the main thread's CPU time (Performance.getMetrics TaskDuration
// in thread ticks), which other load on the machine does not inflate as much.
func benchOpen(b *testing.B, url, ready, figure string) (float64, float64) {
	b.Helper()
	ctx, cancel := chromedp.NewContext(sharedBrowser(b))
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 5*time.Minute)
	defer cancelT()
	if _, err := chromedp.Call(ctx, performance.Enable, performance.EnableParams{TimeDomain: performance.EnableTimeDomainThreadTicks}); err != nil {
		b.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		b.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](ready, chromedp.WithPollingInterval(5*time.Millisecond), chromedp.WithPollingTimeout(5*time.Minute))); err != nil {
		b.Fatal(err)
	}
	ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](figure))
	if err != nil {
		b.Fatal(err)
	}
	m, err := chromedp.Call(ctx, performance.GetMetrics, cdp.Empty{})
	if err != nil {
		b.Fatal(err)
	}
	cpu := 0.0
	for _, x := range m.Metrics {
		if x.Name == "TaskDuration" {
			cpu = x.Value * 1000
		}
	}
	return ms, cpu
}

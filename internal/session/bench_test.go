package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/session"
)

// genTranscript writes a synthetic transcript of n entries: a header, then user turns,
// assistant turns with thinking and tool calls, and tool results whose text is body bytes
// long; every imageEvery-th result (0: none) carries a base64 image of image bytes instead.
func genTranscript(w io.Writer, n, body, imageEvery, image int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 1))
	filler := strings.Repeat("lorem ipsum dolor sit amet \\\"quoted\\\" ", body/38+1)[:body]
	img := strings.Repeat("iVBORw0KGgoAAAANSUhEUgAA", image/24+1)[:image]
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"type":"session","version":3,"id":"%08x-0000-4000-8000-000000000000","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/home/u/w"}`+"\n", rng.Uint32())
	parent := "null"
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%08x", uint32(i)*2654435761)
		ts := fmt.Sprintf("2026-05-01T%02d:%02d:%02d.000Z", i/3600%24, i/60%60, i%60)
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"%s","message":{"role":"user","content":[{"type":"text","text":"please run step %d"}],"timestamp":%d}}`,
				id, parent, ts, i, 1777593600000+int64(i)*1000)
		case 1:
			fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"%s","message":{"role":"assistant","content":[{"type":"thinking","thinking":"%s","thinkingSignature":"c2lnbmF0dXJl"},{"type":"toolCall","id":"call_%d","name":"exec","arguments":{"command":"ls -la /tmp/%d"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-6","usage":{"input":9000,"output":40,"cacheRead":0,"cacheWrite":0,"totalTokens":9040,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":%d}}`,
				id, parent, ts, filler[:min(len(filler), 200)], i, i, 1777593600000+int64(i)*1000)
		default:
			content := `{"type":"text","text":"` + filler + `"}`
			if imageEvery > 0 && i%imageEvery == 2 {
				content = `{"type":"image","data":"` + img + `","mimeType":"image/png"}`
			}
			fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"%s","message":{"role":"toolResult","toolCallId":"call_%d","toolName":"exec","content":[%s],"isError":false,"timestamp":%d}}`,
				id, parent, ts, i-1, content, 1777593600000+int64(i)*1000)
		}
		b.WriteByte('\n')
		parent = `"` + id + `"`
		if b.Len() > 1<<20 {
			if _, err := w.Write(b.Bytes()); err != nil {
				return err
			}
			b.Reset()
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func genBytes(tb testing.TB, n, body, imageEvery, image int) []byte {
	var b bytes.Buffer
	if err := genTranscript(&b, n, body, imageEvery, image, 1); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// streamed returns a reader that generates the transcript as it is read (nothing held).
func streamed(n, body, imageEvery, image int) io.Reader {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(genTranscript(pw, n, body, imageEvery, image, 1)) }()
	return pr
}

// reportCPU adds "cpu-MB/s" (bytes per CPU second) to a benchmark; call it after the loop
// with the CPU time taken before it.
func reportCPU(b *testing.B, start time.Duration, bytesPerOp int) {
	if cpu := cpuTime() - start; cpu > 0 && b.N > 0 {
		b.ReportMetric(float64(bytesPerOp)*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
	}
}

func benchIndex(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var x *session.Index
	start := cpuTime()
	defer func() { reportCPU(b, start, len(data)) }()
	for b.Loop() {
		var err error
		x, err = session.BuildIndex(context.Background(), bytes.NewReader(data), "bench", session.IndexOptions{})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(x.Len()), "entries")
}

// BenchmarkBuildIndex indexes a ~32 MB transcript of ordinary turns (1 KB tool results).
func BenchmarkBuildIndex(b *testing.B) { benchIndex(b, genBytes(b, 30000, 1000, 0, 0)) }

// BenchmarkBuildIndexImages indexes a transcript where a third of the bytes are 512 KB base64
// images: the index skips their bodies.
func BenchmarkBuildIndexImages(b *testing.B) { benchIndex(b, genBytes(b, 3000, 1000, 30, 512<<10)) }

// BenchmarkIndexBaselineUnmarshal is the straightforward alternative to BuildIndex, run
// beside it for comparison: encoding/json.Unmarshal of each line into a struct holding only
// the fields the index keeps (type, id, parentId, message.role).
func BenchmarkIndexBaselineUnmarshal(b *testing.B) {
	data := genBytes(b, 30000, 1000, 0, 0)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	type slim struct {
		Type     string  `json:"type"`
		ID       string  `json:"id"`
		ParentID *string `json:"parentId"`
		Message  *struct {
			Role string `json:"role"`
		} `json:"message"`
	}
	start := cpuTime()
	defer func() { reportCPU(b, start, len(data)) }()
	for b.Loop() {
		n := 0
		for line := range bytes.Lines(data) {
			var s slim
			if json.Unmarshal(line, &s) == nil && s.Type != "session" {
				n++
			}
		}
		if n != 30000 {
			b.Fatal(n)
		}
	}
}

// BenchmarkScan decodes every entry fully (the Scan path), for comparison with the index.
func BenchmarkScan(b *testing.B) {
	data := genBytes(b, 30000, 1000, 0, 0)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := cpuTime()
	defer func() { reportCPU(b, start, len(data)) }()
	for b.Loop() {
		n := 0
		err := session.Scan(context.Background(), bytes.NewReader(data), "bench", session.ScanOptions{}, func(it session.Item) error {
			n++
			return nil
		})
		if err != nil || n != 30001 {
			b.Fatal(err, n)
		}
	}
}

// BenchmarkScanBaselineMap is the naive full decode, run beside BenchmarkScan: every line
// into a map[string]any with encoding/json (which, unlike Scan, loses key order and bytes).
func BenchmarkScanBaselineMap(b *testing.B) {
	data := genBytes(b, 30000, 1000, 0, 0)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := cpuTime()
	defer func() { reportCPU(b, start, len(data)) }()
	for b.Loop() {
		n := 0
		for line := range bytes.Lines(data) {
			var m map[string]any
			if json.Unmarshal(line, &m) == nil {
				n++
			}
		}
		if n != 30001 {
			b.Fatal(n)
		}
	}
}

// BenchmarkSetField rewrites message.content of an empty error turn, the repair edit.
func BenchmarkSetField(b *testing.B) {
	line := []byte(`{"type":"message","id":"m2","parentId":"m1","timestamp":"T","message":{"role":"assistant","content":[],"api":"bedrock-converse-stream","provider":"amazon-bedrock","model":"anthropic.claude-3-haiku-20240307-v1:0","usage":{"input":1,"output":0},"stopReason":"error","errorMessage":"transient stream failure"}}`)
	val := []byte(`[{"type":"text","text":"[assistant turn failed before producing content]"}]`)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := session.SetField(line, "message.content", val); err != nil {
			b.Fatal(err)
		}
	}
}

func heapAfter(f func() *session.Index) (uint64, *session.Index) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	x := f()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc), x
}

// TestIndexMemoryBoundedByEntries indexes two streamed transcripts with the same number of
// entries, one with 100-byte and one with 8 KB tool results, and checks that the index of
// both stays under a budget per entry: its memory follows the entry count, not the bytes.
func TestIndexMemoryBoundedByEntries(t *testing.T) {
	if testing.Short() {
		t.Skip("streams ~140 MB")
	}
	const n = 50000
	const perEntry = 128 // bytes of index per entry, ids included
	var sizes []uint64
	for _, body := range []int{100, 8 << 10} {
		var bytesRead int64
		mem, x := heapAfter(func() *session.Index {
			x, err := session.BuildIndex(context.Background(), streamed(n, body, 0, 0), "mem", session.IndexOptions{})
			if err != nil {
				t.Fatal(err)
			}
			bytesRead = x.Bytes()
			return x
		})
		if x.Len() != n {
			t.Fatalf("indexed %d entries, want %d", x.Len(), n)
		}
		t.Logf("body %5d B: %6.1f MB streamed, index %6.1f KB = %.0f B/entry", body, float64(bytesRead)/1e6, float64(mem)/1024, float64(mem)/n)
		if mem > n*perEntry {
			t.Errorf("index of %d entries holds %d bytes (> %d per entry)", n, mem, perEntry)
		}
		sizes = append(sizes, mem)
		runtime.KeepAlive(x)
	}
	if sizes[1] > sizes[0]*3/2+64<<10 {
		t.Errorf("index memory grew with entry size: %d -> %d bytes", sizes[0], sizes[1])
	}
}

// TestIndexHugeStream indexes a generated transcript of SESSION_HUGE_GIB GiB streamed through
// a pipe (nothing on disk) and reports throughput, entries, index memory and peak RSS. It is
// skipped unless the variable is set: `SESSION_HUGE_GIB=4 go test -run HugeStream ./internal/session`.
func TestIndexHugeStream(t *testing.T) {
	gib, err := strconv.ParseFloat(os.Getenv("SESSION_HUGE_GIB"), 64)
	if err != nil || gib <= 0 {
		t.Skip("set SESSION_HUGE_GIB=N to index an N GiB streamed transcript")
	}
	// ~1.15 KB per entry on average with 1 KB results; a 512 KB image every 300 entries.
	perEntry := 1150.0 + 512*1024/300.0
	n := int(gib * (1 << 30) / perEntry)
	startCPU, start := cpuTime(), time.Now()
	mem, x := heapAfter(func() *session.Index {
		x, err := session.BuildIndex(context.Background(), streamed(n, 1000, 300, 512<<10), "huge", session.IndexOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return x
	})
	wall, cpu := time.Since(start), cpuTime()-startCPU
	path := x.ActivePath()
	t.Logf("%.2f GiB, %d entries in %v wall, %v CPU (generator included): %.0f MB/s wall, %.0f MB/s per CPU second",
		float64(x.Bytes())/(1<<30), x.Len(), wall.Round(time.Millisecond), cpu.Round(time.Millisecond),
		float64(x.Bytes())/wall.Seconds()/1e6, float64(x.Bytes())/cpu.Seconds()/1e6)
	t.Logf("index %.1f MB (%.0f B/entry), active path %d entries, peak RSS %s", float64(mem)/1e6, float64(mem)/float64(x.Len()), len(path), peakRSS())
	if x.Len() != n || len(path) != n {
		t.Errorf("indexed %d entries, path %d, want %d", x.Len(), len(path), n)
	}
}

// peakRSS returns VmHWM from /proc/self/status (Linux), or "?".
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:"))
		}
	}
	return "?"
}

package audit

import (
	"bytes"
	"context"
	"errors"
	"hash/maphash"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/jsonl"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// scanBoth audits in twice, as a small file (lines extracted on the scan's goroutine) and as a
// big one (extracting workers), with batches of about batch bytes so a small input still makes
// many, and returns both results.
func scanBoth(t testing.TB, in []byte, batch int64) (serial, parallel scanResult) {
	t.Helper()
	defer func(p int64, procs int) { parallelMin = p; runtime.GOMAXPROCS(procs) }(parallelMin, runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))) // the workers need two
	one := func(min int64) scanResult {
		parallelMin = min
		s := newScan(context.Background(), "in.jsonl", Options{MaxLine: 4096})
		s.sizeHint = 2 * batch // readBatches makes batches of half the size hint
		s.parallel = true
		fs, n, err := s.run(bytes.NewReader(in))
		return scanResult{fs, n, err}
	}
	n := parallelScans.Load()
	serial, parallel = one(1<<62), one(0)
	if parallelScans.Load() != n+1 {
		t.Fatalf("the scan meant to be parallel ran serially")
	}
	return serial, parallel
}

type scanResult struct {
	Findings []Finding
	Entries  int64
	Err      error
}

func (r scanResult) diff(o scanResult) string {
	if (r.Err == nil) != (o.Err == nil) || r.Err != nil && r.Err.Error() != o.Err.Error() {
		return "errors differ: " + errString(r.Err) + " / " + errString(o.Err)
	}
	return cmp.Diff(r.Findings, o.Findings) + cmp.Diff(r.Entries, o.Entries)
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestParallelScanMatchesSerial: extracting lines on worker goroutines (a big transcript) gives
// the findings, in the same order, and the entry count that the serial scan gives, on every
// fixture transcript, the corpus, a transcript that spills, and all of them in one stream.
func TestParallelScanMatchesSerial(t *testing.T) {
	inputs, _ := filepath.Glob("../../fixtures/*.jsonl")
	// the corpus, where it sits beside the repository (its plain transcripts)
	_ = filepath.WalkDir("../../../shared/corpus", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			inputs = append(inputs, p)
		}
		return nil
	})
	// generated state dirs with every fault, so that the comparison checks enough findings
	// where the corpus is absent (a fresh clone) and more where it is there
	faults, err := fixtures.ParseFaults("all")
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 3; seed++ {
		dir := filepath.Join(t.TempDir(), "gen")
		if _, err := fixtures.Generate(context.Background(), dir, fixtures.Options{Agents: 2, Sessions: 12, Seed: seed, Faults: faults}); err != nil {
			t.Fatal(err)
		}
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				inputs = append(inputs, p)
			}
			return nil
		})
	}
	if len(inputs) < 30 {
		t.Fatalf("only %d inputs found", len(inputs))
	}
	var all bytes.Buffer
	check := func(name string, in []byte, batch int64) {
		t.Helper()
		serial, parallel := scanBoth(t, in, batch)
		if d := serial.diff(parallel); d != "" {
			t.Errorf("%s: parallel scan differs (-serial +parallel):\n%s", name, d)
		}
		if serial.Entries == 0 && len(in) > 1000 && !strings.Contains(name, "trajectory") {
			t.Logf("%s: no entries", name)
		}
	}
	findings := 0
	for _, p := range inputs {
		in, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		check(p, in, 4<<10)
		if trimmed := bytes.TrimRight(in, "\n"); len(trimmed) < len(in) {
			check(p+" without its final newline", trimmed, 4<<10)
		}
		all.Write(in)
		serial, _ := scanBoth(t, in, 4<<10)
		findings += len(serial.Findings)
	}
	t.Logf("%d inputs, %d findings", len(inputs), findings)
	if findings < 100 {
		t.Errorf("the inputs gave only %d findings: the comparison checks little", findings)
	}
	spill := spillInput(3000)
	defer func(d, c, k int) { detailBudget, callBudget, coldBudget = d, c, k }(detailBudget, callBudget, coldBudget)
	detailBudget, callBudget, coldBudget = 4<<10, 1<<10, 1<<10
	check("spill", spill, 8<<10)
	all.Write(spill)
	check("all", all.Bytes(), 64<<10)
}

// FuzzParallelScan: on any input the parallel scan gives what the serial one gives.
func FuzzParallelScan(f *testing.F) {
	f.Add([]byte(`{"type":"session","version":3,"id":"s","timestamp":"2026-05-01T08:00:00.000Z"}` + "\n" +
		`{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"x","arguments":{}}]}}` + "\n" +
		`{"type":"message","id":"b","parentId":"a","message":{"role":"toolResult","toolCallId":"c","toolName":"message","content":"messageId: 7"}}` + "\n{bad\n"))
	f.Add(spillInput(20))
	f.Add([]byte("\ufeff{\"type\":\"message\",\"id\":\"x\"}\r\n{\"type\":\"session\"}\n\x00\x00\n{}{}"))
	f.Fuzz(func(t *testing.T, in []byte) {
		serial, parallel := scanBoth(t, in, 4<<10)
		if d := serial.diff(parallel); d != "" {
			t.Fatalf("parallel scan differs on %q (-serial +parallel):\n%s", in, d)
		}
	})
}

// failingReader gives the first n bytes of b, then err.
type failingReader struct {
	b   []byte
	n   int
	err error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, r.err
	}
	k := copy(p, r.b[:min(r.n, len(r.b))])
	r.b, r.n = r.b[k:], r.n-k
	return k, nil
}

// TestParallelScanEndsOnErrors: a read error in the middle of a big stream, and a cancelled
// context, end the parallel scan with the error and leave no goroutine behind (the reader and
// the extracting workers stop).
func TestParallelScanEndsOnErrors(t *testing.T) {
	defer func(p int64, procs int) { parallelMin = p; runtime.GOMAXPROCS(procs) }(parallelMin, runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0)))
	parallelMin = 0
	in := spillInput(4000)
	before := runtime.NumGoroutine()
	s := newScan(context.Background(), "in.jsonl", Options{})
	s.sizeHint, s.parallel = 16<<10, true
	_, _, err := s.run(&failingReader{b: in, n: len(in) / 2, err: errors.New("disk on fire")})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") || !strings.Contains(err.Error(), "in.jsonl:") {
		t.Fatalf("read error: got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s = newScan(ctx, "in.jsonl", Options{})
	s.sizeHint, s.parallel = 16<<10, true
	if _, _, err := s.run(bytes.NewReader(in)); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: got %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines left after the scans, %d before", n, before)
	}
}

// TestFieldMemoMatchesRead: an entry whose fields come from the memo of its line's shape
// (extractor.fields) is extracted exactly as one whose fields are read key by key (entry, the
// slow path): the same rec, strings, tool calls and findings, on every fixture and corpus
// transcript and on lines of few shapes, where the memo serves most lines.
func TestFieldMemoMatchesRead(t *testing.T) {
	inputs, _ := filepath.Glob("../../fixtures/*.jsonl")
	_ = filepath.WalkDir("../../../shared/corpus", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			inputs = append(inputs, p)
		}
		return nil
	})
	var data [][]byte
	for _, p := range inputs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, b)
	}
	data = append(data, tinyShape(1<<20))
	seed := maphash.MakeSeed()
	lines, memoed := 0, 0
	for k, in := range data {
		var oa, ob extractOut
		xa, xb := extractor{seed: seed, o: &oa}, extractor{seed: seed, o: &ob}
		rd := jsonl.NewReader(bytes.NewReader(in), jsonl.Options{MaxLine: 1 << 20})
		var ra rec // one rec for every line, as a batch's are reused: line must overwrite all of it
		for {
			l, err := rd.Next()
			if err != nil {
				break
			}
			oa.reset()
			ra.pkey, ra.rareID, ra.d.ts = 99, true, 7 // left over from an earlier line
			xa.line(&l, &ra)
			if ra.slow {
				continue
			}
			lines++
			if xa.doc.Shape() != 0 {
				memoed++
			}
			ob.reset()
			if !xb.doc.Parse(l.Bytes) {
				t.Fatalf("input %d line %d: parsed once, refused once", k, l.Num)
			}
			v := xb.doc.Root()
			var rb rec
			xb.entry(v, entryType(v.GetStringBytes("type")), l.Num, &rb)
			if d := cmp.Diff(ra, rb, cmp.AllowUnexported(rec{}, node{}, detail{}, span{}), cmpopts.EquateErrors()); d != "" {
				t.Fatalf("input %d line %d: rec differs (-memo +read):\n%s", k, l.Num, d)
			}
			if !bytes.Equal(oa.arena, ob.arena) || !cmp.Equal(oa.calls, ob.calls, cmp.AllowUnexported(xcall{}, call{}, span{})) ||
				!cmp.Equal(oa.finds, ob.finds, cmp.AllowUnexported(pendingFinding{})) {
				t.Fatalf("input %d line %d: strings, calls or findings differ", k, l.Num)
			}
		}
	}
	t.Logf("%d entries, %d of a shape", lines, memoed)
	if memoed < lines/2 {
		t.Errorf("only %d of %d entries had a shape: the memo was hardly used", memoed, lines)
	}
}

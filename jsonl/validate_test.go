package jsonl_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/clawdoctor/clawdoctor/jsonl"
	"github.com/clawdoctor/clawdoctor/jsonl/internal/linegen"
)

// independent counts lines, bad lines and flags of a plain stream with bytes.Split and
// encoding/json, without the package's reader or validator.
func independent(data []byte) (lines, bad int64, flags map[string]int64) {
	flags = map[string]int64{}
	if len(data) == 0 {
		return
	}
	parts := bytes.Split(data, []byte("\n"))
	torn := len(parts[len(parts)-1]) > 0
	if !torn {
		parts = parts[:len(parts)-1]
	}
	for i, p := range parts {
		lines++
		if i == 0 && bytes.HasPrefix(p, []byte("\xEF\xBB\xBF")) {
			flags["bom"]++
			p = p[3:]
		}
		if i == len(parts)-1 && torn {
			flags["no_newline"]++
		} else if bytes.HasSuffix(p, []byte("\r")) {
			flags["crlf"]++
			p = p[:len(p)-1]
		}
		if bytes.Contains(p, []byte("\r")) {
			flags["lone_cr"]++
		}
		if bytes.Contains(p, []byte{0}) {
			flags["nul"]++
		}
		if !utf8.Valid(p) {
			flags["invalid_utf8"]++
		}
		if len(bytes.Trim(p, " \t\r\v\f")) == 0 {
			flags["blank"]++
			continue
		}
		if !json.Valid(p) {
			bad++
		}
	}
	return
}

// messy builds n generated lines with a defect every few lines, and returns the stream.
func messy(n int) []byte {
	g := linegen.New(11)
	var b bytes.Buffer
	b.WriteString("\xEF\xBB\xBF")
	b.Write(g.Header())
	b.WriteString("\n")
	for i := 1; i < n; i++ {
		l := g.Next()
		switch i % 13 {
		case 1:
			l = l[:len(l)/2] // torn mid-file
		case 3:
			l = append(append([]byte{}, l...), "\r"...)
		case 5:
			l = append([]byte("\x00\x00\x00"), l...)
		case 7:
			l = append(append([]byte{}, l...), l...) // glued
		case 9:
			l = nil
		case 11:
			l = []byte("{\"a\":\"\xff\"}")
		}
		b.Write(l)
		b.WriteString("\n")
	}
	b.WriteString(`{"torn":`)
	return b.Bytes()
}

func TestValidateCountsMatchIndependentCount(t *testing.T) {
	data := messy(3000)
	lines, bad, flags := independent(data)
	for _, workers := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			s, err := jsonl.Validate(context.Background(), bytes.NewReader(data), "messy.jsonl", jsonl.ValidateOptions{Workers: workers, MaxBad: 5})
			if err != nil {
				t.Fatal(err)
			}
			if s.Lines != lines || s.BadLines != bad || s.Bytes != int64(len(data)) {
				t.Errorf("lines %d bad %d bytes %d, want %d %d %d", s.Lines, s.BadLines, s.Bytes, lines, bad, len(data))
			}
			for _, f := range jsonl.AllFlags {
				if s.Anomalies[f.String()] != flags[f.String()] || s.Count(f) != flags[f.String()] {
					t.Errorf("flag %s: %d lines, want %d", f, s.Anomalies[f.String()], flags[f.String()])
				}
			}
			if len(s.Bad) != 5 || s.Bad[0].Line != 2 || s.Clean() {
				t.Fatalf("bad list %+v", s.Bad)
			}
			for i := 1; i < len(s.Bad); i++ {
				if s.Bad[i].Line <= s.Bad[i-1].Line {
					t.Errorf("bad lines out of order: %+v", s.Bad)
				}
			}
			if !strings.Contains(s.Bad[0].Reason, "invalid JSON at offset") {
				t.Errorf("reason %q", s.Bad[0].Reason)
			}
		})
	}
}

func TestValidateCleanAndTooLong(t *testing.T) {
	s, err := jsonl.Validate(context.Background(), strings.NewReader("{}\n[]\n"), "ok", jsonl.ValidateOptions{})
	if err != nil || !s.Clean() || s.Lines != 2 {
		t.Fatalf("clean input: %+v %v", s, err)
	}
	in := "{}\n" + `{"a":"` + strings.Repeat("x", 100) + "\"}\n{}\n"
	s, err = jsonl.Validate(context.Background(), strings.NewReader(in), "long", jsonl.ValidateOptions{MaxLine: 50})
	if err != nil || s.BadLines != 1 || s.Count(jsonl.FlagTooLong) != 1 || s.Lines != 3 || s.Bad[0].Line != 2 {
		t.Fatalf("too long: %+v %v", s, err)
	}
}

func TestValidateCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, w := range []int{1, 2} {
		_, err := jsonl.Validate(ctx, bytes.NewReader(bytes.Repeat([]byte("{\"a\":1}\n"), 20000)), "x", jsonl.ValidateOptions{Workers: w})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("workers %d: %v, want context.Canceled", w, err)
		}
	}
}

// corpusDir is the shared corpus beside the repository, or "" (and a skip) when it is absent.
func corpusDir(t *testing.T) string {
	dir := filepath.Join("..", "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("corpus not found at %s (it sits beside the repository as shared/corpus)", dir)
	}
	return dir
}

// TestValidateCorpus validates every transcript-like file of the corpus in place (read only)
// and compares with the independent count.
func TestValidateCorpus(t *testing.T) {
	dir := corpusDir(t)
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(d.Name(), ".jsonl") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		s, err := jsonl.ValidateFile(context.Background(), path, jsonl.ValidateOptions{}, nil)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		if s.Compression != "plain" {
			return nil // counted via the decompressed stream in the compression tests
		}
		lines, bad, flags := independent(data)
		if s.Lines != lines || s.BadLines != bad || s.Bytes != int64(len(data)) || s.DiskBytes != int64(len(data)) {
			t.Errorf("%s: lines %d bad %d bytes %d, want %d %d %d", path, s.Lines, s.BadLines, s.Bytes, lines, bad, len(data))
		}
		for name, k := range flags {
			if s.Anomalies[name] != k {
				t.Errorf("%s: %s %d, want %d", path, name, s.Anomalies[name], k)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no transcript found in the corpus")
	}
	t.Logf("validated %d corpus files", n)
}

// TestValidateParallelLongLines feeds lines around and over the 1 MiB buffer that the reader
// hands to the workers, some over the cap, and checks the workers agree with the inline run.
func TestValidateParallelLongLines(t *testing.T) {
	var in bytes.Buffer
	for i, n := range []int{10, 1<<20 - 3, 1 << 20, 5 << 20, 100, 3 << 20, 1<<20 + 7, 2, 9 << 20, 50} {
		fmt.Fprintf(&in, `{"i":%d,"s":"%s"}`, i, strings.Repeat("x", n))
		if i%3 == 1 {
			in.WriteString("{") // glued garbage: a bad line
		}
		in.WriteString("\n")
	}
	opts := jsonl.ValidateOptions{MaxLine: 4 << 20, MaxBad: 100}
	opts.Workers = 1
	want, err := jsonl.Validate(context.Background(), bytes.NewReader(in.Bytes()), "long", opts)
	if err != nil {
		t.Fatal(err)
	}
	if want.Lines != 10 || want.Count(jsonl.FlagTooLong) != 2 || want.BadLines != 5 {
		t.Fatalf("inline: lines %d too_long %d bad %d", want.Lines, want.Count(jsonl.FlagTooLong), want.BadLines)
	}
	for _, w := range []int{2, 4} {
		opts.Workers = w
		got, err := jsonl.Validate(context.Background(), iotestHalfReader(in.Bytes()), "long", opts)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(jsonl.Summary{})); diff != "" {
			t.Errorf("workers %d (-inline +parallel):\n%s", w, diff)
		}
	}
}

// iotestHalfReader returns b through short reads, as a decompressor gives them.
func iotestHalfReader(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) }

// FuzzValidate checks that the workers, which get the reader's buffers handed over, count and
// list exactly what the inline run does, with tiny buffers so that handovers happen often.
func FuzzValidate(f *testing.F) {
	f.Add([]byte("{}\n[1]\n{\"a\":\n\x00{}\r\n\xEF\xBB\xBFx"), uint8(3))
	f.Add(messy(3)[:2000], uint8(0))
	f.Fuzz(func(t *testing.T, in []byte, sel uint8) {
		opts := jsonl.ValidateOptions{MaxLine: []int{8, 30, 1000, 0}[sel%4], MaxBad: 3, BufferSize: 16 + 8*int(sel/4)}
		opts.Workers = 1
		want, err := jsonl.Validate(context.Background(), bytes.NewReader(in), "f", opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.Workers = 3
		got, err := jsonl.Validate(context.Background(), iotest.HalfReader(bytes.NewReader(in)), "f", opts)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(jsonl.Summary{})); diff != "" {
			t.Fatalf("(-inline +workers):\n%s", diff)
		}
	})
}

// repeatReader yields chunk over and over, n bytes in all: a big stream without the memory.
type repeatReader struct {
	chunk []byte
	off   int
	n     int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(int64(len(p)), r.n)], r.chunk[r.off:])
	r.off = (r.off + k) % len(r.chunk)
	r.n -= int64(k)
	return k, nil
}

// TestValidateMemoryBounded validates 64 MiB of transcript lines and checks that what it
// allocates stays a few read buffers, not a function of the stream's size.
func TestValidateMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("64 MiB stream")
	}
	var chunk bytes.Buffer
	g := linegen.New(21)
	for chunk.Len() < 4<<20 {
		chunk.Write(g.Next())
		chunk.WriteString("\n")
	}
	const size = 64 << 20
	for _, w := range []int{1, 2} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s, err := jsonl.Validate(context.Background(), &repeatReader{chunk: chunk.Bytes(), n: size}, "big", jsonl.ValidateOptions{Workers: w})
		runtime.ReadMemStats(&after)
		if err != nil || s.Bytes != size || s.BadLines > 1 { // the cut at 128 MiB may tear one line
			t.Fatalf("workers %d: %v bytes %d bad %d", w, err, s.Bytes, s.BadLines)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
			t.Errorf("workers %d: allocated %d MiB for a %d MiB stream", w, alloc>>20, size>>20)
		} else {
			t.Logf("workers %d: allocated %.1f MiB for a %d MiB stream", w, float64(alloc)/(1<<20), size>>20)
		}
	}
}

// TestSmallFileSmallBuffers: stats and audit open thousands of small transcripts, so opening and
// reading a 2 KiB file must not allocate the full 1 MiB read buffer (or a 256 KiB bufio).
func TestSmallFileSmallBuffers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "small.jsonl")
	if err := os.WriteFile(path, bytes.Repeat([]byte("{\"a\":1}\n"), 256), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := jsonl.ValidateFile(context.Background(), path, jsonl.ValidateOptions{Workers: 1}, nil)
	runtime.ReadMemStats(&after)
	if err != nil || s.Lines != 256 {
		t.Fatalf("%v, %d lines", err, s.Lines)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 200<<10 {
		t.Errorf("a 2 KiB file allocated %d KiB", alloc>>10)
	}
}

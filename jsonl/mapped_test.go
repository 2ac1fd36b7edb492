package jsonl

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/clawdoctor/clawdoctor/jsonl/internal/linegen"
)

// mappedInputs are streams with every line-level defect, lines that span many chunks, lines
// over the cap and a torn last line, with and without a BOM.
func mappedInputs() map[string][]byte {
	g := linegen.New(5)
	var mixed bytes.Buffer
	mixed.WriteString("\xEF\xBB\xBF")
	mixed.Write(g.Header())
	mixed.WriteString("\n")
	for i := 1; i < 400; i++ {
		l := g.Next()
		switch i % 11 {
		case 1:
			l = l[:len(l)/2]
		case 2:
			l = append(append([]byte{}, l...), '\r')
		case 3:
			l = append([]byte("\x00"), l...)
		case 4:
			l = nil
		case 5:
			l = []byte("{\"a\":\"\xff\xc3\"}")
		case 6:
			l = []byte(fmt.Sprintf(`{"long":"%s"}`, strings.Repeat("é日", 700)))
		case 7:
			l = []byte("  \t ")
		case 8:
			l = []byte("{\r\"a\":1}")
		}
		mixed.Write(l)
		mixed.WriteString("\n")
	}
	mixed.WriteString(`{"torn":`)
	var long bytes.Buffer
	for i, n := range []int{10, 5000, 3, 20000, 1, 0, 7000} {
		fmt.Fprintf(&long, `{"i":%d,"s":"%s"}`, i, strings.Repeat("x", n))
		long.WriteString("\r\n")
	}
	return map[string][]byte{
		"mixed": mixed.Bytes(), "long": long.Bytes(), "empty": {}, "one": []byte("{}"),
		"newlines": []byte("\n\n\n"), "bom-only": []byte("\xEF\xBB\xBF"), "clean-end": []byte("{}\n[]\n"),
		"one-huge-line": []byte(`{"s":"` + strings.Repeat("y", 30000) + `"}`),
	}
}

// TestMappedEqualsStream holds the mapped, chunked validation to the streaming one on every
// input, with chunks down to 16 bytes (a line spanning dozens of them, chunks with no line
// start) and caps that make lines too long.
func TestMappedEqualsStream(t *testing.T) {
	defer func(c int) { mapChunk = c }(mapChunk)
	dir := t.TempDir()
	for name, in := range mappedInputs() {
		path := filepath.Join(dir, name+".jsonl")
		if err := os.WriteFile(path, in, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, maxLine := range []int{0, 6000} {
			opts := ValidateOptions{MaxLine: maxLine, MaxBad: 40, Workers: 1}
			want, err := Validate(context.Background(), bytes.NewReader(in), path, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, chunk := range []int{16, 100, 4096, 1 << 20} {
				for _, workers := range []int{1, 3} {
					mapChunk = chunk
					opts.Workers = workers
					if len(in) == 0 {
						continue // nothing to map: ValidateFile streams an empty file
					}
					data, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					got, err := validateMapped(context.Background(), data, path, withDefaults(opts), nil, nil)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Summary{})); diff != "" {
						t.Errorf("%s max %d chunk %d workers %d (-stream +mapped):\n%s", name, maxLine, chunk, workers, diff)
					}
				}
			}
		}
	}
}

// TestValidateFileMaps runs ValidateFile over a real mapping (mmap where the platform has it)
// and checks it against the stream, and that a cancel stops it with the counts of what was read.
func TestValidateFileMaps(t *testing.T) {
	defer func(m int64, c int) { mapMinSize, mapChunk = m, c }(mapMinSize, mapChunk)
	mapMinSize, mapChunk = 0, 4096
	in := mappedInputs()["mixed"]
	path := filepath.Join(t.TempDir(), "m.jsonl")
	if err := os.WriteFile(path, in, 0o644); err != nil {
		t.Fatal(err)
	}
	opts := ValidateOptions{MaxBad: 5}
	want, err := Validate(context.Background(), bytes.NewReader(in), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ValidateFile(context.Background(), path, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Summary{})); diff != "" {
		t.Errorf("(-stream +file):\n%s", diff)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err = ValidateFile(ctx, path, opts, nil)
	if err == nil || got.Err == "" || got.Lines >= want.Lines {
		t.Errorf("cancelled: err %v, Err %q, %d lines of %d", err, got.Err, got.Lines, want.Lines)
	}
}

// TestMappedFileShrinks truncates a mapped file before it is read: the pages past the new end
// fault (SIGBUS), which must come back as an error naming the file, not a crash.
func TestMappedFileShrinks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shrinks.jsonl")
	if err := os.WriteFile(path, bytes.Repeat([]byte("{\"a\":1}\n"), 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := mapFile(f, 4096*8)
	if err != nil {
		t.Skipf("no mapping here: %v", err)
	}
	defer unmap(data)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	defer func(c int) { mapChunk = c }(mapChunk)
	mapChunk = 8192
	s, err := validateMapped(context.Background(), data, path, withDefaults(ValidateOptions{}), nil, nil)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(s.Err, "shrank") {
		t.Fatalf("err %v, summary %+v", err, s)
	}
}

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

// TestChunkedEqualsStream holds the chunked validation to the streaming one on every
// input, with chunks down to 16 bytes (a line spanning dozens of them, chunks with no line
// start) and caps that make lines too long.
func TestChunkedEqualsStream(t *testing.T) {
	defer func(c int) { chunkSize = c }(chunkSize)
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
					chunkSize = chunk
					opts.Workers = workers
					if len(in) == 0 {
						continue // nothing to map: ValidateFile streams an empty file
					}
					data, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					got, err := validateReadAt(context.Background(), bytes.NewReader(data), int64(len(data)), path, withDefaults(opts), nil)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Summary{})); diff != "" {
						t.Errorf("%s max %d chunk %d workers %d (-stream +chunked):\n%s", name, maxLine, chunk, workers, diff)
					}
				}
			}
		}
	}
}

// TestValidateFileChunks runs ValidateFile over a real file read in chunks and checks it
// against the stream, and that a cancel stops it with the counts of what was read.
func TestValidateFileChunks(t *testing.T) {
	defer func(m int64, c int) { chunkMinSize, chunkSize = m, c }(chunkMinSize, chunkSize)
	chunkMinSize, chunkSize = 0, 4096
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

// TestChunkedFileShrinks truncates a file after its size was taken: the chunks past the new
// end must come back as an error naming the file, never as a torn last line or a clean pass.
func TestChunkedFileShrinks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shrinks.jsonl")
	in := bytes.Repeat([]byte("{\"a\":1}\n"), 4096)
	if err := os.WriteFile(path, in, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	defer func(c int) { chunkSize = c }(chunkSize)
	for _, cut := range []int64{0, 8190, int64(len(in)) - 3} {
		if err := os.Truncate(path, cut); err != nil {
			t.Fatal(err)
		}
		for _, chunk := range []int{8192, 1 << 20} {
			chunkSize = chunk
			s, err := validateReadAt(context.Background(), f, int64(len(in)), path, withDefaults(ValidateOptions{}), nil)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(s.Err, "shrank") {
				t.Fatalf("cut at %d, chunk %d: err %v, summary %+v", cut, chunk, err, s)
			}
		}
	}
}

package jsonl_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/jsonl"
)

const sample = "{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"message\",\"id\":\"a\",\"text\":\"会话\"}\r\n{\"torn\":"

// compress writes s in compression c with the package's Writer.
func compress(t *testing.T, c jsonl.Compression, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := jsonl.NewWriter(&buf, c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.Written() != int64(len(s)) {
		t.Errorf("Written() = %d, want %d", w.Written(), len(s))
	}
	return buf.Bytes()
}

// TestWriterRoundTrip writes in each compression, checks the magic bytes, and reads back the
// same bytes and the same lines through Open, whatever the file is named.
func TestWriterRoundTrip(t *testing.T) {
	dir := t.TempDir()
	plainLines := readAll(t, jsonl.NewReader(strings.NewReader(sample), jsonl.Options{}))
	for _, c := range []jsonl.Compression{jsonl.Plain, jsonl.Gzip, jsonl.Zstd} {
		t.Run(c.String(), func(t *testing.T) {
			data := compress(t, c, sample)
			if c == jsonl.Plain && string(data) != sample {
				t.Fatalf("plain writer changed bytes: %q", data)
			}
			// archives are named *.jsonl.reset.<ts> with or without .zst: content decides
			path := filepath.Join(dir, "s.jsonl.reset.2026-01-02T03-04-05.000Z."+c.String())
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := jsonl.Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Compression != c || f.Size != int64(len(data)) {
				t.Errorf("Open: compression %v size %d, want %v %d", f.Compression, f.Size, c, len(data))
			}
			back, err := io.ReadAll(f)
			if err != nil || string(back) != sample {
				t.Fatalf("read back %q, %v", back, err)
			}
			f2, err := jsonl.Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer f2.Close()
			if diff := diffLines(plainLines, readAll(t, jsonl.NewReader(f2, jsonl.Options{}))); diff != "" {
				t.Errorf("lines differ from the plain read: %s", diff)
			}
		})
	}
}

func diffLines(a, b []got) string {
	if len(a) != len(b) {
		return "different line counts"
	}
	for i := range a {
		if a[i] != b[i] {
			return "line " + a[i].Text + " vs " + b[i].Text
		}
	}
	return ""
}

func TestWriteLine(t *testing.T) {
	var buf bytes.Buffer
	w, err := jsonl.NewWriter(&buf, jsonl.Plain)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"{}", `{"a":1}`} {
		if err := w.WriteLine([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	if buf.Len() != 0 {
		t.Errorf("the writer did not buffer: %d bytes before Close", buf.Len())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "{}\n{\"a\":1}\n" || w.Written() != int64(buf.Len()) {
		t.Errorf("got %q, Written %d", buf.String(), w.Written())
	}
}

// TestTruncatedCompressedStream cuts gzip and zstd archives short: reading gives an error that
// names the file, never a panic and never a silent short read.
func TestTruncatedCompressedStream(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat(sample[:len(sample)-8]+"\n", 2000) // incompressible enough to span blocks
	for _, c := range []jsonl.Compression{jsonl.Gzip, jsonl.Zstd} {
		data := compress(t, c, long)
		for _, cut := range []int{len(data) - 1, len(data) / 2, 5} { // under 4 bytes a zstd magic is not recognised: plain bytes
			path := filepath.Join(dir, c.String()+"-cut.jsonl")
			if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := jsonl.ValidateFile(context.Background(), path, jsonl.ValidateOptions{}, nil)
			if err == nil {
				t.Errorf("%s cut at %d of %d: no error (lines %d)", c, cut, len(data), s.Lines)
				continue
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(s.Err, path) {
				t.Errorf("%s cut at %d: error %q does not name the file", c, cut, err)
			}
		}
	}
}

func TestOpenRefusesDirectoryAndMissing(t *testing.T) {
	dir := t.TempDir()
	if _, err := jsonl.Open(dir, nil); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("directory: %v", err)
	}
	missing := filepath.Join(dir, "nope.jsonl")
	if _, err := jsonl.Open(missing, nil); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing: %v", err)
	}
}

func TestOpenCountsDiskBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl.zst")
	data := compress(t, jsonl.Zstd, strings.Repeat("{\"a\":1}\n", 10000))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var n int64
	f, err := jsonl.Open(path, func(k int64) { n += k })
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.Copy(io.Discard, f); err != nil {
		t.Fatal(err)
	}
	if n != int64(len(data)) {
		t.Errorf("counted %d on-disk bytes, want %d", n, len(data))
	}
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want jsonl.Compression
	}{{"", jsonl.Plain}, {"{}", jsonl.Plain}, {"\x1f\x8b\x08", jsonl.Gzip}, {"\x28\xb5\x2f\xfd\x00", jsonl.Zstd}, {"\x28\xb5", jsonl.Plain}} {
		_, c, err := jsonl.Decompress(strings.NewReader(tc.in))
		if c != tc.want && err == nil {
			t.Errorf("%q: got %v, want %v", tc.in, c, tc.want)
		}
		if c != tc.want {
			t.Errorf("%q: detected %v, want %v (err %v)", tc.in, c, tc.want, err)
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errDisk }

// TestWriterReportsWriteErrors: a full disk must not pass silently, in any compression.
func TestWriterReportsWriteErrors(t *testing.T) {
	for _, c := range []jsonl.Compression{jsonl.Plain, jsonl.Gzip, jsonl.Zstd} {
		w, err := jsonl.NewWriter(failWriter{}, c)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 1000; i++ {
			if w.WriteLine([]byte(strings.Repeat("x", 1000))) != nil {
				break
			}
		}
		if err := w.Close(); !errors.Is(err, errDisk) {
			t.Errorf("%s: Close = %v, want %v", c, err, errDisk)
		}
	}
}

package jsonl_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/clawdoctor/clawdoctor/internal/safefile"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// issue 31, scope 4: a compressed file is read up to InflateCap (MaxInflateRatio times its
// size on disk, at least MinInflateCap) and refused past it with an *InflateError that counts
// as over a cap (safefile.ErrTooLarge); a stream ending right at the cap is read whole; a
// ratio of 0 lifts the cap; a plain file has none.
func TestInflateCap(t *testing.T) {
	defer func(r, m int64) { jsonl.MaxInflateRatio, jsonl.MinInflateCap = r, m }(jsonl.MaxInflateRatio, jsonl.MinInflateCap)
	line := []byte(`{"type":"message","id":"m","x":"` + string(bytes.Repeat([]byte("y"), 1000)) + `"}` + "\n")
	content := bytes.Repeat(line, 2000) // ~2 MB, compresses to a few KB
	dir := t.TempDir()
	write := func(name string, compress func(io.Writer) io.WriteCloser) (string, int64) {
		var buf bytes.Buffer
		w := compress(&buf)
		w.Write(content)
		w.Close()
		p := filepath.Join(dir, name)
		os.WriteFile(p, buf.Bytes(), 0o644)
		return p, int64(buf.Len())
	}
	zst, _ := write("a.jsonl.zst", func(w io.Writer) io.WriteCloser { z, _ := zstd.NewWriter(w); return z })
	gz, _ := write("a.jsonl.gz", func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) })
	plain := filepath.Join(dir, "a.jsonl")
	os.WriteFile(plain, content, 0o644)
	read := func(p string) (int64, error) {
		f, err := jsonl.Open(p, nil)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		return io.Copy(io.Discard, f)
	}
	for _, tc := range []struct {
		name      string
		ratio     int64
		min       int64
		path      string
		wantError bool
	}{
		{"zstd under the cap", 1000, 1 << 30, zst, false},
		{"zstd over the ratio", 10, 1 << 10, zst, true},
		{"gzip over the ratio", 10, 1 << 10, gz, true},
		{"the minimum cap lets it through", 10, 1 << 30, zst, false},
		{"ratio 0: no cap", 0, 1 << 10, zst, false},
		{"a plain file has no cap", 1, 1, plain, false},
		{"exactly at the cap", 1, int64(len(content)), zst, false},
		{"one byte under", 1, int64(len(content)) - 1, zst, true},
	} {
		jsonl.MaxInflateRatio, jsonl.MinInflateCap = tc.ratio, tc.min
		n, err := read(tc.path)
		var ie *jsonl.InflateError
		switch {
		case tc.wantError && (!errors.As(err, &ie) || !errors.Is(err, safefile.ErrTooLarge) || !safefile.Unreadable(err)):
			t.Errorf("%s: read %d bytes, error %v; want an InflateError over a cap", tc.name, n, err)
		case tc.wantError && n > jsonl.InflateCap(size(tc.path)):
			t.Errorf("%s: read %d bytes, past the cap %d", tc.name, n, jsonl.InflateCap(size(tc.path)))
		case !tc.wantError && (err != nil || n != int64(len(content))):
			t.Errorf("%s: read %d of %d bytes, error %v", tc.name, n, len(content), err)
		}
	}
}

func size(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

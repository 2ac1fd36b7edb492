package safefile_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/clawdoctor/clawdoctor/internal/safefile"
)

// TestReadAll: every byte comes back whatever the hint and however the reader splits its
// reads, the limit holds, and read errors and cancellation are errors.
func TestReadAll(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 700_000) // 11.2 MB: several 4 MiB chunks
	boom := errors.New("boom")
	for _, tc := range []struct {
		name    string
		r       func() io.Reader
		limit   int64
		hint    int64
		want    []byte
		wantErr error
	}{
		{name: "exact hint", r: func() io.Reader { return bytes.NewReader(data) }, hint: int64(len(data)), want: data},
		{name: "no hint", r: func() io.Reader { return bytes.NewReader(data) }, want: data},
		{name: "hint too small", r: func() io.Reader { return bytes.NewReader(data) }, hint: 100, want: data},
		{name: "hint too large", r: func() io.Reader { return bytes.NewReader(data[:10]) }, hint: 1 << 20, want: data[:10]},
		{name: "one byte reads", r: func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data[:5000])) }, want: data[:5000]},
		{name: "data with EOF", r: func() io.Reader { return iotest.DataErrReader(bytes.NewReader(data)) }, hint: 7, want: data},
		{name: "empty", r: func() io.Reader { return bytes.NewReader(nil) }, want: []byte{}},
		{name: "at the limit", r: func() io.Reader { return bytes.NewReader(data) }, limit: int64(len(data)), want: data},
		{name: "over the limit", r: func() io.Reader { return bytes.NewReader(data) }, limit: int64(len(data)) - 1, wantErr: safefile.ErrTooLarge},
		{name: "over the limit, exact hint", r: func() io.Reader { return bytes.NewReader(data) }, limit: 1000, hint: int64(len(data)), wantErr: safefile.ErrTooLarge},
		{name: "read error", r: func() io.Reader { return io.MultiReader(bytes.NewReader(data[:9]), iotest.ErrReader(boom)) }, wantErr: boom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := safefile.ReadAll(context.Background(), tc.r(), "f", tc.limit, "--max", tc.hint)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tc.want) {
				t.Fatalf("got %d bytes, want %d", len(got), len(tc.want))
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := safefile.ReadAll(ctx, bytes.NewReader(data), "f", 0, "", 0); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

// TestReadFileOneAllocation: a file is read into a buffer of its size (plus the byte that
// sees EOF), not grown and copied on the way.
func TestReadFileOneAllocation(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sessions.json")
	data := bytes.Repeat([]byte("x"), 9<<20+3)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := safefile.ReadFile(context.Background(), p, 64<<20, "--max")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) || cap(got) != len(data)+1 {
		t.Errorf("len %d cap %d, want len %d cap %d", len(got), cap(got), len(data), len(data)+1)
	}
}

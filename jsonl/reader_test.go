package jsonl_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/jsonl"
)

// got is a Line with its bytes copied, comparable with cmp.
type got struct {
	Num, Offset, Size int64
	Text              string
	Flags             string
}

func readAll(t *testing.T, r *jsonl.Reader) []got {
	t.Helper()
	var out []got
	for {
		l, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("Next after %d lines: %v", len(out), err)
		}
		out = append(out, got{l.Num, l.Offset, l.Size, string(l.Bytes), l.Flags.String()})
	}
}

func TestReaderAnomalies(t *testing.T) {
	long := strings.Repeat("x", 40)
	for _, tc := range []struct {
		name string
		in   string
		opts jsonl.Options
		want []got
	}{
		{"empty file", "", jsonl.Options{}, nil},
		{"one line", "{}\n", jsonl.Options{}, []got{{1, 0, 3, "{}", ""}}},
		{"two lines", "{}\n[1]\n", jsonl.Options{}, []got{{1, 0, 3, "{}", ""}, {2, 3, 4, "[1]", ""}}},
		{"torn final line", "{}\n{\"a\":", jsonl.Options{}, []got{{1, 0, 3, "{}", ""}, {2, 3, 5, `{"a":`, "no_newline"}}},
		{"final line without newline", "{}\n[]", jsonl.Options{}, []got{{1, 0, 3, "{}", ""}, {2, 3, 2, "[]", "no_newline"}}},
		{"bom", "\xEF\xBB\xBF{}\n[]\n", jsonl.Options{}, []got{{1, 0, 6, "{}", "bom"}, {2, 6, 3, "[]", ""}}},
		{"bom only", "\xEF\xBB\xBF", jsonl.Options{}, []got{{1, 0, 3, "", "bom|no_newline|blank"}}},
		{"bom then newline", "\xEF\xBB\xBF\n", jsonl.Options{}, []got{{1, 0, 4, "", "bom|blank"}}},
		{"bom not at start is content", "{}\n\xEF\xBB\xBF[]\n", jsonl.Options{}, []got{{1, 0, 3, "{}", ""}, {2, 3, 6, "\xEF\xBB\xBF[]", ""}}},
		{"crlf", "{}\r\n[]\r\n", jsonl.Options{}, []got{{1, 0, 4, "{}", "crlf"}, {2, 4, 4, "[]", "crlf"}}},
		{"lone cr inside", "{}\r[]\n", jsonl.Options{}, []got{{1, 0, 6, "{}\r[]", "lone_cr"}}},
		{"cr-only endings are one line", "{}\r[]\r{}\r", jsonl.Options{}, []got{{1, 0, 9, "{}\r[]\r{}\r", "lone_cr|no_newline"}}},
		{"cr before crlf", "{}\r\r\n", jsonl.Options{}, []got{{1, 0, 5, "{}\r", "crlf|lone_cr"}}},
		{"nul run before a line", "{}\n\x00\x00\x00\x00{}\n", jsonl.Options{}, []got{{1, 0, 3, "{}", ""}, {2, 3, 7, "\x00\x00\x00\x00{}", "nul"}}},
		{"nul run at the end", "{}\n\x00\x00\x00", jsonl.Options{}, []got{{1, 0, 3, "{}", ""}, {2, 3, 3, "\x00\x00\x00", "nul|no_newline"}}},
		{"invalid utf8", "{\"a\":\"\xff\xfe\"}\n", jsonl.Options{}, []got{{1, 0, 11, "{\"a\":\"\xff\xfe\"}", "invalid_utf8"}}},
		{"valid cjk is not flagged", "{\"a\":\"会话\"}\n", jsonl.Options{}, []got{{1, 0, 15, "{\"a\":\"会话\"}", ""}}},
		{"blank lines", "\n  \n\t\r\n{}\n", jsonl.Options{}, []got{{1, 0, 1, "", "blank"}, {2, 1, 3, "  ", "blank"}, {3, 4, 3, "\t", "crlf|blank"}, {4, 7, 3, "{}", ""}}},
		{"line exactly at the cap", long + "\n{}\n", jsonl.Options{MaxLine: 40, BufferSize: 16}, []got{{1, 0, 41, long, ""}, {2, 41, 3, "{}", ""}}},
		{"line one over the cap, then more lines", long + "y\n{}\n[]\n", jsonl.Options{MaxLine: 40, BufferSize: 16}, []got{{1, 0, 42, "", "too_long"}, {2, 42, 3, "{}", ""}, {3, 45, 3, "[]", ""}}},
		{"too long with crlf", long + long + "\r\n{}\n", jsonl.Options{MaxLine: 40, BufferSize: 16}, []got{{1, 0, 82, "", "crlf|too_long"}, {2, 82, 3, "{}", ""}}},
		{"too long torn final line", "{}\n" + long + long, jsonl.Options{MaxLine: 40, BufferSize: 16}, []got{{1, 0, 3, "{}", ""}, {2, 3, 80, "", "no_newline|too_long"}}},
		{"bom line at the cap", "\xEF\xBB\xBF" + long + "\n", jsonl.Options{MaxLine: 40, BufferSize: 16}, []got{{1, 0, 44, long, "bom"}}},
		{"lines crossing a small buffer", long + "\n" + long + "\n", jsonl.Options{BufferSize: 16}, []got{{1, 0, 41, long, ""}, {2, 41, 41, long, ""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, readAll(t, jsonl.NewReader(strings.NewReader(tc.in), tc.opts))); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			// the same through a reader that returns one byte at a time
			one := readAll(t, jsonl.NewReader(iotest.OneByteReader(strings.NewReader(tc.in)), tc.opts))
			if diff := cmp.Diff(tc.want, one); diff != "" {
				t.Errorf("one byte at a time (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReaderCrossesDefaultBuffer reads lines around and across the 1 MiB default buffer,
// and one 3 MiB line that makes the buffer grow, checking bytes, numbers and offsets.
func TestReaderCrossesDefaultBuffer(t *testing.T) {
	var in bytes.Buffer
	var want []string
	for i, n := range []int{1<<20 - 10, 20, 1 << 20, 3 << 20, 5, 1<<20 + 1, 0, 7} {
		line := strings.Repeat(string(rune('a'+i)), n)
		want = append(want, line)
		in.WriteString(line + "\n")
	}
	r := jsonl.NewReader(bytes.NewReader(in.Bytes()), jsonl.Options{})
	var off int64
	for i, w := range want {
		l, err := r.Next()
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if string(l.Bytes) != w || l.Num != int64(i+1) || l.Offset != off || l.Size != int64(len(w)+1) {
			t.Fatalf("line %d: got num %d offset %d size %d len %d, want offset %d len %d",
				i+1, l.Num, l.Offset, l.Size, len(l.Bytes), off, len(w))
		}
		off += l.Size
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after the last line: %v, want io.EOF", err)
	}
	if r.Offset() != int64(in.Len()) {
		t.Errorf("Offset() = %d, want %d", r.Offset(), in.Len())
	}
}

func TestReaderDefaultCapKeepsBigLines(t *testing.T) {
	big := `{"data":"` + strings.Repeat("QUJD", 5<<20) + `"}` // a 20 MiB base64 image
	r := jsonl.NewReader(strings.NewReader(big+"\n{}\n"), jsonl.Options{})
	l, err := r.Next()
	if err != nil || l.Has(jsonl.FlagTooLong) || len(l.Bytes) != len(big) {
		t.Fatalf("20 MiB line: err %v flags %v len %d", err, l.Flags, len(l.Bytes))
	}
	if l, err := r.Next(); err != nil || string(l.Bytes) != "{}" {
		t.Fatalf("line after the big one: %q %v", l.Bytes, err)
	}
}

var errDisk = errors.New("disk on fire")

func TestReaderErrorIsStickyAndNotATornLine(t *testing.T) {
	src := io.MultiReader(strings.NewReader("{}\n{\"a\""), iotest.ErrReader(errDisk))
	r := jsonl.NewReader(src, jsonl.Options{})
	l, err := r.Next()
	if err != nil || string(l.Bytes) != "{}" {
		t.Fatalf("first line: %q %v", l.Bytes, err)
	}
	for i := 0; i < 2; i++ {
		if _, err := r.Next(); !errors.Is(err, errDisk) {
			t.Fatalf("call %d after the error: %v, want %v", i, err, errDisk)
		}
	}
}

func TestReaderTooLongLineCutByError(t *testing.T) {
	src := io.MultiReader(strings.NewReader(strings.Repeat("x", 100)), iotest.ErrReader(errDisk))
	r := jsonl.NewReader(src, jsonl.Options{MaxLine: 10, BufferSize: 16})
	if _, err := r.Next(); !errors.Is(err, errDisk) {
		t.Fatalf("got %v, want %v", err, errDisk)
	}
}

func TestTerminatorRebuildsStream(t *testing.T) {
	in := "\xEF\xBB\xBF{}\r\n\n[1]\n\x00{}\r\n{\"a\":"
	r := jsonl.NewReader(strings.NewReader(in), jsonl.Options{})
	var out strings.Builder
	for {
		l, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if l.Has(jsonl.FlagBOM) {
			out.WriteString("\xEF\xBB\xBF")
		}
		out.Write(l.Bytes)
		out.WriteString(l.Terminator())
	}
	if out.String() != in {
		t.Errorf("rebuilt %q, want %q", out.String(), in)
	}
}

func TestFlagString(t *testing.T) {
	if got := (jsonl.FlagBOM | jsonl.FlagNUL | jsonl.FlagBlank).String(); got != "bom|nul|blank" {
		t.Errorf("got %q", got)
	}
	if got := jsonl.Flag(0).String(); got != "" {
		t.Errorf("no flags: got %q", got)
	}
	if len(jsonl.AllFlags) != 8 {
		t.Errorf("AllFlags has %d flags", len(jsonl.AllFlags))
	}
}

// TestReaderHandoff: with Options.Handoff every line stays valid while the caller holds the
// buffer it points into (no copy), the buffers asked for shrink back after a long line (else
// every buffer the caller holds would be as big), and Detach gives the last buffer.
func TestReaderHandoff(t *testing.T) {
	const base = 64
	var want []string
	var in strings.Builder
	for i := range 300 {
		w := fmt.Sprintf(`{"n":%d,"s":%q}`, i, strings.Repeat("x", i%40))
		if i == 100 {
			w = `{"long":"` + strings.Repeat("y", 50*base) + `"}`
		}
		want = append(want, w)
		in.WriteString(w + "\n")
	}
	for _, src := range []struct {
		name string
		r    func() io.Reader
	}{
		{"whole", func() io.Reader { return strings.NewReader(in.String()) }},
		{"one byte a read", func() io.Reader { return iotest.OneByteReader(strings.NewReader(in.String())) }},
		{"half reads", func() io.Reader { return iotest.HalfReader(strings.NewReader(in.String())) }},
	} {
		t.Run(src.name, func(t *testing.T) {
			var held [][]byte // every buffer handed back, kept: the lines point into them
			var sizes []int
			firsts := 0
			r := jsonl.NewReader(src.r(), jsonl.Options{BufferSize: base, Handoff: func(old []byte, size int) []byte {
				if old == nil {
					firsts++
				} else {
					held = append(held, old)
				}
				sizes = append(sizes, size)
				return make([]byte, size)
			}})
			var got []jsonl.Line
			for {
				l, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, l)
			}
			last := r.Detach()
			if len(last) == 0 {
				t.Fatal("Detach gave no buffer")
			}
			if firsts != 1 {
				t.Errorf("the first buffer was asked for %d times, want 1", firsts)
			}
			if len(got) != len(want) {
				t.Fatalf("%d lines, want %d", len(got), len(want))
			}
			for i, l := range got {
				if string(l.Bytes) != want[i] {
					t.Fatalf("line %d after the reads: %q, want %q", i+1, l.Bytes, want[i])
				}
			}
			grew, after := 0, 0
			for _, s := range sizes {
				grew = max(grew, s)
				if grew > 4*base && s <= base {
					after = s
				}
			}
			if grew <= 4*base || after == 0 {
				t.Errorf("buffer sizes asked for %v: want growth past %d for the long line and back to %d after it", sizes, 4*base, base)
			}
		})
	}
}

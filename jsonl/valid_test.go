package jsonl_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/jsonl"
	"github.com/clawdoctor/clawdoctor/jsonl/internal/linegen"
)

var validCases = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e+10`, `-12.25E-3`, `true`, `false`, `null`, ` {} `, "\t[1,2]\r\n",
	`{"a":[1,{"b":null}],"c":"\u00e9\n\"\\\/\b\f\r\t"}`, `"会话 ✓"`, "\"\xff\xfe invalid utf8 is accepted\"",
	`{"k":"` + strings.Repeat("QUJD", 300) + `"}`, `{"k":"` + strings.Repeat(`x\"y`, 200) + `"}`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
}

var invalidCases = []string{
	``, ` `, `{`, `}`, `[1,]`, `{"a":1,}`, `{"a"}`, `{"a":}`, `{a:1}`, `01`, `1.`, `.5`, `-`, `1e`, `1e+`,
	`tru`, `nul`, `falsy`, `"abc`, `"a\`, `"\x"`, `"\u12G4"`, `"\u12"`, "\"tab\there\"", "\"nul\x00\"",
	`{}{}`, `{} x`, `[1 2]`, `{"a":1 "b":2}`, "\x00{}", "\xEF\xBB\xBF{}", `'a'`, `NaN`, `+1`,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	`{"k":"` + strings.Repeat("QUJD", 300), `{"k":"` + strings.Repeat("QUJD", 300) + "\x01" + `"}`,
}

// TestValidAgreesWithEncodingJSON checks the table, every generated transcript line, and the
// same lines cut at every length, against encoding/json.Valid.
func TestValidAgreesWithEncodingJSON(t *testing.T) {
	check := func(s []byte) {
		t.Helper()
		if got, want := jsonl.Valid(s), json.Valid(s); got != want {
			t.Fatalf("Valid(%.80q) = %v, encoding/json says %v", s, got, want)
		}
		if err := jsonl.Check(s); (err == nil) != json.Valid(s) {
			t.Fatalf("Check(%.80q) = %v, encoding/json says %v", s, err, json.Valid(s))
		}
	}
	for _, s := range validCases {
		if !json.Valid([]byte(s)) {
			t.Fatalf("bad test: %.40q is not valid for encoding/json", s)
		}
		check([]byte(s))
	}
	for _, s := range invalidCases {
		if json.Valid([]byte(s)) {
			t.Fatalf("bad test: %.40q is valid for encoding/json", s)
		}
		check([]byte(s))
	}
	g := linegen.New(3)
	for i := 0; i < 300; i++ {
		l := g.Next()
		check(l)
		if i < 40 {
			for n := 0; n < len(l); n += 1 + n/50 {
				check(l[:n]) // torn writes
			}
		}
	}
}

func TestCheckOffsets(t *testing.T) {
	for _, tc := range []struct {
		in     string
		offset int
	}{
		{`{"a":1`, 6},           // cut short: the offset is the end
		{`{"a":1}x`, 7},         // trailing data
		{`{"a":tru}`, 8},        // inside the literal
		{`{"a":"b\q"}`, 8},      // the bad escape letter
		{"{\"a\":\"\x01\"}", 6}, // the control byte
		{`[1,]`, 3},
		{`{"type":"mess{"type":"message"}`, 15},
	} {
		err := jsonl.Check([]byte(tc.in))
		var se *jsonl.SyntaxError
		if !errors.As(err, &se) || se.Offset != tc.offset {
			t.Errorf("Check(%q) = %v, want offset %d", tc.in, err, tc.offset)
		}
	}
}

// TestValues splits glued objects and finds where a torn line stops.
func TestValues(t *testing.T) {
	for _, tc := range []struct {
		in      string
		ends    []int
		errAt   int // -1: no error
		comment string
	}{
		{`{"a":1}`, []int{7}, -1, "one value"},
		{`{"a":1}{"b":2}`, []int{7, 14}, -1, "glued"},
		{`{"a":1} {"b":[2]}  `, []int{7, 17}, -1, "glued with spaces"},
		{`{"a":1}{"b":`, []int{7}, 12, "complete then torn"},
		{`{"type":"mess{"type":"x"}`, nil, 15, "torn then complete: the caller retries at a later '{'"},
		{``, nil, 0, "empty"},
	} {
		ends, err := jsonl.Values([]byte(tc.in))
		if diff := cmp.Diff(tc.ends, ends); diff != "" {
			t.Errorf("%s: ends (-want +got):\n%s", tc.comment, diff)
		}
		var se *jsonl.SyntaxError
		switch {
		case tc.errAt < 0 && err != nil:
			t.Errorf("%s: unexpected error %v", tc.comment, err)
		case tc.errAt >= 0 && (!errors.As(err, &se) || se.Offset != tc.errAt):
			t.Errorf("%s: error %v, want offset %d", tc.comment, err, tc.errAt)
		}
	}
	end, err := jsonl.ValueEnd([]byte(` [1] {}`))
	if err != nil || end != 4 {
		t.Errorf("ValueEnd: %d %v, want 4", end, err)
	}
}

func FuzzValid(f *testing.F) {
	for _, s := range append(append([]string{}, validCases[:len(validCases)-1]...), invalidCases[:len(invalidCases)-1]...) {
		f.Add([]byte(s))
	}
	g := linegen.New(5)
	for i := 0; i < 20; i++ {
		if l := g.Next(); len(l) < 4096 {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := jsonl.Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json.Valid = %v", b, got, want)
		}
		err := jsonl.Check(b)
		if (err == nil) != json.Valid(b) {
			t.Fatalf("Check(%q) = %v", b, err)
		}
		var se *jsonl.SyntaxError
		if err != nil && (!errors.As(err, &se) || se.Offset < 0 || se.Offset > len(b)) {
			t.Fatalf("Check(%q): bad error %v", b, err)
		}
		ends, err := jsonl.Values(b)
		prev := 0
		for _, e := range ends { // every reported value is valid on its own
			if e <= prev || e > len(b) || !json.Valid(b[prev:e]) {
				t.Fatalf("Values(%q): bad end %d after %d", b, e, prev)
			}
			prev = e
		}
		if json.Valid(b) && (err != nil || len(ends) != 1) {
			t.Fatalf("Values(%q) on a valid line: %v %v", b, ends, err)
		}
	})
}

// FuzzReader checks the reader's invariants on any input, with a small buffer and cap so
// that buffer growth and the too-long path are reached: no panic; line numbers count up;
// offsets and sizes tile the input; the lines rebuilt from BOM, Bytes and Terminator equal the
// input; the flags agree with independent checks.
func FuzzReader(f *testing.F) {
	for _, s := range []string{"", "{}\n", "\xEF\xBB\xBF{}\r\n[]", "\x00\x00{}\n\r\n\n", "a\rb\rc", "{\"a\":\"\xff\"}\n",
		strings.Repeat("x", 70) + "\n{}\n", "\xEF\xBB\xBF", "\r\n\r\n", strings.Repeat("y", 40) + "\r\n"} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(7))
		f.Add([]byte(s), uint8(8))
	}
	f.Fuzz(func(t *testing.T, in []byte, capSel uint8) {
		maxLine := []int{64, 17, 1, 1000}[capSel%4]
		// reads of every size: the whole buffer, a byte, half of what is asked (the reader
		// notes which bytes of each read are clean, and lines span reads)
		var src io.Reader = bytes.NewReader(in)
		switch capSel / 4 % 3 {
		case 1:
			src = iotest.OneByteReader(src)
		case 2:
			src = iotest.HalfReader(src)
		}
		r := jsonl.NewReader(src, jsonl.Options{MaxLine: maxLine, BufferSize: 16})
		var rebuilt bytes.Buffer
		var off, num int64
		for {
			l, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("Next: %v", err)
			}
			num++
			if l.Num != num || l.Offset != off || l.Size <= 0 {
				t.Fatalf("line %d: num %d offset %d size %d, want offset %d", num, l.Num, l.Offset, l.Size, off)
			}
			raw := in[l.Offset : l.Offset+l.Size]
			off += l.Size
			if l.Has(jsonl.FlagBOM) != (l.Num == 1 && bytes.HasPrefix(in, []byte("\xEF\xBB\xBF"))) {
				t.Fatalf("line %d: BOM flag %v", num, l.Has(jsonl.FlagBOM))
			}
			if l.Has(jsonl.FlagNoNewline) == bytes.HasSuffix(raw, []byte("\n")) {
				t.Fatalf("line %d: no_newline flag %v on %q", num, l.Has(jsonl.FlagNoNewline), raw)
			}
			if l.Has(jsonl.FlagTooLong) {
				content := bytes.TrimSuffix(raw, []byte("\n"))
				if l.Has(jsonl.FlagBOM) {
					content = content[3:]
				}
				if len(content) <= maxLine || l.Bytes != nil {
					t.Fatalf("line %d: too_long with %d content bytes, cap %d", num, len(content), maxLine)
				}
				rebuilt.Write(raw) // its bytes are not kept: take them from the input
				continue
			}
			if len(l.Bytes) > maxLine {
				t.Fatalf("line %d: %d bytes kept over the cap %d", num, len(l.Bytes), maxLine)
			}
			if l.Has(jsonl.FlagNUL) != bytes.Contains(l.Bytes, []byte{0}) ||
				l.Has(jsonl.FlagLoneCR) != bytes.Contains(l.Bytes, []byte{'\r'}) ||
				l.Has(jsonl.FlagInvalidUTF8) == utf8.Valid(l.Bytes) ||
				l.Has(jsonl.FlagBlank) != (len(bytes.Trim(l.Bytes, " \t\r\v\f")) == 0) {
				t.Fatalf("line %d: flags %v for %q", num, l.Flags, l.Bytes)
			}
			if l.Has(jsonl.FlagBOM) {
				rebuilt.WriteString("\xEF\xBB\xBF")
			}
			rebuilt.Write(l.Bytes)
			rebuilt.WriteString(l.Terminator())
			if !bytes.Equal(rebuilt.Bytes(), in[:off]) {
				t.Fatalf("line %d: rebuilt %q, input %q", num, rebuilt.Bytes(), in[:off])
			}
		}
		if off != int64(len(in)) || !bytes.Equal(rebuilt.Bytes(), in) {
			t.Fatalf("lines cover %d of %d bytes; rebuilt %q", off, len(in), rebuilt.Bytes())
		}
	})
}

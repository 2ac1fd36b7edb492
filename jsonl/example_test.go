package jsonl_test

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/clawdoctor/clawdoctor/jsonl"
)

func ExampleReader() {
	in := "\xEF\xBB\xBF{\"type\":\"session\"}\r\n{\"a\":1}{\"b\":2}\n\x00\x00{\"c\":3}\n{\"torn\":"
	r := jsonl.NewReader(strings.NewReader(in), jsonl.Options{})
	for {
		l, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("line %d at %d (%d bytes) valid=%v flags=%q\n", l.Num, l.Offset, l.Size, jsonl.Valid(l.Bytes), l.Flags)
	}
	// Output:
	// line 1 at 0 (23 bytes) valid=true flags="bom|crlf"
	// line 2 at 23 (15 bytes) valid=false flags=""
	// line 3 at 38 (10 bytes) valid=false flags="nul"
	// line 4 at 48 (8 bytes) valid=false flags="no_newline"
}

func ExampleValues() {
	line := []byte(`{"id":"a1"}{"id":"b2"} {"id":`)
	ends, err := jsonl.Values(line)
	start := 0
	for _, end := range ends {
		fmt.Printf("value %s\n", line[start:end])
		start = end
	}
	fmt.Println("then:", err)
	// Output:
	// value {"id":"a1"}
	// value {"id":"b2"}
	// then: offset 29: unexpected end of line, want a value
}

func ExampleValidate() {
	in := "{\"type\":\"session\"}\n{\"a\":\n\n{}\n"
	s, err := jsonl.Validate(context.Background(), strings.NewReader(in), "x.jsonl", jsonl.ValidateOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d lines, %d bad, %d blank\n", s.Lines, s.BadLines, s.Count(jsonl.FlagBlank))
	for _, b := range s.Bad {
		fmt.Printf("%s:%d: %s\n", s.Path, b.Line, b.Reason)
	}
	// Output:
	// 4 lines, 1 bad, 1 blank
	// x.jsonl:2: invalid JSON at offset 5: unexpected end of line, want a value
}

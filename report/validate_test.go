package report_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/jsonl"
	"github.com/clawdoctor/clawdoctor/report"
)

// validateResult validates three small streams through the real pipeline: a clean one, one
// with bad lines and anomalies, and one that cannot be read.
func validateResult(t *testing.T) jsonl.Result {
	t.Helper()
	var res jsonl.Result
	for _, in := range []struct{ name, data string }{
		{"clean.jsonl", "{\"type\":\"session\",\"id\":\"s\"}\n{}\n"},
		{"bad.jsonl", "\xEF\xBB\xBF{\"type\":\"session\"}\r\n{\"a\":\n\n\x00\x00{}\n{}{}\n{\"b\":\"\xff\"}\n{\"torn\":"},
	} {
		s, err := jsonl.Validate(context.Background(), strings.NewReader(in.data), in.name, jsonl.ValidateOptions{MaxBad: 3})
		if err != nil {
			t.Fatal(err)
		}
		res.Files = append(res.Files, s)
	}
	unreadable, _ := jsonl.ValidateFile(context.Background(), "testdata/no-such-file.jsonl", jsonl.ValidateOptions{}, nil)
	res.Files = append(res.Files, unreadable)
	res.Summary = jsonl.Totals{Files: 3, Clean: 1, Findings: 1, Unreadable: 1}
	for _, s := range res.Files {
		res.Summary.Lines += s.Lines
		res.Summary.Bytes += s.Bytes
		res.Summary.DiskBytes += s.DiskBytes
		res.Summary.BadLines += s.BadLines
	}
	return res
}

func TestValidateFormats(t *testing.T) {
	res := validateResult(t)
	for _, f := range []report.Format{report.Text, report.JSON, report.Markdown} {
		t.Run(string(f), func(t *testing.T) {
			var buf bytes.Buffer
			if err := report.Validate(&buf, res, f); err != nil {
				t.Fatal(err)
			}
			golden(t, "validate_"+string(f)+".golden", buf.Bytes())
		})
	}
}

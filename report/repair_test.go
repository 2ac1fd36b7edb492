package report_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/repair"
	"github.com/clawdoctor/clawdoctor/report"
)

func repairSample(dry bool) *repair.Result {
	r := &repair.Result{Files: []repair.FileResult{
		{Path: "sessions/a.jsonl", Kind: "transcript", Status: repair.StatusRepaired,
			Counts:      repair.Counts{DroppedLines: 1, SalvagedLines: 2, RewrittenAssistantMessages: 1},
			BackupPath:  "sessions/a.jsonl.bak-7-1767225600000",
			BytesBefore: 900, BytesAfter: 880, Compression: "plain",
			Changes: []repair.Change{{Line: 1, Action: "salvage", Reason: "UTF-8 byte order mark removed"},
				{Line: 7, Action: "drop", Reason: `unparseable line: "{\"type\":\"mess"`},
				{Line: 9, Action: "rewrite-assistant", Reason: "empty assistant error turn gets the stream-error text"}},
			Notes: []repair.Note{{Line: 4, What: "invalid UTF-8: kept as is"}}},
		{Path: "sessions/b.jsonl", Kind: "transcript", Status: repair.StatusSkipped,
			Reason: "missing session header (the first valid line is an entry)", BytesBefore: 300, BytesAfter: 300},
		{Path: "sessions/c.jsonl", Kind: "transcript", Status: repair.StatusClean, BytesBefore: 100, BytesAfter: 100},
		{Path: "sessions/sessions.json", Kind: "store", Status: repair.StatusRepaired,
			Reason:      "sessions.json does not parse (1:40: unexpected end of input): 3 entries salvaged",
			StoreCounts: repair.StoreCounts{SalvagedEntries: 3, DroppedEntries: 1},
			BackupPath:  "sessions/sessions.json.bak-7-1767225600000", BytesBefore: 500, BytesAfter: 420},
	}}
	r.Summary = repair.Summary{Files: 4, Repaired: 2, Clean: 1, Skipped: 1, DryRun: dry,
		Counts:      repair.Counts{DroppedLines: 1, SalvagedLines: 2, RewrittenAssistantMessages: 1},
		StoreCounts: repair.StoreCounts{SalvagedEntries: 3, DroppedEntries: 1}}
	return r
}

func TestRepairFormats(t *testing.T) {
	for _, tc := range []struct {
		name   string
		format report.Format
		dry    bool
	}{
		{"repair_text.golden", report.Text, false},
		{"repair_dry_run_text.golden", report.Text, true},
		{"repair_markdown.golden", report.Markdown, false},
		{"repair_json.golden", report.JSON, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := report.Repair(&b, repairSample(tc.dry), tc.format); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, b.Bytes())
			if tc.format == report.JSON {
				var back repair.Result
				if err := json.Unmarshal(b.Bytes(), &back); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(*repairSample(false), back); diff != "" {
					t.Errorf("JSON round trip (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestRepairEmptyJSON(t *testing.T) {
	var b bytes.Buffer
	if err := report.Repair(&b, &repair.Result{}, report.JSON); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte(`"files": []`)) {
		t.Errorf("empty result must list no files as [], got %s", b.Bytes())
	}
}

package repair

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
)

// TestFixtures repairs every named fixture (issue 2's shared defect catalogue) and checks the
// outcome its name promises; then a second run over the repaired file changes nothing.
func TestFixtures(t *testing.T) {
	type want struct {
		status string
		counts Counts
		store  StoreCounts
		flags  bool // run with --synthesize-header --relink
		note   string
	}
	wants := map[string]want{
		"clean.jsonl":                   {status: StatusClean},
		"clean_compaction_branch.jsonl": {status: StatusClean},
		"clean_retry_fixed.jsonl":       {status: StatusClean},
		"clean_providers.jsonl":         {status: StatusClean},
		"sessions_clean.json":           {status: StatusClean},
		"torn_final_line.jsonl":         {status: StatusRepaired, counts: Counts{DroppedLines: 1}},
		"utf8_bom.jsonl":                {status: StatusRepaired, counts: Counts{SalvagedLines: 1}},
		"crlf.jsonl":                    {status: StatusClean},
		"lone_cr.jsonl":                 {status: StatusRepaired, counts: Counts{SalvagedLines: -1}},
		"nul_run.jsonl":                 {status: StatusRepaired, counts: Counts{DroppedLines: 1}},
		"glued_objects.jsonl":           {status: StatusRepaired, counts: Counts{SalvagedLines: 2}},
		"torn_then_complete.jsonl":      {status: StatusRepaired, counts: Counts{DroppedLines: 1, SalvagedLines: 1}},
		"invalid_utf8.jsonl":            {status: StatusClean, note: "invalid UTF-8"},
		"line_over_cap.jsonl.gz":        {status: StatusClean},
		"reset_archive.jsonl.reset.2026-04-01T10-00-00.000Z.zst": {status: StatusClean},
		"missing_header.jsonl":                {status: StatusSkipped},
		"missing_header.jsonl+flags":          {status: StatusRepaired, counts: Counts{SynthesizedHeaders: 1}, flags: true},
		"duplicate_header.jsonl":              {status: StatusClean, note: "second session header"},
		"dangling_parent.jsonl":               {status: StatusClean, note: "dangling"},
		"dangling_parent.jsonl+flags":         {status: StatusRepaired, counts: Counts{RelinkedParents: 1}, flags: true},
		"duplicate_id.jsonl":                  {status: StatusClean},
		"multiple_roots.jsonl":                {status: StatusClean},
		"cycle.jsonl":                         {status: StatusClean},
		"compaction_first_kept_missing.jsonl": {status: StatusClean},
		"null_role.jsonl":                     {status: StatusRepaired, counts: Counts{DroppedLines: -1}},
		"empty_error_assistant.jsonl":         {status: StatusRepaired, counts: Counts{RewrittenAssistantMessages: 1}},
		"blank_user.jsonl":                    {status: StatusRepaired, counts: Counts{RewrittenUserMessages: 1}},
		"corrupt_image.jsonl":                 {status: StatusRepaired, counts: Counts{RemovedCorruptImageBlocks: 1}},
		"unpaired_tool_call.jsonl":            {status: StatusClean},
		"orphan_tool_result.jsonl":            {status: StatusClean},
		"duplicate_tool_result.jsonl":         {status: StatusClean},
		"displaced_tool_result.jsonl":         {status: StatusClean},
		"invalid_tool_call.jsonl":             {status: StatusClean},
		"codemode_missing_results.jsonl":      {status: StatusRepaired, counts: Counts{InsertedToolResults: 2}},
		"lost_prompt.jsonl":                   {status: StatusClean},
		"message_batched.jsonl":               {status: StatusClean},
		"sessions_truncated.json":             {status: StatusRepaired, store: StoreCounts{SalvagedEntries: -1, DroppedEntries: 1}},
		"sessions_garbage_tail.json":          {status: StatusRepaired, store: StoreCounts{SalvagedEntries: -1, DroppedEntries: 1}},
		"sessions_bad_entry.json":             {status: StatusClean},
		"sessions_cli_binding_mismatch.json":  {status: StatusClean},
		"sessions_shared_cli_id.json":         {status: StatusClean},
	}
	seen := 0
	for _, fx := range fixtures.List {
		for _, key := range []string{fx.Name, fx.Name + "+flags"} {
			w, ok := wants[key]
			if !ok {
				if key == fx.Name && !strings.HasSuffix(fx.Name, ".log") {
					t.Errorf("fixture %s has no expectation here", fx.Name)
				}
				continue
			}
			seen++
			t.Run(key, func(t *testing.T) {
				data, err := fs.ReadFile(fixtures.FS, fx.Name)
				if err != nil {
					t.Fatal(err)
				}
				dir := sessionsDir(t)
				name := fx.Name
				if strings.HasSuffix(name, ".json") {
					name = "sessions.json"
				}
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, data, 0o644); err != nil {
					t.Fatal(err)
				}
				opts := testOpts()
				opts.SynthesizeHeader, opts.Relink = w.flags, w.flags
				run := func() FileResult {
					if name == "sessions.json" {
						return RepairStore(context.Background(), dir, "main", opts)
					}
					return RepairFile(context.Background(), dir, p, opts, nil)
				}
				res := run()
				if res.Status != w.status {
					t.Fatalf("status %s (%s), want %s; changes %+v", res.Status, res.Reason, w.status, res.Changes)
				}
				check := func(what string, got, want int) {
					if (want < 0 && got == 0) || (want >= 0 && got != want) {
						t.Errorf("%s = %d, want %d (-1: some)", what, got, want)
					}
				}
				check("droppedLines", res.DroppedLines, w.counts.DroppedLines)
				check("salvagedLines", res.SalvagedLines, w.counts.SalvagedLines)
				check("rewrittenAssistantMessages", res.RewrittenAssistantMessages, w.counts.RewrittenAssistantMessages)
				check("rewrittenUserMessages", res.RewrittenUserMessages, w.counts.RewrittenUserMessages)
				check("insertedToolResults", res.InsertedToolResults, w.counts.InsertedToolResults)
				check("relinkedParents", res.RelinkedParents, w.counts.RelinkedParents)
				check("synthesizedHeaders", res.SynthesizedHeaders, w.counts.SynthesizedHeaders)
				check("salvagedEntries", res.SalvagedEntries, w.store.SalvagedEntries)
				check("droppedEntries", res.DroppedEntries, w.store.DroppedEntries)
				if w.note != "" {
					found := false
					for _, n := range res.Notes {
						found = found || strings.Contains(n.What, w.note)
					}
					if !found {
						t.Errorf("no note containing %q in %+v", w.note, res.Notes)
					}
				}
				if res.Status == StatusRepaired {
					orig, _ := os.ReadFile(res.BackupPath)
					if string(orig) != string(data) {
						t.Error("backup differs from the fixture")
					}
					// Idempotence over every fixture.
					if again := run(); again.Status != StatusClean {
						t.Errorf("second run: %s %+v", again.Status, again.Changes)
					}
				}
			})
		}
	}
	if seen < len(wants) {
		t.Errorf("%d expectations name fixtures that are gone", len(wants)-seen)
	}
}

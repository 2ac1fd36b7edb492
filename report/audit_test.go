package report_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdoctor/clawdoctor/audit"
	"github.com/clawdoctor/clawdoctor/report"
)

func sample() *audit.Result {
	return &audit.Result{
		Findings: []audit.Finding{
			{Rule: "tool.unpaired-call", Severity: audit.Error, Path: "agents/main/sessions/a.jsonl", Line: 3, EntryID: "a1",
				Message: `tool call "c1" (read) in assistant turn a1 at line 3 has no result | a pipe`, Evidence: map[string]any{"toolCallId": "c1", "toolName": "read"}},
			{Rule: "fallback.chain", Severity: audit.Info, Path: "agents/main/sessions/a.jsonl", Line: 7, EntryID: "a2",
				Message: "model switched from openai/gpt-5.4 to anthropic/claude-sonnet-4-6", Evidence: map[string]any{"from": "openai/gpt-5.4", "to": "anthropic/claude-sonnet-4-6"}},
			{Rule: "store.orphan-transcript", Severity: audit.Warning, Path: "agents/main/sessions/b.jsonl",
				Message: "transcript b.jsonl is not referenced by any row of sessions.json"},
		},
		Summary: audit.Summary{Files: 3, Entries: 42, Errors: 1, Warnings: 1, Infos: 1},
	}
}

func TestAuditFormats(t *testing.T) {
	for _, f := range []report.Format{report.Text, report.JSON, report.Markdown, report.SARIF} {
		t.Run(string(f), func(t *testing.T) {
			var b bytes.Buffer
			if err := report.Audit(&b, sample(), f); err != nil {
				t.Fatal(err)
			}
			golden(t, "audit_"+string(f)+".golden", b.Bytes())
		})
	}
}

func TestAuditEmpty(t *testing.T) {
	var b bytes.Buffer
	res := &audit.Result{Findings: []audit.Finding{}, Summary: audit.Summary{Files: 1, Entries: 5}}
	if err := report.Audit(&b, res, report.JSON); err != nil {
		t.Fatal(err)
	}
	var v struct {
		Findings []any         `json:"findings"`
		Summary  audit.Summary `json:"summary"`
	}
	if err := json.Unmarshal(b.Bytes(), &v); err != nil || v.Findings == nil || v.Summary.Entries != 5 {
		t.Errorf("empty result JSON %s (%v): findings must be [] and summary kept", b.String(), err)
	}
}

// TestSARIFShape validates what code-scanning needs of SARIF 2.1.0: version, $schema, the
// driver's rules with ids, and results with ruleId, level and a physical location with a
// start line (when the finding has one).
func TestSARIFShape(t *testing.T) {
	var b bytes.Buffer
	if err := report.Audit(&b, sample(), report.SARIF); err != nil {
		t.Fatal(err)
	}
	var log map[string]any
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log["version"] != "2.1.0" || log["$schema"] == nil {
		t.Fatalf("version/$schema: %v %v", log["version"], log["$schema"])
	}
	runs := log["runs"].([]any)
	if len(runs) != 1 {
		t.Fatalf("runs: %d", len(runs))
	}
	run := runs[0].(map[string]any)
	driver := run["tool"].(map[string]any)["driver"].(map[string]any)
	ids := map[string]int{}
	for i, r := range driver["rules"].([]any) {
		id, _ := r.(map[string]any)["id"].(string)
		if id == "" {
			t.Fatalf("rule %d without id", i)
		}
		ids[id] = i
	}
	if len(ids) != len(audit.Rules) {
		t.Errorf("%d rules in SARIF, %d in audit.Rules", len(ids), len(audit.Rules))
	}
	results := run["results"].([]any)
	if len(results) != 3 {
		t.Fatalf("results: %d", len(results))
	}
	levels := map[string]string{"tool.unpaired-call": "error", "fallback.chain": "note", "store.orphan-transcript": "warning"}
	for _, r := range results {
		res := r.(map[string]any)
		id := res["ruleId"].(string)
		if _, ok := ids[id]; !ok {
			t.Errorf("result rule %s not among driver rules", id)
		}
		if int(res["ruleIndex"].(float64)) != ids[id] {
			t.Errorf("%s: ruleIndex %v, want %d", id, res["ruleIndex"], ids[id])
		}
		if res["level"] != levels[id] {
			t.Errorf("%s: level %v, want %s", id, res["level"], levels[id])
		}
		if res["message"].(map[string]any)["text"] == "" {
			t.Errorf("%s: empty message", id)
		}
		loc := res["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)
		if loc["artifactLocation"].(map[string]any)["uri"] == "" {
			t.Errorf("%s: no uri", id)
		}
		region, _ := loc["region"].(map[string]any)
		if id == "store.orphan-transcript" {
			if region != nil {
				t.Errorf("file-level finding has a region: %v", region)
			}
		} else if region["startLine"].(float64) < 1 {
			t.Errorf("%s: region %v", id, region)
		}
	}
}

func TestAuditRulesTable(t *testing.T) {
	var b bytes.Buffer
	if err := report.AuditRules(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "audit_rules.golden", b.Bytes())
}

// TestAuditDocListsEveryRule: docs/audit.md carries the generated rule table.
func TestAuditDocListsEveryRule(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "audit.md"))
	if err != nil {
		t.Skipf("docs/audit.md: %v", err)
	}
	var b bytes.Buffer
	if err := report.AuditRules(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(doc, b.Bytes()) {
		t.Errorf("docs/audit.md does not hold the current rule table; paste report/testdata/audit_rules.golden between the rules markers")
	}
}

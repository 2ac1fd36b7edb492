package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/audit"
	"github.com/clawdoctor/clawdoctor/report"
)

// sample is an audit result as audit.Run builds it: findings sorted by path and line, the
// summary counting every finding (9 malformed lines were counted but not listed).
func sample() *audit.Result {
	return &audit.Result{
		Findings: []audit.Finding{
			{Rule: "jsonl.malformed-line", Severity: audit.Error, Path: "agents/main/sessions/a.jsonl", Line: 2,
				Message: "line 2 is not valid JSON; OpenClaw's repair drops it, so its entry and everything hanging off it are lost from context",
				Hint:    "Run: clawdoctor repair agents/main/sessions/a.jsonl", Evidence: map[string]any{"offset": 140}},
			{Rule: "jsonl.malformed-line", Severity: audit.Error, Path: "agents/main/sessions/a.jsonl", Line: 3,
				Message: "line 3 is not valid JSON; OpenClaw's repair drops it, so its entry and everything hanging off it are lost from context",
				Hint:    "Run: clawdoctor repair agents/main/sessions/a.jsonl", Omitted: 9, Evidence: map[string]any{"offset": 160}},
			{Rule: "tool.unpaired-call", Severity: audit.Error, Path: "agents/main/sessions/a.jsonl", Line: 5, EntryID: "a1",
				Message:  `tool call "c1" (read) in assistant turn a1 at line 5 has no result on the active branch | a pipe`,
				Hint:     "To see what OpenClaw would send, run: clawdoctor replay --provider P --model M agents/main/sessions/a.jsonl",
				Evidence: map[string]any{"toolCallId": "c1", "toolName": "read"}},
			{Rule: "fallback.chain", Severity: audit.Info, Path: "agents/main/sessions/a.jsonl", Line: 7, EntryID: "a2",
				Message: "model switched from openai/gpt-5.4 to anthropic/claude-sonnet-4-6", Evidence: map[string]any{"from": "openai/gpt-5.4", "to": "anthropic/claude-sonnet-4-6"}},
			{Rule: "store.orphan-transcript", Severity: audit.Warning, Path: "agents/main/sessions/b.jsonl",
				Message: "transcript b.jsonl is not referenced by any row of sessions.json",
				Hint:    "Inspect it, then run: clawdoctor doctor --fix --yes to archive it"},
		},
		Summary: audit.Summary{Files: 3, Entries: 42, Errors: 12, Warnings: 1, Infos: 1, Omitted: 9, Rules: []audit.RuleCount{
			{Rule: "jsonl.malformed-line", Severity: audit.Error, Count: 11, Omitted: 9},
			{Rule: "tool.unpaired-call", Severity: audit.Error, Count: 1},
			{Rule: "store.orphan-transcript", Severity: audit.Warning, Count: 1},
			{Rule: "fallback.chain", Severity: audit.Info, Count: 1},
		}},
	}
}

func TestAuditFormats(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    report.Format
		o    report.AuditOptions
	}{
		{"text", report.Text, report.AuditOptions{}},
		{"text_wrapped", report.Text, report.AuditOptions{Width: 72}},
		{"text_verbose", report.Text, report.AuditOptions{Verbose: true}},
		{"json", report.JSON, report.AuditOptions{}},
		{"markdown", report.Markdown, report.AuditOptions{}},
		{"sarif", report.SARIF, report.AuditOptions{SARIFRoot: "/repo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := sample()
			if tc.o.SARIFRoot != "" {
				// Absolute paths inside the root, as audit.Run gives them, so the golden does
				// not depend on the directory the tests run in.
				for i := range res.Findings {
					res.Findings[i].Path = filepath.Join(tc.o.SARIFRoot, res.Findings[i].Path)
				}
			}
			var b bytes.Buffer
			if err := report.Audit(&b, res, tc.f, tc.o); err != nil {
				t.Fatal(err)
			}
			golden(t, "audit_"+tc.name+".golden", b.Bytes())
		})
	}
}

// compilerLine is the first line of a finding in the text output: path:line: severity rule:
// (path: alone for a whole-file finding), which editors and CI log viewers turn into links.
var compilerLine = regexp.MustCompile(`^(\S+?):(?:(\d+):)? (error|warning|info) ([a-z]+\.[a-z0-9-]+):( \S|$)`)

// TestAuditTextConvention checks the shape of the text output at several widths: every
// finding starts a line in the compiler convention with its own path, line, severity and
// rule; continuation and hint lines are indented; no line is wider than the width unless it
// is one unbreakable word; the count per rule and the summary close it.
func TestAuditTextConvention(t *testing.T) {
	res := sample()
	for _, width := range []int{0, 60, 72, 100, 200} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			var b bytes.Buffer
			if err := report.Audit(&b, res, report.Text, report.AuditOptions{Width: width}); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			var heads []string
			for _, l := range lines {
				if width > 0 && len([]rune(l)) > width && !strings.HasSuffix(l, ":") {
					t.Errorf("line wider than %d: %q", width, l) // only a finding's head alone may be
				}
				if m := compilerLine.FindStringSubmatch(l); m != nil {
					heads = append(heads, m[1]+":"+m[2]+":"+m[3]+":"+m[4])
				} else if l != "" && !strings.HasPrefix(l, "    ") && !strings.HasPrefix(l, " ") && !regexp.MustCompile(`^\d`).MatchString(l) {
					t.Errorf("line neither a finding, indented, a rule count nor the summary: %q", l)
				}
			}
			var want []string
			for _, f := range res.Findings {
				line := ""
				if f.Line > 0 {
					line = fmt.Sprint(f.Line)
				}
				want = append(want, f.Path+":"+line+":"+f.Severity.String()+":"+f.Rule)
			}
			if diff := cmp.Diff(want, heads); diff != "" {
				t.Errorf("finding lines (-want +got):\n%s", diff)
			}
			out := b.String()
			flat := strings.Join(strings.Fields(out), " ")
			if !strings.Contains(flat, "… and 9 more jsonl.malformed-line") {
				t.Errorf("no '… and 9 more' line:\n%s", out)
			}
			if !strings.HasSuffix(flat, "3 files, 42 entries: 12 errors, 1 warning, 1 info (9 not listed)") {
				t.Errorf("summary does not count every finding:\n%s", out)
			}
			if !regexp.MustCompile(`(?m)^11  error    jsonl\.malformed-line +\(9 not listed\)$`).MatchString(out) {
				t.Errorf("no count line for jsonl.malformed-line:\n%s", out)
			}
		})
	}
}

func TestAuditEmpty(t *testing.T) {
	var b bytes.Buffer
	res := &audit.Result{Findings: []audit.Finding{}, Summary: audit.Summary{Files: 1, Entries: 5}}
	if err := report.Audit(&b, res, report.JSON, report.AuditOptions{}); err != nil {
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
	if err := report.Audit(&b, sample(), report.SARIF, report.AuditOptions{SARIFRoot: "/repo"}); err != nil {
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
	if len(results) != 5 {
		t.Fatalf("results: %d", len(results))
	}
	levels := map[string]string{"jsonl.malformed-line": "error", "tool.unpaired-call": "error", "fallback.chain": "note", "store.orphan-transcript": "warning"}
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

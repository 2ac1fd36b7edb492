package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/clawdoctor/clawdoctor/audit"
)

// Audit renders an audit result: a table grouped by file (Text), JSON, Markdown or SARIF 2.1.0.
func Audit(w io.Writer, res *audit.Result, f Format) error {
	switch f {
	case JSON:
		return WriteJSON(w, res)
	case Markdown:
		return auditMarkdown(w, res)
	case SARIF:
		return auditSARIF(w, res)
	}
	return auditText(w, res)
}

// byFile groups findings by path, keeping the result's order.
func byFile(fs []audit.Finding) ([]string, map[string][]audit.Finding) {
	var order []string
	m := map[string][]audit.Finding{}
	for _, f := range fs {
		if _, ok := m[f.Path]; !ok {
			order = append(order, f.Path)
		}
		m[f.Path] = append(m[f.Path], f)
	}
	return order, m
}

func lineStr(n int64) string {
	if n == 0 {
		return "-"
	}
	return strconv.FormatInt(n, 10)
}

func summaryLine(res *audit.Result) string {
	s := res.Summary
	out := fmt.Sprintf("%d file(s), %d entries: %d error(s), %d warning(s), %d info", s.Files, s.Entries, s.Errors, s.Warnings, s.Infos)
	if len(res.Unreadable) > 0 {
		out += fmt.Sprintf("; %d unreadable: %s", len(res.Unreadable), strings.Join(res.Unreadable, ", "))
	}
	return out
}

func auditText(w io.Writer, res *audit.Result) error {
	order, m := byFile(res.Findings)
	for _, path := range order {
		if _, err := fmt.Fprintf(w, "%s\n", path); err != nil {
			return err
		}
		t := NewTable(w)
		t.Header("line", "severity", "rule", "entry", "message")
		for _, f := range m[path] {
			if err := t.Append(lineStr(f.Line), f.Severity.String(), f.Rule, f.EntryID, f.Message); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
	}
	if len(res.Findings) == 0 {
		if _, err := fmt.Fprintln(w, "no findings"); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintln(w, summaryLine(res))
	return err
}

// mdCell makes a value safe inside a Markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r", " "), "\n", " ")
}

func auditMarkdown(w io.Writer, res *audit.Result) error {
	if _, err := fmt.Fprintf(w, "### clawdoctor audit\n\n%s\n\n", summaryLine(res)); err != nil {
		return err
	}
	order, m := byFile(res.Findings)
	for _, path := range order {
		if _, err := fmt.Fprintf(w, "#### `%s`\n\n", path); err != nil {
			return err
		}
		t := NewMarkdownTable(w)
		t.Header("line", "severity", "rule", "entry", "message")
		for _, f := range m[path] {
			if err := t.Append(lineStr(f.Line), f.Severity.String(), "`"+f.Rule+"`", mdCell(f.EntryID), mdCell(f.Message)); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
	}
	return nil
}

// SARIF 2.1.0 (https://docs.oasis-open.org/sarif/sarif/v2.1.0/) for code-scanning uploads.
const sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	Name                 string       `json:"name"`
	ShortDescription     sarifMessage `json:"shortDescription"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID     string          `json:"ruleId"`
	RuleIndex  int             `json:"ruleIndex"`
	Level      string          `json:"level"`
	Message    sarifMessage    `json:"message"`
	Locations  []sarifLocation `json:"locations"`
	Properties map[string]any  `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation struct {
		URI string `json:"uri"`
	} `json:"artifactLocation"`
	Region *sarifRegion `json:"region,omitempty"`
}

type sarifRegion struct {
	StartLine int64 `json:"startLine"`
}

func sarifLevel(s audit.Severity) string {
	switch s {
	case audit.Error:
		return "error"
	case audit.Warning:
		return "warning"
	}
	return "note"
}

// sarifURI turns a path into a relative URI reference (forward slashes, no leading "./").
func sarifURI(p string) string {
	p = strings.ReplaceAll(p, "\\", "/")
	return strings.TrimPrefix(p, "./")
}

func auditSARIF(w io.Writer, res *audit.Result) error {
	index := map[string]int{}
	var rules []sarifRule
	for i, r := range audit.Rules {
		sr := sarifRule{ID: r.ID, Name: ruleName(r.ID), ShortDescription: sarifMessage{Text: r.Description}}
		sr.DefaultConfiguration.Level = sarifLevel(r.Severity)
		rules = append(rules, sr)
		index[r.ID] = i
	}
	results := make([]sarifResult, 0, len(res.Findings))
	for _, f := range res.Findings {
		loc := sarifLocation{}
		loc.PhysicalLocation.ArtifactLocation.URI = sarifURI(f.Path)
		if f.Line > 0 {
			loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Line}
		}
		props := map[string]any{}
		if f.EntryID != "" {
			props["entryId"] = f.EntryID
		}
		if len(f.Evidence) > 0 {
			props["evidence"] = f.Evidence
		}
		if len(props) == 0 {
			props = nil
		}
		results = append(results, sarifResult{RuleID: f.Rule, RuleIndex: index[f.Rule], Level: sarifLevel(f.Severity),
			Message: sarifMessage{Text: f.Message}, Locations: []sarifLocation{loc}, Properties: props})
	}
	log := sarifLog{Schema: sarifSchema, Version: "2.1.0", Runs: []sarifRun{{
		Tool:    sarifTool{Driver: sarifDriver{Name: "clawdoctor", InformationURI: "https://github.com/clawdoctor/clawdoctor", Rules: rules}},
		Results: results,
	}}}
	return WriteJSON(w, log)
}

// ruleName turns "tool.unpaired-call" into "ToolUnpairedCall" (SARIF reportingDescriptor.name).
func ruleName(id string) string {
	var b strings.Builder
	up := true
	for _, r := range id {
		if r == '.' || r == '-' {
			up = true
			continue
		}
		if up {
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// AuditRules renders the rule table (id, severity, description) as Markdown, for docs/audit.md
// and the README.
func AuditRules(w io.Writer) error {
	t := NewMarkdownTable(w)
	t.Header("rule", "severity", "what it means")
	for _, r := range audit.Rules {
		if err := t.Append("`"+r.ID+"`", r.Severity.String(), mdCell(r.Description)); err != nil {
			return err
		}
	}
	return t.Render()
}

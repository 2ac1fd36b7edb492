package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/audit"
)

// AuditOptions tune the audit output.
type AuditOptions struct {
	// Width wraps the text output to this many columns; 0 does not wrap (see [Width]).
	Width int
	// Verbose prints every finding's hint in the text output, even when the finding before it
	// in the same file said the same.
	Verbose bool
	// Color paints the severity words of the text output (see [Color]).
	Color bool
	// SARIFRoot is the directory SARIF uris are relative to (see [SARIFRoot]); "" keeps the
	// paths as they are.
	SARIFRoot string
}

// Audit renders an audit result: compiler-style lines grouped by file (Text), JSON, Markdown
// or SARIF 2.1.0.
func Audit(w io.Writer, res *audit.Result, f Format, o AuditOptions) error {
	if f == Text || f == Markdown {
		res = escaped(res) // issue 31: data is printed escaped, one finding a line
	}
	bw := bufio.NewWriterSize(w, 64<<10) // one write call per buffer, not per finding line
	err := writeAudit(bw, res, f, o)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

func writeAudit(w io.Writer, res *audit.Result, f Format, o AuditOptions) error {
	switch f {
	case JSON:
		return WriteJSON(w, res)
	case Markdown:
		return auditMarkdown(w, res)
	case SARIF:
		return auditSARIF(w, res, o.SARIFRoot)
	}
	return auditText(w, res, o)
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

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func summaryLine(res *audit.Result) string {
	s := res.Summary
	out := fmt.Sprintf("%s, %s: %s, %s, %d info", plural(s.Files, "file", "files"), plural(int(s.Entries), "entry", "entries"),
		plural(s.Errors, "error", "errors"), plural(s.Warnings, "warning", "warnings"), s.Infos)
	if s.Omitted > 0 {
		out += fmt.Sprintf(" (%d not listed)", s.Omitted)
	}
	if len(res.Unreadable) > 0 {
		out += fmt.Sprintf("; %d unreadable: %s", len(res.Unreadable), strings.Join(res.Unreadable, ", "))
	}
	return out
}

// moreLine says how many findings a listed one stands for.
func moreLine(f *audit.Finding) string {
	return fmt.Sprintf("… and %d more %s in this file (counted, not listed)", f.Omitted, f.Rule)
}

// auditText prints one line per finding in the compiler convention, "path:line: severity
// rule: message" (path: for a whole-file finding), so editors and CI logs link to the line.
// Long messages wrap onto indented lines; the hint goes on its own indented line. Files are
// separated by a blank line, and a count per rule closes the report.
func auditText(w io.Writer, res *audit.Result, o AuditOptions) error {
	tw := &textWriter{w: w}
	order, m := byFile(res.Findings)
	for i, path := range order {
		if i > 0 {
			tw.line("")
		}
		lastHint := ""
		for _, f := range m[path] {
			loc := path + ":"
			if f.Line > 0 {
				loc += strconv.FormatInt(f.Line, 10) + ":"
			}
			sev := f.Severity.String()
			head := loc + " " + paint(o.Color, sev, sev) + " " + f.Rule + ": "
			tw.wrapped(head, len(loc)+len(sev)+len(f.Rule)+4, f.Message, o.Width)
			if f.Hint != "" && (o.Verbose || f.Hint != lastHint) {
				tw.wrapped("    ", 4, f.Hint, o.Width)
			}
			lastHint = f.Hint
			if f.Omitted > 0 {
				tw.wrapped("    ", 4, moreLine(&f), o.Width)
			}
		}
	}
	if len(res.Findings) == 0 {
		tw.line("no findings")
	} else {
		tw.line("")
		ruleW, countW := 0, 0
		for _, r := range res.Summary.Rules {
			ruleW = max(ruleW, len(r.Rule))
			countW = max(countW, len(strconv.Itoa(r.Count)))
		}
		for _, r := range res.Summary.Rules {
			sev := r.Severity.String()
			line := fmt.Sprintf("%*d  %s%s  %s", countW, r.Count, paint(o.Color, sev, sev), strings.Repeat(" ", 7-len(sev)), r.Rule)
			if r.Omitted > 0 {
				line += strings.Repeat(" ", ruleW-len(r.Rule)) + fmt.Sprintf("  (%d not listed)", r.Omitted)
			}
			tw.line(line)
		}
	}
	tw.wrapped("", 0, summaryLine(res), o.Width)
	return tw.err
}

// textWriter keeps the first write error, so the rendering code reads straight through.
type textWriter struct {
	w   io.Writer
	err error
}

func (t *textWriter) line(s string) {
	if t.err == nil {
		_, t.err = io.WriteString(t.w, s+"\n")
	}
}

// wrapped writes head followed by text, breaking text at spaces so that no line is longer
// than width (a word longer than a line stays whole). Continuation lines are indented by four
// spaces. headLen is head's printed width (head may hold colour codes). width 0: one line.
func (t *textWriter) wrapped(head string, headLen int, text string, width int) {
	text = strings.Join(strings.Fields(text), " ")
	if width <= 0 || headLen+len(text) <= width {
		t.line(head + text)
		return
	}
	const indent = "    "
	var b strings.Builder
	b.WriteString(head)
	col := headLen
	start := true // nothing written on this line after its head or indent
	for i, word := range strings.Split(text, " ") {
		n := len([]rune(word))
		// a head too long to hold the first word ends its line alone (it is never broken)
		if (!start || i == 0 && headLen > len(indent)) && col+1+n > width {
			t.line(strings.TrimRight(b.String(), " "))
			b.Reset()
			b.WriteString(indent)
			col, start = len(indent), true
		}
		if !start {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += n
		start = false
	}
	t.line(b.String())
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
			text := f.Text()
			if f.Omitted > 0 {
				text += " (" + moreLine(&f) + ")"
			}
			if err := t.Append(lineStr(f.Line), f.Severity.String(), "`"+f.Rule+"`", mdCell(f.EntryID), mdCell(text)); err != nil {
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
	if len(res.Summary.Rules) == 0 {
		return nil
	}
	t := NewMarkdownTable(w)
	t.Header("rule", "severity", "count", "not listed")
	for _, r := range res.Summary.Rules {
		if err := t.Append("`"+r.Rule+"`", r.Severity.String(), r.Count, r.Omitted); err != nil {
			return err
		}
	}
	return t.Render()
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

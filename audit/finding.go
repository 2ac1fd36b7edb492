// Package audit runs read-only forensic checks over OpenClaw session data (transcripts, session
// stores, locks and gateway logs) and reports Findings with stable rule ids. It never writes.
//
// The checks follow the reference behaviour in shared/spec: transcript.md §2–4 (format, tree,
// tool pairing), store.md §1–3 and §6 (sessions.json, file names, locks) and
// context-and-forensics.md §1, §3–6 and §8 (active branch, fallback retry prompt, message-tool
// batching, CLI session ids, gateway logs).
package audit

import (
	"fmt"
	"sort"
	"strings"
)

// Severity ranks a finding. The zero value is Info.
type Severity int

const (
	Info Severity = iota
	Warning
	Error
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "info"
}

// MarshalText writes the severity as "error", "warning" or "info".
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads "error", "warning" or "info".
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseSeverity reads a severity name.
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "error":
		return Error, nil
	case "warning", "warn":
		return Warning, nil
	case "info":
		return Info, nil
	}
	return Info, fmt.Errorf("unknown severity %q (want error, warning or info)", s)
}

// Finding is one problem found by a rule.
type Finding struct {
	Rule     string         `json:"rule"`
	Severity Severity       `json:"severity"`
	Path     string         `json:"path"`
	Line     int64          `json:"line,omitempty"` // 1-based; 0 when the finding is about a whole file
	EntryID  string         `json:"entryId,omitempty"`
	Message  string         `json:"message"`
	Evidence map[string]any `json:"evidence,omitempty"`
}

// Rule describes one check. The README and docs/audit.md rule tables are generated from Rules.
type Rule struct {
	ID          string
	Severity    Severity
	Description string
}

// Rules lists every rule audit can report, in documentation order.
var Rules = []Rule{
	{"jsonl.malformed-line", Error, "a line is not valid JSON (torn write, editor damage); OpenClaw's repair drops it"},
	{"jsonl.bom", Error, "the file starts with a UTF-8 byte order mark; OpenClaw's repair then finds no header and never repairs the file"},
	{"jsonl.nul-bytes", Error, "a line holds NUL bytes (crash pre-allocation or disk damage)"},
	{"jsonl.concatenated", Error, "two or more JSON objects glued on one line (a missing newline between appends)"},
	{"jsonl.invalid-utf8", Error, "a line holds bytes that are not valid UTF-8"},
	{"jsonl.crlf", Warning, "lines end in CRLF or hold a stray CR (edited on Windows)"},
	{"jsonl.line-too-long", Warning, "a line is longer than the line cap (--max-line) and was not checked"},
	{"header.missing", Error, "line 1 is not a session header; OpenClaw's repair refuses the file and pi's loader writes a new header (dropping every entry before 2026.6.11)"},
	{"header.invalid", Error, "the session header lacks a usable id, timestamp or cwd, or has an unsupported version"},
	{"header.duplicate", Error, "a second session header appears after line 1 (two transcripts appended into one file)"},
	{"tree.dangling-parent", Error, "an entry's parentId names no entry in the file; the context walk stops there and loses history"},
	{"tree.duplicate-id", Error, "two entries share one id; the tree and the active branch become ambiguous"},
	{"tree.multiple-roots", Warning, "more than one entry has parentId null; only the branch of the last entry is used"},
	{"tree.cycle", Error, "parentId links form a cycle; the context walk never reaches a root"},
	{"compaction.first-kept-missing", Warning, "a compaction's firstKeptEntryId is not on its path, so no pre-compaction entries are kept"},
	{"message.null-role", Error, "a message entry has no role (null or missing); replay code cannot classify it"},
	{"message.empty-error-assistant", Warning, "an assistant turn with stopReason error and no content; some providers reject empty turns on replay"},
	{"message.blank-user", Warning, "a user turn whose text is empty or only whitespace; providers reject empty user content"},
	{"image.oversized", Warning, "an inline base64 image larger than providers accept (5 MB decoded)"},
	{"tool.unpaired-call", Error, "a tool call on the active branch has no tool result; the next request is rejected with a 400"},
	{"tool.orphan-result", Warning, "a tool result on the active branch answers no earlier tool call"},
	{"tool.duplicate-result", Warning, "a tool call on the active branch has more than one result"},
	{"tool.displaced-result", Warning, "a tool result is not right after its call (other messages in between)"},
	{"tool.invalid-call", Error, "a tool call on the active branch has no input, or a blank or invalid name or id; OpenClaw drops it on replay"},
	{"fallback.lost-prompt", Error, "a user turn is OpenClaw's old generic fallback retry text: the user's real prompt was replaced (#65760)"},
	{"fallback.chain", Info, "the model changed after an error turn (a model fallback), with from/to model and reason"},
	{"delivery.message-batched", Warning, "several message-tool sends in one turn reached (or may reach) the user only at turn end (#16137)"},
	{"cli.session-id-conflict", Error, "gateway logs show a Claude CLI \"Session ID … is already in use\" conflict and the fallback it caused (#83011)"},
	{"cli.binding-mismatch", Warning, "cliSessionBindings, cliSessionIds and claudeCliSessionId of one session disagree (stale mirror)"},
	{"cli.shared-session-id", Warning, "one CLI session id is bound to two session keys"},
	{"store.corrupt", Error, "sessions.json is not a JSON object; OpenClaw treats it as empty and the next write loses every row"},
	{"store.invalid-entry", Warning, "a sessions.json row a current gateway would drop (not an object, or no safe sessionId)"},
	{"store.missing-transcript", Warning, "a sessions.json row whose transcript file does not exist"},
	{"store.orphan-transcript", Warning, "a live transcript in the sessions dir that no sessions.json row references"},
	{"store.outside-path", Error, "a row's sessionFile points outside the sessions dir"},
	{"store.oversized-entry", Warning, "a sessions.json row carries a huge skillsSnapshot or systemPromptReport blob"},
	{"store.sqlite-era", Warning, "the agent uses the SQLite session store; these JSONL files may be stale and must not be written"},
	{"lock.stale", Warning, "a transcript lock file whose owner is gone or too old; it can be removed"},
	{"lock.live", Info, "a transcript lock held by a live process: a gateway is running, do not write"},
}

// RuleByID returns the rule with id, or false.
func RuleByID(id string) (Rule, bool) {
	for _, r := range Rules {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

// Summary counts what a run looked at and found.
type Summary struct {
	Files    int   `json:"files"`
	Entries  int64 `json:"entries"`
	Errors   int   `json:"errors"`
	Warnings int   `json:"warnings"`
	Infos    int   `json:"infos"`
}

// Result is the outcome of an audit run.
type Result struct {
	Findings []Finding `json:"findings"`
	Summary  Summary   `json:"summary"`
	// Unreadable lists inputs that could not be read (the run went on without them).
	Unreadable []string `json:"unreadable,omitempty"`
}

// Max returns the highest severity among the findings, and false when there are none.
func (r *Result) Max() (Severity, bool) {
	if len(r.Findings) == 0 {
		return Info, false
	}
	m := Info
	for _, f := range r.Findings {
		if f.Severity > m {
			m = f.Severity
		}
	}
	return m, true
}

// Reaches reports whether any finding has severity s or higher.
func (r *Result) Reaches(s Severity) bool {
	m, ok := r.Max()
	return ok && m >= s
}

// finish sorts the findings (path, line, rule) and fills the severity counts.
func (r *Result) finish() {
	sort.SliceStable(r.Findings, func(i, j int) bool {
		a, b := r.Findings[i], r.Findings[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Rule < b.Rule
	})
	r.Summary.Errors, r.Summary.Warnings, r.Summary.Infos = 0, 0, 0
	for _, f := range r.Findings {
		switch f.Severity {
		case Error:
			r.Summary.Errors++
		case Warning:
			r.Summary.Warnings++
		default:
			r.Summary.Infos++
		}
	}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
}

// newFinding builds a finding with the rule's severity.
func newFinding(rule, path string, line int64, entryID, msg string, ev map[string]any) Finding {
	r, ok := RuleByID(rule)
	if !ok {
		panic("audit: unknown rule " + rule) // programming error: every id is in Rules
	}
	return Finding{Rule: rule, Severity: r.Severity, Path: path, Line: line, EntryID: entryID, Message: msg, Evidence: ev}
}

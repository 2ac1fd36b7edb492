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
	Message  string         `json:"message"`        // what, where and why it matters
	Hint     string         `json:"hint,omitempty"` // what to run or do about it
	Evidence map[string]any `json:"evidence,omitempty"`
	// Omitted counts the findings of the same rule in the same file that are not listed: a
	// scan lists at most Options.MaxPerRule per rule and file, and this (the last listed one)
	// stands for the rest. Summary counts them all.
	Omitted int `json:"omitted,omitempty"`
}

// Text is the message followed by the hint, for outputs that have one text field.
func (f *Finding) Text() string {
	if f.Hint == "" {
		return f.Message
	}
	return f.Message + ". " + f.Hint
}

// Rule describes one check. The README and docs/audit.md rule tables are generated from Rules.
type Rule struct {
	ID          string
	Severity    Severity
	Description string
	Fix         string // what fixes it (FILE stands for the transcript)
}

// Rules lists every rule audit can report, in documentation order.
var Rules = []Rule{
	{"jsonl.malformed-line", Error, "a line is not valid JSON (torn write, editor damage); OpenClaw's repair drops it", "clawdoctor repair FILE drops it like OpenClaw, or salvages what can be read (backup kept)"},
	{"jsonl.bom", Error, "the file starts with a UTF-8 byte order mark; OpenClaw's repair then finds no header and never repairs the file", "clawdoctor repair FILE strips the byte order mark"},
	{"jsonl.nul-bytes", Error, "a line holds NUL bytes (crash pre-allocation or disk damage)", "clawdoctor repair FILE removes the NUL bytes and keeps the lines around them"},
	{"jsonl.concatenated", Error, "two or more JSON objects glued on one line (a missing newline between appends)", "clawdoctor repair FILE splits the objects onto their own lines"},
	{"jsonl.invalid-utf8", Error, "a line holds bytes that are not valid UTF-8", "none needed by OpenClaw (Node reads the bytes as U+FFFD); repair keeps them byte for byte"},
	{"jsonl.crlf", Warning, "lines end in CRLF or hold a stray CR (edited on Windows)", "CRLF line ends need nothing (repair keeps them); entries separated by lone CRs are split by clawdoctor repair FILE"},
	{"jsonl.missing-final-newline", Warning, "the last line is complete but has no final newline; the next append is glued to it and both entries are lost", "clawdoctor repair FILE adds the newline"},
	{"jsonl.line-too-long", Warning, "a line is longer than the line cap (--max-line), nested too deep or holds more than 4M values, and was not checked", "raise --max-line to check a long line; a deep or many-valued one needs nothing (OpenClaw reads it, repair keeps it)"},
	{"header.missing", Error, "line 1 is not a session header; OpenClaw's repair refuses the file and pi's loader writes a new header (dropping every entry before 2026.6.11)", "clawdoctor repair --synthesize-header FILE writes a header from the file name"},
	{"header.invalid", Error, "the session header lacks a usable id, timestamp or cwd, or has an unsupported version", "fix the header by hand (id, timestamp, cwd, version 1–3)"},
	{"header.duplicate", Error, "a second session header appears after line 1 (two transcripts appended into one file)", "split the file at the second header by hand"},
	{"tree.dangling-parent", Error, "an entry's parentId names no entry in the file; the context walk stops there and loses history", "clawdoctor repair --relink FILE points it at the previous entry in file order"},
	{"tree.duplicate-id", Error, "two entries share one id; the tree and the active branch become ambiguous", "inspect with clawdoctor replay; no command rewrites ids"},
	{"tree.multiple-roots", Warning, "more than one entry has parentId null; only the branch of the last entry is used", "nothing to fix unless history is missing: inspect with clawdoctor replay"},
	{"tree.cycle", Error, "parentId links form a cycle; the context walk never reaches a root", "inspect with clawdoctor replay; break the cycle by hand"},
	{"compaction.first-kept-missing", Warning, "a compaction's firstKeptEntryId is not on its path, so no pre-compaction entries are kept", "nothing rewrites it; the summary stands in for the lost history"},
	{"message.null-role", Error, "a message entry has no role (null or missing); replay code cannot classify it", "clawdoctor repair FILE drops the entry"},
	{"message.empty-error-assistant", Warning, "an assistant turn with stopReason error and no content; some providers reject empty turns on replay", "clawdoctor repair FILE gives the turn OpenClaw's placeholder text"},
	{"message.blank-user", Warning, "a user turn whose text is empty or only whitespace; providers reject empty user content", "clawdoctor repair FILE gives the turn OpenClaw's \"(continue)\" text"},
	{"image.oversized", Warning, "an inline base64 image larger than providers accept (5 MB decoded)", "inspect with clawdoctor replay; remove or shrink the image by hand"},
	{"image.corrupt", Error, "an image block whose base64 data is not ASCII, not valid base64 or no image format OpenClaw knows; the repair of OpenClaw 2026.6.11 replaces it with a text block", "clawdoctor repair FILE replaces it as OpenClaw 2026.6.11 does (backup kept)"},
	{"tool.unpaired-call", Error, "a tool call on the active branch has no tool result; the next request is rejected with a 400", "OpenClaw inserts a synthetic result when it sends the session (see clawdoctor replay); clawdoctor repair FILE writes it for OpenAI code-mode turns"},
	{"tool.orphan-result", Warning, "a tool result on the active branch answers no earlier tool call", "OpenClaw drops it when it sends the session; see clawdoctor replay"},
	{"tool.duplicate-result", Warning, "a tool call on the active branch has more than one result", "OpenClaw drops the later result when it sends the session; see clawdoctor replay"},
	{"tool.displaced-result", Warning, "a tool result is not right after its call (other messages in between)", "OpenClaw moves the result when it sends the session; see clawdoctor replay"},
	{"tool.reused-call-id", Warning, "a tool call id is used again by a later assistant turn; OpenClaw's pairing can drop the later real result as a duplicate, leaving that call unpaired", "nothing rewrites the ids; see which releases and providers lose the result in docs/audit.md, and what a replay sends with clawdoctor replay"},
	{"tool.invalid-call", Error, "a tool call on the active branch has no input, or a blank or invalid name or id; OpenClaw drops it on replay", "OpenClaw drops the call when it sends the session; see clawdoctor replay"},
	{"fallback.lost-prompt", Error, "a user turn is OpenClaw's old generic fallback retry text: the user's real prompt was replaced (#65760)", "upgrade OpenClaw (fixed in 2026.4.14) and re-send the prompt"},
	{"fallback.chain", Info, "the model changed after an error turn (a model fallback), with from/to model and reason", "nothing to fix: a record of a model fallback"},
	{"delivery.message-batched", Warning, "several message-tool sends in one turn reached (or may reach) the user only at turn end (#16137)", "upgrade OpenClaw; confirm with clawdoctor audit --logs"},
	{"cli.session-id-conflict", Error, "gateway logs show a Claude CLI \"Session ID … is already in use\" conflict and the fallback it caused (#83011)", "clawdoctor doctor --fix clears the stale binding"},
	{"cli.binding-mismatch", Warning, "cliSessionBindings, cliSessionIds and claudeCliSessionId of one session disagree (stale mirror)", "clawdoctor doctor --fix clears the stale binding"},
	{"cli.shared-session-id", Warning, "one CLI session id is bound to two session keys", "clawdoctor doctor --fix keeps the binding on the most recently used key"},
	{"store.corrupt", Error, "sessions.json is not a JSON object; OpenClaw treats it as empty and the next write loses every row", "clawdoctor repair SESSIONS_DIR salvages the rows (with --rebuild-store to re-attach transcripts)"},
	{"store.invalid-entry", Warning, "a sessions.json row a current gateway would drop (not an object, or no safe sessionId)", "remove or correct the row by hand"},
	{"store.missing-transcript", Warning, "a sessions.json row whose transcript file does not exist", "clawdoctor cleanup --fix-missing prunes the row"},
	{"store.orphan-transcript", Warning, "a live transcript in the sessions dir that no sessions.json row references", "clawdoctor doctor --fix --yes archives it (--rebuild-store re-attaches it)"},
	{"store.outside-path", Error, "a row's sessionFile points outside the sessions dir", "correct the row's sessionFile by hand"},
	{"store.oversized-entry", Warning, "a sessions.json row carries a huge skillsSnapshot or systemPromptReport blob", "clawdoctor doctor --fix --yes strips the blob (OpenClaw regenerates it)"},
	{"sqlite.seq-gap", Error, "a session's transcript_events skip a seq (rows deleted): the session no longer reads as the file it was imported from", "see it with clawdoctor export; the archived original (session-sqlite-import-archive) still holds the rows"},
	{"sqlite.identity-mismatch", Error, "a transcript_event_identities row names another id or parent than the event at its seq: the identity index and the events disagree", "see the events as stored with clawdoctor export; openclaw doctor --session-sqlite validate reports the session"},
	{"sqlite.archive-unverified", Error, "an archived transcript kept in the database does not match its archive_sha256: OpenClaw refuses to read it", "restore the database from a backup; clawdoctor export --archives leaves it out and names it"},
	{"sqlite.cold-archive", Error, "a session in cold storage whose archive (sessions/cold/<sha256>.jsonl.zst or its blob) is missing, has another size or sha256 than its row, or does not decode: OpenClaw cannot restore it", "restore the archive file from a backup; until then its history reads as empty"},
	{"store.sqlite-era", Warning, "the agent uses the SQLite session store; these JSONL files may be stale and must not be written", "use openclaw doctor --session-sqlite inspect; clawdoctor never writes this agent"},
	{"lock.stale", Warning, "a transcript lock file whose owner is gone or too old; it can be removed", "clawdoctor doctor --fix moves the lock to the backup dir"},
	{"lock.live", Info, "a transcript lock held by a live process: a gateway is running, do not write", "wait for the gateway to stop before repairing or cleaning"},
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

// Summary counts what a run looked at and found. The severity counts and Rules count every
// finding, listed or not.
type Summary struct {
	Files    int   `json:"files"`
	Entries  int64 `json:"entries"`
	Errors   int   `json:"errors"`
	Warnings int   `json:"warnings"`
	Infos    int   `json:"infos"`
	// Omitted is how many findings are counted but not listed (over the per-rule cap).
	Omitted int         `json:"omitted"`
	Rules   []RuleCount `json:"rules"`
}

// RuleCount is how often one rule fired at one severity in a run.
type RuleCount struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Count    int      `json:"count"`   // every finding
	Omitted  int      `json:"omitted"` // of Count, not listed in Findings
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
	r.Summary.Errors, r.Summary.Warnings, r.Summary.Infos, r.Summary.Omitted = 0, 0, 0, 0
	type key struct {
		rule string
		sev  Severity
	}
	counts := map[key]*RuleCount{}
	for _, f := range r.Findings {
		n := 1 + f.Omitted
		switch f.Severity {
		case Error:
			r.Summary.Errors += n
		case Warning:
			r.Summary.Warnings += n
		default:
			r.Summary.Infos += n
		}
		r.Summary.Omitted += f.Omitted
		k := key{f.Rule, f.Severity}
		c := counts[k]
		if c == nil {
			c = &RuleCount{Rule: f.Rule, Severity: f.Severity}
			counts[k] = c
		}
		c.Count += n
		c.Omitted += f.Omitted
	}
	// most severe first, then the most frequent, then by id: the order a reader fixes them in
	r.Summary.Rules = make([]RuleCount, 0, len(counts))
	for _, c := range counts {
		r.Summary.Rules = append(r.Summary.Rules, *c)
	}
	sort.Slice(r.Summary.Rules, func(i, j int) bool {
		a, b := r.Summary.Rules[i], r.Summary.Rules[j]
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Rule < b.Rule
	})
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
}

// newFinding builds a finding with the rule's severity. msg says what, where and why; hint
// says what to run ("" when nothing is to be done).
func newFinding(rule, path string, line int64, entryID, msg, hint string, ev map[string]any) Finding {
	r, ok := RuleByID(rule)
	if !ok {
		panic("audit: unknown rule " + rule) // programming error: every id is in Rules
	}
	return Finding{Rule: rule, Severity: r.Severity, Path: path, Line: line, EntryID: entryID, Message: msg, Hint: hint, Evidence: ev}
}

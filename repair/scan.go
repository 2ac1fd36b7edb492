package repair

import (
	"errors"
	"unicode/utf8"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// maxDepth bounds nesting: jsonl.MaxDepth, the one limit of every parser. A deeper line is
// not unparseable (JSON.parse reads any depth): the planner keeps it unexamined.
const maxDepth = jsonl.MaxDepth

// skipSpace is jsonl's: one grammar, one definition of JSON whitespace.
func skipSpace(b []byte, i int) int { return jsonl.SkipSpace(b, i) }

// validJSON reports whether b is exactly one JSON value with optional surrounding space.
func validJSON(b []byte) bool { return Verdict(b) == nil }

// ErrInvalid is Verdict's answer for bytes that are not one JSON value.
var ErrInvalid = errors.New("not valid JSON")

// Verdict is the planner's reading of b, through the member-collecting jsonl.Scanner it
// reads every line with (Scanner.Line on the scan workers, Value for a line whose NULs it
// removed; one walk either way): nil for exactly one JSON value with optional surrounding space,
// jsonl.ErrTooDeep for one nested deeper than jsonl.MaxDepth, else ErrInvalid. The grammar
// test checks it against every other parser of the project.
func Verdict(b []byte) error {
	s := jsonl.Scanner{Collect: true}
	e := s.Value(b, 0)
	switch {
	case e >= 0 && skipSpace(b, e) == len(b):
		return nil
	case s.TooDeep:
		return jsonl.ErrTooDeep
	}
	return ErrInvalid
}

// strValue decodes a JSON string token. ok is false when tok is not a string.
func strValue(tok []byte) (string, bool) {
	if len(tok) < 2 || tok[0] != '"' {
		return "", false
	}
	inner := tok[1 : len(tok)-1]
	plain := true
	for _, c := range inner {
		if c == '\\' {
			plain = false
			break
		}
	}
	// Bytes that are not UTF-8 read as Node reads them (the WHATWG decoder: one U+FFFD per
	// ill-formed subsequence), so values compare as OpenClaw compares them: a call id "\xbe"
	// is answered by the result id "\ufffd" a repair wrote for it (FuzzRepair found a second
	// repair inserting another result when the raw bytes were compared).
	if plain {
		if k := known(inner); k != "" {
			return k, true
		}
		if !utf8.Valid(inner) {
			return string(ReplaceInvalidUTF8(inner)), true
		}
		return string(inner), true
	}
	// Escapes decode as JSON.parse decodes them, a lone surrogate kept apart from U+FFFD and
	// from every other one (encoding/json made "\ud800", "\ud801" and "\ufffd" one id, where
	// OpenClaw inserts a result for a call "\ud800" answered by "\ud801").
	v, ok := jsonobj.UnquoteJS(tok)
	return string(v), ok
}

// known returns the string of the values every entry has (types, roles, stop reasons, APIs,
// providers) without a copy, or "": a new string for each was most of the planner's
// allocations. The switch on string(b) does not allocate.
func known(b []byte) string {
	switch string(b) {
	case "message":
		return "message"
	case "user":
		return "user"
	case "assistant":
		return "assistant"
	case "toolResult":
		return "toolResult"
	case "stop":
		return "stop"
	case "toolUse":
		return "toolUse"
	case "error":
		return "error"
	case "aborted":
		return "aborted"
	case "length":
		return "length"
	case "text":
		return "text"
	case "toolCall":
		return "toolCall"
	case "custom":
		return "custom"
	case "anthropic":
		return "anthropic"
	case "openai":
		return "openai"
	case "anthropic-messages":
		return "anthropic-messages"
	case "openai-responses":
		return "openai-responses"
	case "openai-completions":
		return "openai-completions"
	case "openai-chatgpt-responses":
		return "openai-chatgpt-responses"
	}
	return ""
}

// tokIs reports whether the string token tok decodes to want.
func tokIs(tok []byte, want string) bool {
	if len(tok) == len(want)+2 && tok[0] == '"' && string(tok[1:len(tok)-1]) == want {
		return true
	}
	for _, c := range tok {
		if c == '\\' {
			v, ok := strValue(tok)
			return ok && v == want
		}
	}
	return false
}

package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
)

// Wrapper texts pi puts around summaries when it sends them to the model (spec
// context-and-forensics §1.5; byte-exact).
const (
	CompactionSummaryPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	CompactionSummarySuffix = "\n</summary>"
	BranchSummaryPrefix     = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	BranchSummarySuffix     = "</summary>"
)

// DefaultThinkingLevel is the thinking level of a context whose path sets none.
const DefaultThinkingLevel = "off"

// ModelRef names the model a context was last running on.
type ModelRef struct {
	Provider string `json:"provider"`
	ModelID  string `json:"modelId"`
}

// ContextMessage is one message of a session context, in pi's AgentMessage form.
type ContextMessage struct {
	Role    string
	Entry   *Entry          // the entry it came from
	Message *Message        // JSON decoded (nil for a Value)
	JSON    json.RawMessage // the message exactly as pi would hold it (see BuildContext)
	// Value: the entry's message is a string, number, boolean or array, not an object. pi
	// holds it in the context as it is (its role is undefined) and OpenClaw sends it on.
	Value bool
}

// Context is what pi's buildSessionContext returns for a path, plus what an auditor needs to
// explain it.
type Context struct {
	Messages      []ContextMessage
	ThinkingLevel string    // from the last thinking_level_change on the path; "off" if none
	Model         *ModelRef // from the last model_change or assistant message; nil if none
	Path          []*Entry  // the active path, root first
	// Compaction is the last compaction on the path (nil if none). When FirstKeptFound is false
	// its firstKeptEntryId was not on the path before it, so nothing before it was kept.
	Compaction     *Entry
	FirstKeptFound bool
	// Unusable lists message entries whose "message" is not an object: null or absent ones
	// make pi throw (Throws), the others are held as Values. OpenClaw 2026.6.11's file repair
	// drops them all.
	Unusable []*Entry
	// Throws is set when pi's buildSessionContext throws on the path instead of returning a
	// context: it reads message.role of every message entry, so one whose message is null or
	// absent is a TypeError. The fields above are then what an auditor can still tell.
	Throws string

	strict bool // BuildContextStrict
}

// BuildContext builds the session context of an active path (root first, as Index.Path or
// Index.ActivePath give it), as pi's buildSessionContext does (spec transcript §2.9,
// context-and-forensics §1.3–1.4):
//   - thinking_level_change sets the thinking level, model_change and every assistant message
//     set the model, and the last compaction on the path is remembered;
//   - with a compaction, its compactionSummary comes first, then the path entries before it from
//     the one whose id is firstKeptEntryId on, then the entries after it;
//   - message entries give their message, custom_message entries a "custom" message, and
//     branch_summary entries with a non-empty summary a "branchSummary" message; custom, label,
//     session_info, model and thinking changes, and compactions themselves give none.
//
// ContextMessage.JSON of a message entry is the stored message's bytes, untouched; the
// messages pi builds in memory are serialized as JSON.stringify would (pi's key order, raw
// field values copied from the entry, timestamps as epoch milliseconds).
func BuildContext(path []*Entry) Context { return buildContext(path, false) }

// BuildContextStrict is BuildContext as OpenClaw 2026.6.11's agent core builds it: the
// compaction summary, custom and branch summary messages it makes require their entry's
// timestamp to be a string that parses as a date (requireSessionTimestampMs), and it throws
// (Throws) on the first that does not. Earlier releases take new Date(timestamp) as it comes.
func BuildContextStrict(path []*Entry) Context { return buildContext(path, true) }

func buildContext(path []*Entry, strict bool) Context {
	ctx := Context{ThinkingLevel: DefaultThinkingLevel, Path: path, strict: strict}
	compactionIdx := -1
	for i, e := range path {
		switch e.Type {
		case TypeThinkingLevelChange:
			ctx.ThinkingLevel = e.ThinkingLevel
		case TypeModelChange:
			ctx.Model = &ModelRef{Provider: e.Provider, ModelID: e.ModelID}
		case TypeMessage:
			if what, ok := messageThrows(e); ok && ctx.Throws == "" {
				ctx.Throws = fmt.Sprintf("entry %s: its message is %s: pi's buildSessionContext reads message.role and throws (TypeError: Cannot read properties of %s (reading 'role'))", e.ID, what, what)
			}
			if e.Message != nil && e.Message.Role == RoleAssistant {
				ctx.Model = &ModelRef{Provider: e.Message.Provider, ModelID: e.Message.Model}
			}
		case TypeCompaction:
			ctx.Compaction = e
			compactionIdx = i
		}
	}
	if ctx.Compaction == nil {
		for _, e := range path {
			ctx.appendEntry(e)
		}
		return ctx
	}
	c := ctx.Compaction
	// pi finds the compaction's index by type and id: with a duplicated id the first one wins.
	for i, e := range path {
		if e.Type == TypeCompaction && e.ID == c.ID {
			compactionIdx = i
			break
		}
	}
	ctx.add(RoleCompactionSummary, c, compactionSummaryJSON(c))
	for _, e := range path[:compactionIdx] {
		if e.ID == c.FirstKeptEntryID {
			ctx.FirstKeptFound = true
		}
		if ctx.FirstKeptFound {
			ctx.appendEntry(e)
		}
	}
	for _, e := range path[compactionIdx+1:] {
		ctx.appendEntry(e)
	}
	return ctx
}

// BuildContextFrom mirrors pi's buildSessionContext(entries, leafId) over entries in file order
// (header excluded): a nil leafID or an unknown one means the last entry, a pointer to "" is
// taken as pi's explicit null (no messages). The path is walked through parentId using the
// last entry for each id, stopping at a root, an unknown parent or a cycle.
func BuildContextFrom(entries []*Entry, leafID *string) Context {
	if leafID != nil && *leafID == "" {
		return Context{ThinkingLevel: DefaultThinkingLevel}
	}
	byID := make(map[string]*Entry, len(entries))
	for _, e := range entries {
		byID[e.ID] = e
	}
	var leaf *Entry
	if leafID != nil {
		leaf = byID[*leafID]
	}
	if leaf == nil && len(entries) > 0 {
		leaf = entries[len(entries)-1]
	}
	if leaf == nil {
		return Context{ThinkingLevel: DefaultThinkingLevel}
	}
	var rev []*Entry
	seen := map[*Entry]bool{}
	for cur := leaf; cur != nil && !seen[cur]; {
		seen[cur] = true
		rev = append(rev, cur)
		p := cur.Parent()
		if p == "" {
			break
		}
		cur = byID[p]
	}
	path := make([]*Entry, len(rev))
	for i, e := range rev {
		path[len(rev)-1-i] = e
	}
	return BuildContext(path)
}

func (ctx *Context) add(role string, e *Entry, js []byte) {
	if ctx.strict && ctx.Throws == "" && !validSessionTimestamp(e.Raw) {
		label := map[string]string{RoleCustom: "custom message", RoleBranchSummary: "branch summary", RoleCompactionSummary: "compaction summary"}[role]
		ctx.Throws = fmt.Sprintf("entry %s: its timestamp is not a valid date: OpenClaw's agent core throws (%s timestamp must be a valid timestamp)", e.ID, label)
	}
	m := &Message{}
	_ = decodeLenient(js, m)
	ctx.Messages = append(ctx.Messages, ContextMessage{Role: role, Entry: e, Message: m, JSON: js})
}

// messageThrows says whether e is a message entry whose message pi cannot read the role of:
// "null" or "undefined" (absent). A light stand-in (no Raw) says nothing: readers load such
// entries in full (Node.NoMessage).
func messageThrows(e *Entry) (string, bool) {
	if e.Type != TypeMessage || e.Raw == nil {
		return "", false
	}
	raw, ok, _ := GetField(e.Raw, "message")
	switch {
	case !ok:
		return "undefined", true
	case string(raw) == "null":
		return "null", true
	}
	return "", false
}

// appendEntry is pi's appendMessage closure inside buildSessionContext.
func (ctx *Context) appendEntry(e *Entry) {
	switch e.Type {
	case TypeMessage:
		raw, ok, _ := GetField(e.Raw, "message")
		if !ok || len(raw) == 0 || raw[0] != '{' || e.Message == nil {
			ctx.Unusable = append(ctx.Unusable, e)
			if _, throws := messageThrows(e); ok && len(raw) > 0 && !throws {
				ctx.Messages = append(ctx.Messages, ContextMessage{Entry: e, JSON: raw, Value: true})
			}
			return
		}
		ctx.Messages = append(ctx.Messages, ContextMessage{Role: e.Message.Role, Entry: e, Message: e.Message, JSON: raw})
	case TypeCustomMessage:
		ctx.add(RoleCustom, e, customMessageJSON(e))
	case TypeBranchSummary:
		if e.Summary != "" {
			ctx.add(RoleBranchSummary, e, branchSummaryJSON(e))
		}
	}
}

// objWriter writes a JSON object the way JSON.stringify does: members in the order written,
// an undefined (missing) value leaves its key out.
type objWriter struct{ buf bytes.Buffer }

func (w *objWriter) raw(key string, v []byte) {
	if v == nil {
		return
	}
	if w.buf.Len() == 0 {
		w.buf.WriteByte('{')
	} else {
		w.buf.WriteByte(',')
	}
	w.buf.Write(jsonobj.Quote(key))
	w.buf.WriteByte(':')
	w.buf.Write(v)
}

func (w *objWriter) str(key, v string) { w.raw(key, jsonobj.Quote(v)) }

func (w *objWriter) field(key string, line []byte, path string) {
	v, ok, _ := GetField(line, path)
	if ok {
		w.raw(key, compact(v))
	}
}

func (w *objWriter) bytes() []byte {
	if w.buf.Len() == 0 {
		return []byte("{}")
	}
	w.buf.WriteByte('}')
	return w.buf.Bytes()
}

// compact removes insignificant whitespace, as re-serializing a parsed value would.
func compact(v []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return v
	}
	return b.Bytes()
}

// validSessionTimestamp is parseSessionTimestampMs(entry.timestamp) !== undefined: a string,
// not blank, that parses as a date.
func validSessionTimestamp(line []byte) bool {
	raw, ok, _ := GetField(line, "timestamp")
	if !ok || len(raw) == 0 || raw[0] != '"' {
		return false
	}
	s, ok := jsonobj.Unquote(raw)
	return ok && JSTrim(string(s)) != "" && string(entryTimeMillis(line)) != "null"
}

// entryTimeMillis is new Date(entry.timestamp).getTime() as JSON (null for an invalid date).
func entryTimeMillis(line []byte) []byte {
	raw, ok, _ := GetField(line, "timestamp")
	if !ok {
		return []byte("null")
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z07", "2006-01-02"} {
			if t, err := time.Parse(layout, s); err == nil {
				return []byte(strconv.FormatInt(t.UnixMilli(), 10))
			}
		}
		return []byte("null")
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil && math.Abs(f) <= 8.64e15 {
		return []byte(jsNumber(math.Trunc(f)))
	}
	return []byte("null")
}

func compactionSummaryJSON(e *Entry) []byte {
	var w objWriter
	w.str("role", RoleCompactionSummary)
	w.field("summary", e.Raw, "summary")
	w.field("tokensBefore", e.Raw, "tokensBefore")
	w.raw("timestamp", entryTimeMillis(e.Raw))
	return w.bytes()
}

func branchSummaryJSON(e *Entry) []byte {
	var w objWriter
	w.str("role", RoleBranchSummary)
	w.field("summary", e.Raw, "summary")
	w.field("fromId", e.Raw, "fromId")
	w.raw("timestamp", entryTimeMillis(e.Raw))
	return w.bytes()
}

func customMessageJSON(e *Entry) []byte {
	var w objWriter
	w.str("role", RoleCustom)
	w.field("customType", e.Raw, "customType")
	w.field("content", e.Raw, "content")
	w.field("display", e.Raw, "display")
	w.field("details", e.Raw, "details")
	w.raw("timestamp", entryTimeMillis(e.Raw))
	return w.bytes()
}

// ConvertToLLM turns context messages into the messages pi sends to the model (its
// convertToLlm): user, assistant and toolResult pass through unchanged; bashExecution becomes a
// user text (dropped when excludeFromContext is set); custom becomes a user message (a string
// content as one text block); branchSummary and compactionSummary become a user text inside
// their wrapper texts; any other role is dropped. Entry still points at the source entry.
func ConvertToLLM(msgs []ContextMessage) []ContextMessage {
	out := make([]ContextMessage, 0, len(msgs))
	for _, m := range msgs {
		js := m.JSON
		var conv []byte
		switch m.Role {
		case RoleUser, RoleAssistant, RoleToolResult:
			out = append(out, m)
			continue
		case RoleBashExecution:
			if v, ok, _ := GetField(js, "excludeFromContext"); ok && jsTruthy(v) {
				continue
			}
			conv = userText(bashExecutionText(js), js)
		case RoleCustom:
			var w objWriter
			w.str("role", RoleUser)
			if c, ok, _ := GetField(js, "content"); ok {
				if len(c) > 0 && c[0] == '"' {
					var b objWriter
					b.str("type", "text")
					b.raw("text", c)
					conv = append(append([]byte("["), b.bytes()...), ']')
					w.raw("content", conv)
				} else {
					w.raw("content", c)
				}
			}
			w.field("timestamp", js, "timestamp")
			conv = w.bytes()
		case RoleBranchSummary:
			conv = userText(BranchSummaryPrefix+jsConcat(js, "summary")+BranchSummarySuffix, js)
		case RoleCompactionSummary:
			conv = userText(CompactionSummaryPrefix+jsConcat(js, "summary")+CompactionSummarySuffix, js)
		default:
			continue
		}
		msg := &Message{}
		_ = decodeLenient(conv, msg)
		out = append(out, ContextMessage{Role: RoleUser, Entry: m.Entry, Message: msg, JSON: conv})
	}
	return out
}

// userText builds {"role":"user","content":[{"type":"text","text":text}],"timestamp":...}.
func userText(text string, src []byte) []byte {
	var blk objWriter
	blk.str("type", "text")
	blk.str("text", text)
	var w objWriter
	w.str("role", RoleUser)
	w.raw("content", append(append([]byte("["), blk.bytes()...), ']'))
	w.field("timestamp", src, "timestamp")
	return w.bytes()
}

// bashExecutionText is pi's bashExecutionToText.
func bashExecutionText(js []byte) string {
	text := "Ran `" + jsConcat(js, "command") + "`\n"
	if v, ok, _ := GetField(js, "output"); ok && jsTruthy(v) {
		text += "```\n" + jsConcat(js, "output") + "\n```"
	} else {
		text += "(no output)"
	}
	if v, ok, _ := GetField(js, "cancelled"); ok && jsTruthy(v) {
		text += "\n\n(command cancelled)"
	} else if v, ok, _ := GetField(js, "exitCode"); ok && string(v) != "null" && string(v) != "0" {
		if f, err := strconv.ParseFloat(string(v), 64); err != nil || f != 0 {
			text += "\n\nCommand exited with code " + jsConcat(js, "exitCode")
		}
	}
	t, _, _ := GetField(js, "truncated")
	p, _, _ := GetField(js, "fullOutputPath")
	if jsTruthy(t) && jsTruthy(p) {
		text += "\n\n[Output truncated. Full output: " + jsConcat(js, "fullOutputPath") + "]"
	}
	return text
}

// jsTruthy reports whether a raw JSON value is truthy in JavaScript (nil means undefined).
func jsTruthy(v []byte) bool {
	switch s := string(v); s {
	case "", "null", "false", `""`:
		return false
	default:
		if s[0] == '-' || (s[0] >= '0' && s[0] <= '9') {
			f, err := strconv.ParseFloat(s, 64)
			return err != nil || f != 0
		}
		return true
	}
}

// jsConcat is the string JavaScript gives for `${obj[key]}` or "" + obj[key].
func jsConcat(obj []byte, key string) string {
	v, ok, _ := GetField(obj, key)
	if !ok {
		return "undefined"
	}
	switch {
	case v[0] == '"':
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
	case v[0] == '{':
		return "[object Object]"
	case v[0] == '[':
		var parts []json.RawMessage
		if json.Unmarshal(v, &parts) == nil {
			s := ""
			for i, p := range parts {
				if i > 0 {
					s += ","
				}
				if string(p) != "null" {
					s += jsConcat(append(append([]byte(`{"v":`), p...), '}'), "v")
				}
			}
			return s
		}
	case v[0] == '-' || (v[0] >= '0' && v[0] <= '9'):
		if f, err := strconv.ParseFloat(string(v), 64); err == nil {
			return jsNumber(f)
		}
	}
	return string(v) // true, false, null
}

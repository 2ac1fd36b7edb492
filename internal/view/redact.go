package view

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// Redaction keeps only what is known to be structure and replaces everything else (issue 31:
// the first redactor kept "from"/"to", numbers and object keys, and 8 of 11 planted secrets
// leaked). What a member may keep depends on its key:
//
//   - enumerations (entry and block types, roles, stop reasons, APIs, providers, models,
//     tool names, thinking levels, custom types, MIME types): kept when the value looks like
//     an enumeration (letters, digits and ._:/+-, a letter among them, no @), else redacted;
//   - ids (id, parentId, tool call ids, session ids...): kept when they look like an id, else
//     re-mapped to "id#<hash>", the same for the same id, so links between entries stay;
//   - times (timestamp, createdAt, sentAt...): kept when they are a time;
//   - counts and sizes (token usage, costs, versions, lines): numbers kept;
//   - every other string and number becomes its length and a hash (redactor.text), and every
//     object key outside the transcript's own schema becomes "k#<hash>".
//
// Inside tool arguments and results' details and custom data (opaqueKeys) nothing but the
// structure of the value is kept: its keys and values are all replaced.
const (
	keyOther = iota
	keyEnum
	keyID
	keyTime
	keyCount
)

var keyKinds = func() map[string]int {
	m := map[string]int{}
	for _, k := range []string{"type", "role", "stopReason", "api", "provider", "model", "modelId", "modelApi", "toolName",
		"thinkingLevel", "customType", "mimeType", "appendMode", "rule", "status", "deliverySource", "launchMode", "decision",
		"requested", "jsonType", "firstType", "from", "to", "kind", "sev", "severity", "action", "mode", "reason", "format"} {
		m[k] = keyEnum
	}
	for _, k := range []string{"id", "parentId", "toolCallId", "toolUseId", "tool_call_id", "tool_use_id", "callId", "call_id",
		"firstKeptEntryId", "fromId", "targetId", "entryId", "errorEntryId", "promptEntryId", "callEntryId", "turnEndEntryId",
		"messageId", "sessionId", "cliSessionId", "responseId", "turnId", "runId", "leafId"} {
		m[k] = keyID
	}
	for _, k := range []string{"timestamp", "time", "sentAt", "deliveredAt", "turnEnd", "createdAt", "updatedAt", "startedAt", "endedAt"} {
		m[k] = keyTime
	}
	for _, k := range []string{"input", "output", "cacheRead", "cacheWrite", "totalTokens", "total", "tokensBefore", "tokensAfter",
		"version", "line", "errorLine", "count", "bytes", "size", "entries", "lines", "calls", "results", "omitted", "gapMs",
		"heldMs", "ageMs", "index", "seq"} {
		m[k] = keyCount
	}
	return m
}()

// schemaKeys are the keys of the transcript format and of clawdoctor's evidence: a redacted
// page keeps them (their values go by keyKinds). Any other key is the user's and is replaced.
var schemaKeys = func() map[string]bool {
	m := map[string]bool{}
	for k := range keyKinds {
		m[k] = true
	}
	for _, k := range []string{"message", "content", "text", "thinking", "thinkingSignature", "redacted", "data", "arguments",
		"name", "usage", "cost", "details", "isError", "errorMessage", "summary", "display", "label", "cwd", "parentSession",
		"openclawDeliveryMirror", "openclawMessageToolMirror", "partialJson", "input", "output", "args", "command", "cacheRead",
		"evidence", "hint", "detail", "calls", "ids", "entries", "paths", "file", "path", "key", "note", "notes", "source", "target",
		"chars", "preview", "signature", "image", "images", "url", "citations", "metadata", "result", "error", "message_id"} {
		m[k] = true
	}
	return m
}()

// opaqueKeys hold values that are free-form whatever their inner keys: tool arguments and
// details, custom data. Inside them every key, string and number is replaced.
var opaqueKeys = map[string]bool{
	"arguments": true, "input": true, "data": true, "details": true, "partialJson": true,
	"args": true, "output": true, "command": true, "metadata": true,
}

// enumLike is a value an enumeration may have: letters, digits and ._:/+-, at most 100 of
// them, starting with a letter or digit, with a letter among them and no @.
func enumLike(s string) bool {
	if s == "" || len(s) > 100 {
		return false
	}
	letter := false
	for i, c := range []byte(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == ':' || c == '/' || c == '+' || c == '-'):
		default:
			return false
		}
	}
	return letter
}

// idLike is a value an id may have: up to 128 of letters, digits and _:.-, no @, and not a
// run of 7 or more digits alone (a phone number).
func idLike(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	digits := true
	for _, c := range []byte(s) {
		switch {
		case c >= '0' && c <= '9':
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c == ':', c == '.', c == '-':
			digits = false
		default:
			return false
		}
	}
	return !(digits && len(s) >= 7)
}

// timeLike is a value a time may have: an ISO-8601 timestamp.
func timeLike(s string) bool { return isoMillis(s) != 0 }

// id is what a redacted page shows for an id: itself when it looks like one, else a stable
// stand-in, so entries still point at each other.
func (r *redactor) id(s string) string {
	if s == "" || idLike(s) {
		return s
	}
	return "id#" + r.hash(s)
}

// objectKey is what a redacted page shows for an object key outside the schema.
func (r *redactor) objectKey(k string) string { return "k#" + r.hash(k) }

// redactValue returns v redacted (see the rules above); key is the member v is the value of
// ("" for an array element or the top), opaque is set inside free-form data.
func (r *redactor) redactValue(v any, opaque bool) any { return r.value(v, "", opaque, false) }

func (r *redactor) value(v any, key string, opaque, toolBlock bool) any {
	switch x := v.(type) {
	case string:
		if !opaque {
			switch keyKinds[key] {
			case keyEnum:
				if enumLike(x) {
					return x
				}
			case keyID:
				return r.id(x)
			case keyTime:
				if timeLike(x) {
					return x
				}
			}
			if key == "name" && toolBlock && enumLike(x) {
				return x // the tool's name
			}
		}
		return r.text(x)
	case json.Number:
		if !opaque && (keyKinds[key] == keyCount || keyKinds[key] == keyTime) {
			return x
		}
		return r.text(x.String())
	case float64:
		if !opaque && (keyKinds[key] == keyCount || keyKinds[key] == keyTime) {
			return x
		}
		return r.text(strconv.FormatFloat(x, 'g', -1, 64))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = r.value(e, key, opaque, false)
		}
		return out
	case map[string]any:
		tb := false
		if t, ok := x["type"].(string); ok {
			switch t {
			case "toolCall", "toolUse", "functionCall", "tool_use", "tool_call", "function_call":
				tb = true
			}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			inner := opaque || opaqueKeys[k]
			name := k
			if opaque || !schemaKeys[k] {
				name = r.objectKey(k)
			}
			out[name] = r.value(e, k, inner, tb)
		}
		return out
	}
	return v
}

// redactJSON redacts a JSON document (see redactValue); a document that does not parse
// becomes one redacted text.
func (r *redactor) redactJSON(b []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return []byte(`"` + r.text(string(b)) + `"`)
	}
	out, err := marshal(r.redactValue(v, false))
	if err != nil {
		return []byte(`"` + r.text(string(b)) + `"`)
	}
	return out
}

// marshal is json.Marshal without HTML escaping (the page never parses data as HTML).
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// sessionKeyWords are the parts of an OpenClaw session key that name structure (agent,
// channel, chat type), not people.
var sessionKeyWords = map[string]bool{
	"agent": true, "main": true, "cron": true, "run": true, "runs": true, "direct": true,
	"dm": true, "group": true, "channel": true, "thread": true, "topic": true, "subagent": true,
	"telegram": true, "discord": true, "slack": true, "whatsapp": true, "signal": true,
	"imessage": true, "webchat": true, "matrix": true, "msteams": true, "line": true,
	"googlechat": true, "email": true, "sms": true, "hook": true, "heartbeat": true,
	"isolated": true, "probe": true, "model": true, "acp": true, "global": true, "unknown": true,
}

// sessionKey redacts a session key part by part: known words stay, anything else (a phone number, a
// chat id, a user name) becomes a hash, so "agent:main:telegram:direct:12345" stays readable.
func (r *redactor) sessionKey(k string) string {
	parts := strings.Split(k, ":")
	for i, p := range parts {
		if i == 1 && parts[0] == "agent" {
			continue // the agent id
		}
		if !sessionKeyWords[strings.ToLower(p)] {
			parts[i] = "#" + r.hash(p)
		}
	}
	return strings.Join(parts, ":")
}

// pathWords are the parts of a path that name OpenClaw's layout, not a person's files.
var pathWords = map[string]bool{
	"agents": true, "sessions": true, "agent": true, ".": true, "..": true, "sessions.json": true,
	"openclaw.json": true, "openclaw-agent.sqlite": true, "session-sqlite-import-archive": true,
	"cold": true, ".openclaw": true,
}

// pathExts are the name endings a redacted file name keeps, so its kind stays readable.
var pathExts = []string{".jsonl.lock", ".jsonl.zst", ".jsonl.gz", ".jsonl", ".json", ".sqlite", ".lock", ".zst", ".gz", ".log"}

// path redacts a file path part by part: OpenClaw's own names stay, every other part (a user's
// file or directory name, the home directory) becomes a hash that keeps the part's ending.
func (r *redactor) path(p string) string {
	parts := strings.Split(strings.ReplaceAll(p, `\`, "/"), "/")
	for i, s := range parts {
		if s == "" || pathWords[s] || (i > 0 && parts[i-1] == "agents") { // an agent id stays, as in session keys
			continue
		}
		ext := ""
		for _, e := range pathExts {
			if strings.HasSuffix(s, e) && len(s) > len(e) {
				ext = e
				break
			}
		}
		parts[i] = "#" + r.hash(s) + ext
	}
	return strings.Join(parts, "/")
}

// enum is what a redacted page shows for an enumeration-like value (a type, a role, a tool or
// model name): itself when it looks like one, else its length and hash.
func (r *redactor) enum(s string) string {
	if s == "" || enumLike(s) {
		return s
	}
	return r.text(s)
}

// sessionIDs redacts, once a session page's data is built (the builder looks entries up by
// their real ids), the ids and names it shows that are not texts: entry, parent, tool call,
// result and first-kept ids, label and leaf targets (re-mapped by id), and roles, types, tool,
// block, model and stop-reason names (kept only when they look like names).
func (r *redactor) sessionIDs(d *sessionData) {
	if d.Header != nil {
		d.Header.ID = r.id(d.Header.ID)
	}
	d.Title = r.id(d.Title)
	for i := range d.Entries {
		e := &d.Entries[i]
		e.ID, e.PID = r.id(e.ID), r.id(e.PID)
		e.T, e.R, e.St = r.enum(e.T), r.enum(e.R), r.enum(e.St)
		if e.T == "label" || e.T == "leaf" {
			e.In = r.id(e.In)
		} else {
			e.In = r.enum(e.In)
		}
		if e.C != nil {
			e.C.FirstKept = r.id(e.C.FirstKept)
		}
		if e.TR != nil {
			e.TR.ID, e.TR.Tool = r.id(e.TR.ID), r.enum(e.TR.Tool)
		}
		for j := range e.B {
			e.B[j].ID, e.B[j].Nm = r.id(e.B[j].ID), r.enum(e.B[j].Nm)
		}
	}
	for i, m := range d.Models {
		p, mod, _ := strings.Cut(m, "/")
		d.Models[i] = r.enum(p) + "/" + r.enum(mod)
	}
}

package view

import (
	"bytes"
	"encoding/json"
	"strings"
)

// structuralKeys name JSON members whose string values are ids, names of things or
// enumerations, never free text: a redacted page keeps them so its structure stays readable.
var structuralKeys = map[string]bool{
	"id": true, "parentId": true, "type": true, "role": true, "timestamp": true,
	"provider": true, "model": true, "modelId": true, "api": true, "stopReason": true,
	"toolCallId": true, "toolUseId": true, "tool_call_id": true, "tool_use_id": true,
	"callId": true, "call_id": true, "toolName": true, "customType": true,
	"thinkingLevel": true, "mimeType": true, "firstKeptEntryId": true, "fromId": true,
	"targetId": true, "appendMode": true,
	// evidence of audit findings
	"rule": true, "entryId": true, "errorEntryId": true, "promptEntryId": true,
	"callEntryId": true, "turnEndEntryId": true, "messageId": true, "sessionId": true,
	"cliSessionId": true, "status": true, "deliverySource": true, "from": true, "to": true,
	"sentAt": true, "deliveredAt": true, "turnEnd": true, "time": true, "jsonType": true,
	"firstType": true, "launchMode": true, "decision": true, "requested": true,
}

// opaqueKeys hold values that are free-form whatever their inner keys: tool arguments and
// custom data. Inside them every string is a text.
var opaqueKeys = map[string]bool{
	"arguments": true, "input": true, "data": true, "details": true, "partialJson": true,
	"args": true, "output": true, "command": true,
}

// redactValue returns v with every string that is not under a structural key replaced by
// r.text. Object keys and numbers stay: they are the structure. A "name" is kept only in a
// tool-call block, where it is the tool's name.
func (r *redactor) redactValue(v any, opaque bool) any {
	switch x := v.(type) {
	case string:
		return r.text(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = r.redactValue(e, opaque)
		}
		return out
	case map[string]any:
		toolBlock := false
		if t, ok := x["type"].(string); ok {
			switch t {
			case "toolCall", "toolUse", "functionCall", "tool_use", "tool_call", "function_call":
				toolBlock = true
			}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			s, isStr := e.(string)
			switch {
			case opaque || opaqueKeys[k]:
				out[k] = r.redactValue(e, true)
			case isStr && (structuralKeys[k] || (k == "name" && toolBlock)):
				out[k] = s
			default:
				out[k] = r.redactValue(e, false)
			}
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

// Package hygiene holds OpenClaw's provider transcript policy (spec transcript.md §5) and the
// in-memory sanitizers of its replay pipeline (§4, §6): each one is a pure function that takes
// a message list and returns a new list plus a Step saying what it changed. Inputs are never
// mutated; nothing here touches a file.
//
// Messages are pi-format AgentMessages held as generic JSON objects (map[string]any decoded
// with UseNumber), so every field OpenClaw does not know survives to the output, and the
// sanitizers can follow the loose JavaScript shapes they were written for.
package hygiene

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
)

// Message is one pi-format message as a JSON object.
type Message = map[string]any

// RefKey is a private key holding where a message came from (an entry id, "synthetic", ...).
// It is never sent: Strip removes it.
const RefKey = "\x00ref"

// Step says what one sanitizer changed.
type Step struct {
	Name    string   `json:"step"`
	Changed int      `json:"changed"`
	Details []string `json:"details"`
}

func (s *Step) note(format string, args ...any) {
	s.Changed++
	s.Details = append(s.Details, fmt.Sprintf(format, args...))
}

// Decode decodes one JSON object as a Message, keeping numbers exact (jsonobj.DecodeJS).
// Ill-formed UTF-8 becomes U+FFFD as Node reads the file (one per maximal subpart), not one
// per byte as encoding/json would make it, and a lone surrogate escape stays a code unit of
// its own (its three-byte form), so tool call ids compare as OpenClaw compares them: a call
// "\ud800" is not answered by a result "\ud801" or "\ufffd".
func Decode(b []byte) (Message, error) {
	v, err := jsonobj.DecodeJS(b)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("message is not an object")
	}
	return m, nil
}

// Ref returns where m came from, for step details.
func Ref(m Message) string {
	if s, ok := m[RefKey].(string); ok && s != "" {
		return s
	}
	return "?"
}

// Strip returns a copy of msgs without the private RefKey, ready to encode.
func Strip(msgs []Message) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		if _, ok := m[RefKey]; !ok {
			out[i] = m
			continue
		}
		c := clone(m)
		delete(c, RefKey)
		out[i] = c
	}
	return out
}

// Role returns m's role.
func Role(m Message) string { s, _ := m["role"].(string); return s }

// Blocks returns m's content when it is an array.
func Blocks(m Message) ([]any, bool) {
	b, ok := m["content"].([]any)
	return b, ok
}

// Str returns obj[key] when it is a string.
func Str(obj map[string]any, key string) (string, bool) {
	s, ok := obj[key].(string)
	return s, ok
}

// Num returns obj[key] as a number (json.Number or float64), and whether it was one.
func Num(obj map[string]any, key string) (float64, bool) {
	switch v := obj[key].(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		return f, err == nil
	case float64:
		return v, true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	}
	return 0, false
}

// Block returns v as a content block object.
func Block(v any) (map[string]any, bool) {
	b, ok := v.(map[string]any)
	return b, ok
}

func clone(m map[string]any) map[string]any {
	c := make(map[string]any, len(m)+1)
	for k, v := range m {
		c[k] = v
	}
	return c
}

// withContent returns a copy of m with content replaced.
func withContent(m Message, content any) Message {
	c := clone(m)
	c["content"] = content
	return c
}

// pairingCallTypes are the tool-call block types pairing and id code recognise.
var pairingCallTypes = map[string]bool{"toolCall": true, "toolUse": true, "functionCall": true}

// ToolCall is one tool call of an assistant as pairing sees it.
type ToolCall struct {
	ID, Name string
	HasName  bool // name was a string
}

// toolCalls is extractToolCallsFromAssistant: blocks typed toolCall, toolUse or functionCall
// with a non-empty string id.
func toolCalls(m Message) []ToolCall {
	bl, _ := m["content"].([]any)
	var out []ToolCall
	for _, v := range bl {
		b, ok := v.(map[string]any)
		if !ok {
			continue
		}
		id, ok := b["id"].(string)
		if !ok || id == "" || !pairingCallTypes[str(b["type"])] {
			continue
		}
		name, hasName := b["name"].(string)
		out = append(out, ToolCall{ID: id, Name: name, HasName: hasName})
	}
	return out
}

// ToolCalls returns the tool calls of an assistant message that pairing recognises.
func ToolCalls(m Message) []ToolCall {
	if Role(m) != "assistant" {
		return nil
	}
	return toolCalls(m)
}

// resultID is extractToolResultId of release r: from 2026.6.11 the first non-empty trimmed
// value of toolCallId, toolUseId, tool_call_id, tool_use_id, callId, call_id; before, a
// non-empty toolCallId, else toolUseId.
func resultID(m Message, r Release) string {
	if ids := resultIDs(m); r.atLeast(Release20260611) {
		if len(ids) > 0 {
			return ids[0]
		}
		return ""
	}
	for _, k := range []string{"toolCallId", "toolUseId"} {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// resultIDs is extractToolResultIds.
func resultIDs(m Message) []string {
	var ids []string
	for _, k := range resultIDFields {
		s, ok := m[k].(string)
		if !ok {
			continue
		}
		if id := jsTrim(s); id != "" && !isOneOf(id, ids) {
			ids = append(ids, id)
		}
	}
	return ids
}

// ResultID returns the tool-call id a toolResult answers (as OpenClaw 2026.6.11 reads it).
func ResultID(m Message) string { return resultID(m, DefaultRelease) }

// same reports whether a and b are the same message object (OpenClaw's sanitizers return the
// very object they were given when they change nothing).
func same(a, b Message) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// StopReason returns an assistant's stopReason.
func StopReason(m Message) string { s, _ := Str(m, "stopReason"); return s }

// failed reports an assistant whose stopReason is error or aborted.
func failed(m Message) bool {
	r := StopReason(m)
	return r == "error" || r == "aborted"
}

// TextOf returns the concatenated text of a message's string content or text blocks.
func TextOf(m Message) string {
	if s, ok := m["content"].(string); ok {
		return s
	}
	bl, _ := Blocks(m)
	var sb strings.Builder
	for _, v := range bl {
		if b, ok := Block(v); ok {
			if t, _ := Str(b, "type"); t == "text" {
				s, _ := Str(b, "text")
				sb.WriteString(s)
			}
		}
	}
	return sb.String()
}

// Stringify is JSON.stringify for what pi measures and prints: no HTML escaping, no trailing
// newline, and "" for a missing value.
func Stringify(v any) string {
	if v == nil {
		return ""
	}
	b, err := jsonobj.MarshalJS(v, false)
	if err != nil {
		return ""
	}
	return string(b)
}

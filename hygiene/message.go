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
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
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

// Decode decodes one JSON object as a Message, keeping numbers exact.
func Decode(b []byte) (Message, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m Message
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
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

// pairingCallTypes are the tool-call block types pairing and id code recognise (§4.1).
var pairingCallTypes = map[string]bool{"toolCall": true, "toolUse": true, "functionCall": true}

// pairingCall returns v as a tool-call block that pairing recognises (a pairingCallTypes type
// and a non-empty string id) and its id; ok is false for any other value.
func pairingCall(v any) (b map[string]any, id string, ok bool) {
	b, ok = Block(v)
	t, _ := Str(b, "type")
	id, _ = Str(b, "id")
	return b, id, ok && pairingCallTypes[t] && id != ""
}

// rawCallTypes are all tool-call spellings the input check looks at (§4.1).
var rawCallTypes = map[string]bool{"toolCall": true, "toolUse": true, "functionCall": true,
	"tool_use": true, "tool_call": true, "function_call": true}

// ToolCall is one tool call of an assistant as pairing sees it.
type ToolCall struct {
	ID, Name string
}

// ToolCalls returns the tool calls of an assistant message that pairing recognises: blocks
// typed toolCall, toolUse or functionCall with a non-empty string id.
func ToolCalls(m Message) []ToolCall {
	if Role(m) != "assistant" {
		return nil
	}
	bl, _ := Blocks(m)
	var out []ToolCall
	for _, v := range bl {
		b, id, ok := pairingCall(v)
		if !ok {
			continue
		}
		name, _ := Str(b, "name")
		out = append(out, ToolCall{ID: id, Name: name})
	}
	return out
}

// ResultID returns the id a toolResult answers. The classic code reads toolCallId then
// toolUseId; newest reads more spellings, trimmed.
func ResultID(m Message, newest bool) string {
	keys := []string{"toolCallId", "toolUseId"}
	if newest {
		keys = append(keys, "tool_call_id", "tool_use_id", "callId", "call_id")
	}
	for _, k := range keys {
		if s, ok := Str(m, k); ok {
			if newest {
				s = strings.TrimSpace(s)
			}
			if s != "" {
				return s
			}
		}
	}
	return ""
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
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return ""
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

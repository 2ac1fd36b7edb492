package session

import (
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
)

// Roles of AgentMessages (spec §2.5).
const (
	RoleUser              = "user"
	RoleAssistant         = "assistant"
	RoleToolResult        = "toolResult"
	RoleSystem            = "system"
	RoleBashExecution     = "bashExecution"
	RoleCustom            = "custom"
	RoleBranchSummary     = "branchSummary"
	RoleCompactionSummary = "compactionSummary"
	RoleHookMessage       = "hookMessage" // v2 name of RoleCustom
)

// Stop reasons of assistant messages (spec §2.7).
const (
	StopStop    = "stop"
	StopLength  = "length"
	StopToolUse = "toolUse"
	StopError   = "error"
	StopAborted = "aborted"
)

// pairingToolCallTypes are the block types the pairing code and the code-mode repair treat as
// tool calls (spec §4.1): fewer than the input check recognizes.
var pairingToolCallTypes = map[string]bool{"toolCall": true, "toolUse": true, "functionCall": true}

// IsPairingToolCall reports whether b is a tool call for result pairing: typed toolCall,
// toolUse or functionCall with a non-blank id (spec §4.1).
func (b *Block) IsPairingToolCall() bool {
	return pairingToolCallTypes[b.Type] && !IsBlank(b.ID)
}

// IsText reports whether b is a text block.
func (b *Block) IsText() bool { return b.Type == "text" }

// HasStringText reports whether b's "text" field is a JSON string (as opposed to missing or
// another type). OpenClaw's blank-user repair only removes text blocks whose text is a string.
func (b *Block) HasStringText() bool {
	if b.Raw == nil {
		return b.Type == "text"
	}
	v, ok, _ := GetField(b.Raw, "text")
	return ok && len(v) > 0 && v[0] == '"'
}

// AnySignature returns a thinking block's signature from any of its spellings
// (thinkingSignature, signature, thought_signature, thoughtSignature; spec §2.6), or "".
func (b *Block) AnySignature() string {
	for _, s := range []string{b.ThinkingSignature, b.Signature, b.ThoughtSignatureAlt, b.ThoughtSignature} {
		if s != "" {
			return s
		}
	}
	return ""
}

// AnyID returns a tool-call block's id from any of the spellings the newest input check reads
// (id, call_id, toolCallId, toolUseId, tool_call_id, tool_use_id; spec §4.2), trimmed, or "".
func (b *Block) AnyID() string {
	if t := JSTrim(b.ID); t != "" {
		return t
	}
	for _, k := range []string{"call_id", "toolCallId", "toolUseId", "tool_call_id", "tool_use_id"} {
		if v, ok, _ := GetField(b.Raw, k); ok {
			if s, ok := jsonobj.UnquoteJS(v); ok {
				if t := JSTrim(string(s)); t != "" {
					return t
				}
			}
		}
	}
	return ""
}

// Args returns the tool-call arguments: "arguments", or "input" for the legacy spellings.
func (b *Block) Args() []byte {
	if len(b.Arguments) > 0 {
		return b.Arguments
	}
	return b.Input
}

// ToolCalls returns the tool-call blocks of an assistant message in all six spellings of
// spec §4.1 (toolCall, toolUse, functionCall, tool_use, tool_call, function_call). It returns
// nil for other roles or a content that is not an array.
func (m *Message) ToolCalls() []Block {
	if m == nil || m.Role != RoleAssistant {
		return nil
	}
	var out []Block
	for _, b := range m.Content.Blocks {
		if b.IsToolCall() {
			out = append(out, b)
		}
	}
	return out
}

// PairingToolCalls returns the tool calls that take part in result pairing (IsPairingToolCall).
func (m *Message) PairingToolCalls() []Block {
	if m == nil || m.Role != RoleAssistant {
		return nil
	}
	var out []Block
	for _, b := range m.Content.Blocks {
		if b.IsPairingToolCall() {
			out = append(out, b)
		}
	}
	return out
}

// Text returns the text of a message: a string content as is, or the text blocks joined by a
// space (as pi's extractTextContent does). Other blocks are ignored.
func (m *Message) Text() string {
	if m == nil {
		return ""
	}
	if m.Content.IsText {
		return m.Content.Text
	}
	var parts []string
	for _, b := range m.Content.Blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, " ")
}

// IsEmptyErrorTurn reports whether m is an assistant turn that failed before producing content:
// role assistant, content an empty array, stopReason "error" (spec §3.4). OpenClaw rewrites
// such turns to StreamErrorFallbackText. An empty "stop" turn (a silent reply) is not one.
func (m *Message) IsEmptyErrorTurn() bool {
	return m != nil && m.Role == RoleAssistant && m.StopReason == StopError &&
		m.Content.IsArray() && len(m.Content.Blocks) == 0
}

// IsBlankUser reports whether m is a user turn that OpenClaw's blank-user repair turns into
// "(continue)": a string content that is blank, or an array content that holds nothing once
// the text blocks with blank string text are removed (an empty array included). Any other
// content shape (missing, object, number) is not blank.
func (m *Message) IsBlankUser() bool {
	if m == nil || m.Role != RoleUser {
		return false
	}
	switch {
	case m.Content.IsText:
		return IsBlank(m.Content.Text)
	case m.Content.IsArray():
		for i := range m.Content.Blocks {
			if !m.Content.Blocks[i].isBlankText() {
				return false
			}
		}
		return true
	}
	return false
}

// BlankTextBlocks returns how many blocks of a user turn's array content the blank-user repair
// would remove (text blocks whose text is a blank string).
func (m *Message) BlankTextBlocks() int {
	if m == nil || !m.Content.IsArray() {
		return 0
	}
	n := 0
	for i := range m.Content.Blocks {
		if m.Content.Blocks[i].isBlankText() {
			n++
		}
	}
	return n
}

func (b *Block) isBlankText() bool {
	return b.Type == "text" && b.HasStringText() && IsBlank(b.Text)
}

// Constants OpenClaw writes into repaired transcripts (spec §3.3, §10).
const (
	BlankUserFallbackText   = "(continue)"
	StreamErrorFallbackText = "[assistant turn failed before producing content]"
)

// Package session is the transcript data model: the header, the tree entries (message, custom,
// compaction, ...), messages and content blocks. Decoding is tolerant: unknown fields survive,
// unknown entry types become TypeUnknown, and each Entry keeps the exact bytes of its line so a
// line nobody changes is written back byte-for-byte.
package session

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
)

// Entry types of the pi v3 session format (spec transcript.md §2.4).
const (
	TypeSession             = "session" // the header line
	TypeMessage             = "message"
	TypeCustom              = "custom"
	TypeCustomMessage       = "custom_message"
	TypeCompaction          = "compaction"
	TypeBranchSummary       = "branch_summary"
	TypeModelChange         = "model_change"
	TypeThinkingLevelChange = "thinking_level_change"
	TypeLabel               = "label"
	TypeSessionInfo         = "session_info"
	TypeLeaf                = "leaf"
	TypeUnknown             = "" // Entry.Kind for any other type
)

// KnownTypes lists the entry types this package decodes (the header excluded).
var KnownTypes = []string{TypeMessage, TypeCustom, TypeCustomMessage, TypeCompaction,
	TypeBranchSummary, TypeModelChange, TypeThinkingLevelChange, TypeLabel, TypeSessionInfo, TypeLeaf}

// Header is the first line of a transcript.
type Header struct {
	Type          string `json:"type"`
	Version       *int   `json:"version,omitempty"`
	ID            string `json:"id"`
	Timestamp     string `json:"timestamp"`
	Cwd           string `json:"cwd"`
	ParentSession string `json:"parentSession,omitempty"`
	Raw           []byte `json:"-"` // the exact line
}

// Entry is one non-header line. Fields not listed here stay in Raw.
type Entry struct {
	Type       string   `json:"type"`
	ID         string   `json:"id"`
	ParentID   *string  `json:"parentId"` // nil for null or absent; see HasParentField
	Timestamp  string   `json:"timestamp"`
	Message    *Message `json:"message,omitempty"`
	AppendMode string   `json:"appendMode,omitempty"`

	// compaction
	Summary          string   `json:"summary,omitempty"`
	FirstKeptEntryID string   `json:"firstKeptEntryId,omitempty"`
	TokensBefore     *float64 `json:"tokensBefore,omitempty"`
	FromHook         bool     `json:"fromHook,omitempty"`
	// branch_summary
	FromID string `json:"fromId,omitempty"`
	// custom, custom_message
	CustomType string          `json:"customType,omitempty"`
	Data       json.RawMessage `json:"data,omitempty"`
	Content    json.RawMessage `json:"content,omitempty"` // custom_message: string or blocks
	Display    *bool           `json:"display,omitempty"`
	Details    json.RawMessage `json:"details,omitempty"`
	// model_change
	Provider string `json:"provider,omitempty"`
	ModelID  string `json:"modelId,omitempty"`
	// thinking_level_change
	ThinkingLevel string `json:"thinkingLevel,omitempty"`
	// label, leaf
	TargetID       *string `json:"targetId,omitempty"`
	Label          *string `json:"label,omitempty"`
	AppendParentID *string `json:"appendParentId,omitempty"`
	// session_info
	Name string `json:"name,omitempty"`

	Raw []byte `json:"-"` // the exact line, without its terminator
}

// HasParentField reports whether the line has a top-level "parentId" key (of any value).
func (e *Entry) HasParentField() bool {
	_, ok, _ := GetField(e.Raw, "parentId")
	return ok
}

// Parent returns the parent id, or "" for a root.
func (e *Entry) Parent() string {
	if e.ParentID == nil {
		return ""
	}
	return *e.ParentID
}

// Kind returns e's type when it is a known one, and TypeUnknown otherwise.
func (e *Entry) Kind() string {
	if e.Known() {
		return e.Type
	}
	return TypeUnknown
}

// Known reports whether e's type is one this package understands.
func (e *Entry) Known() bool {
	for _, t := range KnownTypes {
		if e.Type == t {
			return true
		}
	}
	return false
}

// Message is an AgentMessage (spec §2.5). Unknown fields stay in the entry's Raw.
type Message struct {
	Role         string          `json:"role"`
	Content      Content         `json:"content"`
	Timestamp    json.RawMessage `json:"timestamp,omitempty"` // ms number (sometimes a string)
	API          string          `json:"api,omitempty"`
	Provider     string          `json:"provider,omitempty"`
	Model        string          `json:"model,omitempty"`
	Usage        *Usage          `json:"usage,omitempty"`
	StopReason   string          `json:"stopReason,omitempty"`
	ErrorMessage string          `json:"errorMessage,omitempty"`
	// toolResult
	ToolCallID string          `json:"toolCallId,omitempty"`
	ToolName   string          `json:"toolName,omitempty"`
	IsError    bool            `json:"isError,omitempty"`
	Details    json.RawMessage `json:"details,omitempty"`
	// legacy id spellings of toolCallId that repair code also reads
	ToolUseID     string `json:"toolUseId,omitempty"`
	ToolCallIDAlt string `json:"tool_call_id,omitempty"`
	ToolUseIDAlt  string `json:"tool_use_id,omitempty"`
	CallID        string `json:"callId,omitempty"`
	CallIDAlt     string `json:"call_id,omitempty"`
	// custom role, bashExecution
	CustomType         string          `json:"customType,omitempty"`
	Display            *bool           `json:"display,omitempty"`
	Provenance         json.RawMessage `json:"provenance,omitempty"`
	Command            string          `json:"command,omitempty"`
	Output             string          `json:"output,omitempty"`
	ExitCode           *float64        `json:"exitCode,omitempty"`
	Cancelled          bool            `json:"cancelled,omitempty"`
	Truncated          bool            `json:"truncated,omitempty"`
	FullOutputPath     string          `json:"fullOutputPath,omitempty"`
	ExcludeFromContext bool            `json:"excludeFromContext,omitempty"`
	// branchSummary, compactionSummary (built in memory by BuildContext, never stored)
	Summary      string   `json:"summary,omitempty"`
	FromID       string   `json:"fromId,omitempty"`
	TokensBefore *float64 `json:"tokensBefore,omitempty"`
}

// ResultID returns the tool-call id a toolResult answers: the first non-blank value among
// toolCallId, toolUseId, tool_call_id, tool_use_id, callId and call_id, trimmed (spec §4.1,
// newest extraction).
func (m *Message) ResultID() string {
	for _, s := range []string{m.ToolCallID, m.ToolUseID, m.ToolCallIDAlt, m.ToolUseIDAlt, m.CallID, m.CallIDAlt} {
		if t := JSTrim(s); t != "" {
			return t
		}
	}
	return ""
}

// Usage is the token usage of an assistant message (spec §2.7).
type Usage struct {
	Input       float64 `json:"input"`
	Output      float64 `json:"output"`
	CacheRead   float64 `json:"cacheRead"`
	CacheWrite  float64 `json:"cacheWrite"`
	TotalTokens float64 `json:"totalTokens"`
	Cost        *Cost   `json:"cost,omitempty"`
}

// Cost is the money cost of an assistant message, per token kind.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// Content is a message's content: a plain string or a list of blocks.
type Content struct {
	Text   string  // set when the content was a JSON string
	Blocks []Block // set when it was an array; an element that is not an object has only Raw
	IsText bool    // the content was a string
	Null   bool    // absent or null
	// Raw is the content's exact bytes as read (nil for a Content built in code). A content of
	// any other shape (an object, a number) keeps only Raw.
	Raw json.RawMessage
}

// IsArray reports whether the content is a JSON array (possibly empty).
func (c *Content) IsArray() bool {
	if c.Raw != nil {
		return len(c.Raw) > 0 && c.Raw[0] == '['
	}
	return !c.IsText && !c.Null && c.Blocks != nil
}

// UnmarshalJSON accepts a string, an array of blocks, or null. Any other shape is kept in Raw
// without an error, and an array element that does not decode as a block is kept as a Block
// with only Raw set: decoding is tolerant.
func (c *Content) UnmarshalJSON(b []byte) error {
	return c.decode(append([]byte(nil), b...))
}

// decode is UnmarshalJSON on memory the Content may keep: Raw and the blocks' Raw alias b.
func (c *Content) decode(b []byte) error {
	b = trimWS(b)
	*c = Content{Raw: b}
	switch {
	case len(b) == 0 || string(b) == "null":
		c.Null = true
		return nil
	case b[0] == '"':
		c.IsText = true
		if s, ok := jsonobj.Unquote(b); ok {
			c.Text = string(s)
			return nil
		}
		return json.Unmarshal(b, &c.Text)
	case b[0] == '[':
		c.Blocks = []Block{}
		_, err := eachElement(b, 0, func(_ int, v span) bool {
			var blk Block
			if blk.decode(b[v.start:v.end]) != nil {
				blk = Block{Raw: b[v.start:v.end]}
			}
			c.Blocks = append(c.Blocks, blk)
			return true
		})
		return err
	}
	return nil
}

// MarshalJSON writes the content back in the form it was read: decoded blocks as their raw
// bytes, a string as JSON.stringify writes it, any other shape as its raw bytes. Marshal it
// with an Encoder that has SetEscapeHTML(false), or call MarshalJSON directly: encoding/json
// escapes <, > and & in a Marshaler's output otherwise.
func (c Content) MarshalJSON() ([]byte, error) {
	switch {
	case c.Null:
		return []byte("null"), nil
	case c.IsText:
		return jsonobj.Quote(c.Text), nil
	case c.Blocks == nil && c.Raw != nil:
		return c.Raw, nil
	}
	out := []byte{'['}
	for i, b := range c.Blocks {
		if i > 0 {
			out = append(out, ',')
		}
		bb, err := b.MarshalJSON()
		if err != nil {
			return nil, err
		}
		out = append(out, bb...)
	}
	return append(out, ']'), nil
}

// Block is one content block (spec §2.6): text, thinking, image, toolCall, or a legacy/foreign
// shape. Raw keeps the block's exact bytes.
type Block struct {
	Type              string          `json:"type"`
	Text              string          `json:"text,omitempty"`
	TextSignature     string          `json:"textSignature,omitempty"`
	Thinking          string          `json:"thinking,omitempty"`
	ThinkingSignature string          `json:"thinkingSignature,omitempty"`
	Signature         string          `json:"signature,omitempty"`
	Redacted          bool            `json:"redacted,omitempty"`
	Data              string          `json:"data,omitempty"` // image base64, redacted_thinking
	MimeType          string          `json:"mimeType,omitempty"`
	ID                string          `json:"id,omitempty"`
	Name              string          `json:"name,omitempty"`
	Arguments         json.RawMessage `json:"arguments,omitempty"`
	Input             json.RawMessage `json:"input,omitempty"`
	ThoughtSignature  string          `json:"thoughtSignature,omitempty"`
	// ThoughtSignatureAlt is the snake_case spelling some providers' thinking blocks use.
	ThoughtSignatureAlt string          `json:"thought_signature,omitempty"`
	PartialJSON         string          `json:"partialJson,omitempty"`
	Raw                 json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes a block and keeps its raw bytes. A field of an unexpected type is
// left at its zero value instead of failing the block; a block that is not an object is an
// error (Content keeps it as a Block with only Raw).
func (b *Block) UnmarshalJSON(data []byte) error {
	return b.decode(append([]byte(nil), data...))
}

// decode is UnmarshalJSON on memory the Block may keep (Raw and raw fields alias data).
func (b *Block) decode(data []byte) error {
	data = trimWS(data)
	if len(data) == 0 || data[0] != '{' {
		return fmt.Errorf("content block: %w", ErrNotObject)
	}
	type plain Block
	var p plain
	if err := decodeLenient(data, &p); err != nil {
		return err
	}
	*b = Block(p)
	b.Raw = data
	return nil
}

// MarshalJSON writes the raw bytes when the block was decoded and not rebuilt; a block built
// in code is encoded without HTML escaping.
func (b Block) MarshalJSON() ([]byte, error) {
	if b.Raw != nil {
		return b.Raw, nil
	}
	type plain Block
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(plain(b)); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// toolCallTypes are the block types OpenClaw's repair code treats as tool calls (spec §4.1).
var toolCallTypes = map[string]bool{"toolCall": true, "toolUse": true, "functionCall": true,
	"tool_use": true, "tool_call": true, "function_call": true}

// IsToolCall reports whether b is a tool-call block in any of its spellings.
func (b *Block) IsToolCall() bool { return toolCallTypes[b.Type] }

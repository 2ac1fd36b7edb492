// Package mutate makes transcripts for differential tests against the real OpenClaw: a
// provider × feature matrix of well-formed sessions (Matrix), content blocks of every kind a
// transcript holds, well-formed and broken (Blocks), and seeded mutations of any transcript
// (Generate): byte flips, truncations, deleted, duplicated and swapped lines, spliced blocks,
// the byte-level damage crashes leave (BOM, CRLF, NUL runs, glued and torn lines) and JSON
// that is valid but not as JSON.stringify writes it. Everything is deterministic by seed, so a
// mutation is named by its seed and index and can be made again without storing it.
//
// Lines are written as OpenClaw writes them (JSON.stringify, key order of pi's entries), so an
// untouched line is byte-identical to what the real program would write back.
package mutate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
)

// Provider is one provider/api/model triple assistant turns are written for.
type Provider struct {
	Name, API, Provider, Model string
}

// Providers are the providers of the matrix: the seven replay is compared for, plus the
// OpenAI APIs whose tool calls repair treats specially.
var Providers = []Provider{
	{"anthropic", "anthropic-messages", "anthropic", "claude-sonnet-4-5"},
	{"openai", "openai-responses", "openai", "gpt-5"},
	{"openrouter", "openai-completions", "openrouter", "anthropic/claude-sonnet-4.5"},
	{"google", "google-generative-ai", "google", "gemini-2.5-pro"},
	{"mistral", "mistral-conversations", "mistral", "mistral-large-latest"},
	{"amazon-bedrock", "bedrock-converse-stream", "amazon-bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0"},
	{"moonshot", "openai-completions", "moonshot", "kimi-k2-0905-preview"},
	{"openai-codex", "openai-codex-responses", "openai-codex", "gpt-5-codex"},
	{"azure", "azure-openai-responses", "azure-openai-responses", "gpt-5"},
	{"openai-code-mode", "openai-chatgpt-responses", "openai", "gpt-5.4-codex"},
}

// Mirror is the pseudo-provider of transcript-only delivery mirrors.
var Mirror = Provider{"delivery-mirror", "openai-responses", "openclaw", "delivery-mirror"}

// kv is one member of an ordered JSON object.
type kv struct {
	k string
	v any
}

// obj writes an object with members in the given order, as JSON.stringify would: strings
// escaped JS-style, numbers and nested values compact. Values are string, int, int64, bool,
// nil, raw (json.RawMessage), []any, []kv.
func obj(members ...kv) json.RawMessage {
	var b bytes.Buffer
	writeValue(&b, members)
	return b.Bytes()
}

func writeValue(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case string:
		b.Write(jsonobj.Quote(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(jsonobj.FormatNumber(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case json.RawMessage:
		b.Write(x)
	case []kv:
		b.WriteByte('{')
		for i, m := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(jsonobj.Quote(m.k))
			b.WriteByte(':')
			writeValue(b, m.v)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeValue(b, e)
		}
		b.WriteByte(']')
	default:
		panic(fmt.Sprintf("mutate: cannot write %T", v))
	}
}

// Builder writes one transcript: a header, then entries chained by parentId, with a clock
// that moves forward. The zero value is not usable; use NewBuilder.
type Builder struct {
	rng    *rand.Rand
	lines  [][]byte
	ids    []string // ids of the entries written, in order
	tip    string   // parent of the next entry ("" = null)
	ms     int64
	n      int
	calls  int
	key    uint32
	reused []string // tool-call ids written so far, for reused-id variants
	Prov   Provider
}

// NewBuilder starts a transcript with its session header.
func NewBuilder(rng *rand.Rand, p Provider) *Builder {
	b := &Builder{rng: rng, Prov: p, key: rng.Uint32(), ms: time.Date(2026, 4, 28, 9, 0, 0, 0, time.UTC).UnixMilli() + rng.Int64N(86400000)}
	b.add(obj(kv{"type", "session"}, kv{"version", 3}, kv{"id", b.uuid()},
		kv{"timestamp", b.iso()}, kv{"cwd", "/home/user/project"}))
	return b
}

// Bytes returns the transcript, one line per entry, each ending in "\n".
func (b *Builder) Bytes() []byte {
	var out bytes.Buffer
	for _, l := range b.lines {
		out.Write(l)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

func (b *Builder) add(line json.RawMessage) { b.lines = append(b.lines, line) }

func (b *Builder) uuid() string {
	x, y := b.rng.Uint64(), b.rng.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", x>>32, x>>16&0xffff, x&0xfff, 0x8000|y>>48&0x3fff, y&0xffffffffffff)
}

func (b *Builder) iso() string {
	return time.UnixMilli(b.ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

func (b *Builder) tick() { b.ms += 200 + b.rng.Int64N(20000) }

// newID is an 8-hex entry id, unique in the file.
func (b *Builder) newID() string {
	b.n++
	return fmt.Sprintf("%08x", uint32(b.n)*0x9e3779b1+b.key) // a bijection of n: never repeats
}

// Entry appends an entry of type typ with the given members after id, parentId and timestamp,
// and returns its id.
func (b *Builder) Entry(typ string, members ...kv) string {
	b.tick()
	id := b.newID()
	var parent any
	if b.tip != "" {
		parent = b.tip
	}
	all := append([]kv{{"type", typ}, {"id", id}, {"parentId", parent}, {"timestamp", b.iso()}}, members...)
	b.add(obj(all...))
	b.ids = append(b.ids, id)
	b.tip = id
	return id
}

// Message appends a message entry.
func (b *Builder) Message(msg []kv) string { return b.Entry("message", kv{"message", msg}) }

// User appends a user turn with the given content (a string or []any of blocks).
func (b *Builder) User(content any) string {
	return b.Message([]kv{{"role", "user"}, {"content", content}, {"timestamp", b.ms}})
}

// UserText appends a user turn with one text block.
func (b *Builder) UserText(text string) string { return b.User([]any{textBlock(text)}) }

// Assistant appends an assistant turn of provider p.
func (b *Builder) Assistant(p Provider, content []any, stop string) string {
	return b.Message([]kv{{"role", "assistant"}, {"content", content}, {"api", p.API}, {"provider", p.Provider},
		{"model", p.Model}, {"usage", usage(b.rng)}, {"stopReason", stop}, {"timestamp", b.ms}})
}

// Result appends a tool result for callID.
func (b *Builder) Result(callID any, name string, content []any, isError bool) string {
	return b.Message([]kv{{"role", "toolResult"}, {"toolCallId", callID}, {"toolName", name},
		{"content", content}, {"isError", isError}, {"timestamp", b.ms}})
}

// CallID is a fresh tool-call id in the style of the builder's provider.
func (b *Builder) CallID() string {
	b.calls++
	x := b.rng.Uint64()
	switch b.Prov.API {
	case "anthropic-messages", "bedrock-converse-stream":
		return fmt.Sprintf("toolu_01%016x%06x", x, b.calls)
	case "openai-responses", "openai-codex-responses", "azure-openai-responses", "openai-chatgpt-responses":
		return fmt.Sprintf("call_%012x%d|fc_%016x", x>>16, b.calls, x)
	case "mistral-conversations":
		return fmt.Sprintf("%09x", x&0xfffffffff)[:9]
	}
	if b.Prov.Provider == "moonshot" {
		return fmt.Sprintf("functions.exec:%d", b.calls)
	}
	return fmt.Sprintf("call_%016x", x)
}

func usage(rng *rand.Rand) []kv {
	in, out := 800+rng.IntN(40000), 20+rng.IntN(2000)
	return []kv{{"input", in}, {"output", out}, {"cacheRead", 0}, {"cacheWrite", 0}, {"totalTokens", in + out},
		{"cost", []kv{{"input", 0}, {"output", 0}, {"cacheRead", 0}, {"cacheWrite", 0}, {"total", 0}}}}
}

func textBlock(s string) []kv { return []kv{{"type", "text"}, {"text", s}} }

func toolCall(id any, name string, args []kv) []kv {
	return []kv{{"type", "toolCall"}, {"id", id}, {"name", name}, {"arguments", args}}
}

var words = []string{"the", "build", "fails", "on", "main", "since", "yesterday", "check", "logs", "and", "fix",
	"it", "please", "deploy", "staging", "config", "review", "this", "diff", "tests", "pass", "now", "ok", "thanks"}

func (b *Builder) words(n int) string {
	var s []byte
	for i := 0; i < n; i++ {
		if i > 0 {
			s = append(s, ' ')
		}
		s = append(s, words[b.rng.IntN(len(words))]...)
	}
	return string(s)
}

// Turn appends a plain exchange: a user prompt and an assistant answer.
func (b *Builder) Turn() {
	b.UserText(b.words(3 + b.rng.IntN(12)))
	b.Assistant(b.Prov, []any{textBlock(b.words(5 + b.rng.IntN(30)))}, "stop")
}

// ToolTurn appends a user prompt, an assistant tool call, its result and a final answer.
func (b *Builder) ToolTurn() {
	b.UserText(b.words(4))
	id := b.CallID()
	b.Assistant(b.Prov, []any{toolCall(id, "exec", []kv{{"command", "ls -la"}})}, "toolUse")
	b.Result(id, "exec", []any{textBlock("total 8\ndrwxr-xr-x 2 user user 4096 .")}, false)
	b.Assistant(b.Prov, []any{textBlock(b.words(8))}, "stop")
}

package replaycheck

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"strings"
	"time"
)

// The generator writes synthetic transcripts that exercise every step of the replay pipeline
// and of the compaction decision: tool calls with reused (Kimi functions.<name>:<n>),
// Anthropic, OpenAI call_|fc_, odd and missing ids; missing, displaced, duplicate and orphan
// results; failed and aborted turns; thinking with and without signatures, redacted thinking,
// OpenAI reasoning signatures; images with good, empty and invalid base64; string contents,
// blank texts, NO_REPLY, OpenClaw metadata echoes, inter-session provenance; usage in every
// shape; delivery mirrors; compactions, branch summaries, custom messages, model and thinking
// changes and model snapshots. The same seed gives the same bytes.

// GenNow is the clock of generated transcripts (their last entry is a little before it).
var GenNow = time.Date(2026, 5, 5, 12, 0, 0, 0, time.UTC)

// a 1x1 PNG
const tinyPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

type gen struct {
	r      *rand.Rand
	b      bytes.Buffer
	t      time.Time
	n      int
	leaf   string
	ids    []string // entries so far (compaction kept region candidates)
	calls  []string // tool-call ids of the last assistant with calls
	kimiN  map[string]int
	family string // id style of this transcript
}

func (g *gen) id() string {
	g.n++
	return fmt.Sprintf("%08x", uint32(g.r.Uint64())^uint32(g.n))
}

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) tick() time.Time {
	g.t = g.t.Add(time.Duration(1+g.r.IntN(90)) * time.Second)
	return g.t
}

func (g *gen) line(v map[string]any) {
	enc := json.NewEncoder(&g.b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// entry appends an entry child of the current leaf and makes it the leaf.
func (g *gen) entry(typ string, fields map[string]any) string {
	id := g.id()
	e := map[string]any{"type": typ, "id": id, "timestamp": g.tick().Format("2006-01-02T15:04:05.000Z")}
	if g.leaf == "" {
		e["parentId"] = nil
	} else {
		e["parentId"] = g.leaf
	}
	for k, v := range fields {
		e[k] = v
	}
	g.line(e)
	g.leaf = id
	g.ids = append(g.ids, id)
	return id
}

func (g *gen) message(m map[string]any) string {
	if _, ok := m["timestamp"]; !ok && !g.chance(0.03) {
		m["timestamp"] = g.t.Add(time.Second).UnixMilli()
	}
	return g.entry("message", map[string]any{"message": m})
}

func (g *gen) text() string {
	words := []string{"list", "the", "files", "please", "ok", "done", "check", "logs", "再试一次", "grüße", "🙂", "a\nb"}
	n := 1 + g.r.IntN(12)
	var sb strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(words[g.r.IntN(len(words))])
	}
	if g.chance(0.03) {
		return strings.Repeat("x", 2000+g.r.IntN(30000)) // big enough to move a cut point
	}
	return sb.String()
}

func (g *gen) textBlock() map[string]any {
	switch {
	case g.chance(0.04):
		return map[string]any{"type": "text", "text": g.pick("", " ", "\n\t")}
	case g.chance(0.03):
		return map[string]any{"type": "text", "text": g.pick("NO_REPLY", " NO_REPLY ", `{"action":"NO_REPLY"}`, "<think>hm</think>NO_REPLY")}
	case g.chance(0.03):
		return map[string]any{"type": "text", "text": "[Mon 2026-05-04 10:00 UTC] Conversation info (untrusted metadata):\n```json\n{\"x\":1}\n```\n\n" + g.text()}
	case g.chance(0.02):
		return map[string]any{"type": "text", "text": "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nsecret\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\n" + g.text()}
	}
	return map[string]any{"type": "text", "text": g.text()}
}

func (g *gen) image() map[string]any {
	b := map[string]any{"type": "image", "data": tinyPNG, "mimeType": "image/png"}
	switch g.r.IntN(8) {
	case 0:
		b["data"] = ""
	case 1:
		b["data"] = "not*base64"
	case 2:
		delete(b, "mimeType")
	case 3:
		b["data"] = " " + tinyPNG[:20] + "\n" + tinyPNG[20:]
		b["mimeType"] = "image/jpeg"
	case 4:
		b["data"] = widePNG // over OpenClaw's 1200 px: re-encoded there, kept here (deliberate)
	}
	return b
}

// widePNG is a real 1300×2 PNG: one side over OpenClaw's 1200 px limit.
var widePNG = func() string {
	img := image.NewGray(image.Rect(0, 0, 1300, 2))
	for x := range 1300 {
		img.SetGray(x, x%2, color.Gray{Y: uint8(x)})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}()

func (g *gen) usage() any {
	switch g.r.IntN(10) {
	case 0:
		return nil
	case 1:
		return map[string]any{"input_tokens": g.r.IntN(9000), "output_tokens": g.r.IntN(900)}
	case 2:
		return map[string]any{"input": g.r.IntN(5000), "output": g.r.IntN(500)}
	case 3:
		return map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
	case 4:
		return map[string]any{"input": g.r.IntN(150000), "output": 10, "cacheRead": g.r.IntN(60000), "cacheWrite": 0, "totalTokens": 0,
			"cost": map[string]any{"input": 0.01, "output": 0.002}}
	}
	in, out := g.r.IntN(190000), g.r.IntN(4000)
	return map[string]any{"input": in, "output": out, "cacheRead": 0, "cacheWrite": 0, "totalTokens": in + out,
		"cost": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
}

func (g *gen) callID(name string) string {
	switch g.family {
	case "kimi":
		n := g.kimiN[name]
		if !g.chance(0.4) { // Kimi numbers calls per name and turn: ids come back
			g.kimiN[name]++
		}
		return fmt.Sprintf("functions.%s:%d", name, n)
	case "anthropic":
		return "toolu_01" + g.id() + g.id()
	case "openai":
		if g.chance(0.2) {
			return "call_" + g.id() + "|fc_" + g.id()
		}
		if g.chance(0.05) {
			return "call_" + strings.Repeat("z", 70) + "|fc_" + g.id()
		}
		return "call_" + g.id()
	}
	return g.pick("call-1", "x y", "t_"+g.id(), "functions.read:0", "tooluse_"+g.id(), g.id())
}

func (g *gen) assistant(provider, model, api string) {
	var content []any
	if g.chance(0.3) {
		th := map[string]any{"type": "thinking", "thinking": g.text()}
		switch g.r.IntN(6) {
		case 0:
			th["thinkingSignature"] = "Eq" + g.id() + "=="
		case 1:
			th["thinkingSignature"] = `{"id":"rs_` + g.id() + `","type":"reasoning"}`
		case 2:
			th["signature"] = "sig" + g.id()
		case 3:
			th = map[string]any{"type": "redacted_thinking", "data": g.pick("", "enc"+g.id())}
		}
		content = append(content, th)
	}
	if g.chance(0.7) {
		tb := g.textBlock()
		if g.chance(0.1) {
			tb["thought_signature"] = g.pick("msg_"+g.id(), "QUJD", "bad sig!")
		}
		content = append(content, tb)
	}
	g.calls = nil
	if g.chance(0.5) {
		n := 1 + g.r.IntN(3)
		for i := 0; i < n; i++ {
			name := g.pick("read", "exec", "write", "message", "sessions_spawn", " exec ", "bad name!")
			c := map[string]any{"type": g.pick("toolCall", "toolCall", "toolCall", "toolUse", "functionCall"), "id": g.callID(strings.TrimSpace(name)), "name": name}
			switch g.r.IntN(12) {
			case 0: // no input
			case 1:
				c["input"] = map[string]any{"path": "a"}
			case 2:
				c["arguments"] = map[string]any{"x": 1}
				c["partialJson"] = g.pick(`{"x":1}`, `{"x":`, "")
			default:
				c["arguments"] = map[string]any{"path": g.text()}
			}
			if g.chance(0.05) {
				c["id"] = ""
			}
			content = append(content, c)
			if id, _ := c["id"].(string); id != "" {
				g.calls = append(g.calls, id)
			}
		}
	}
	stop := "stop"
	if len(g.calls) > 0 {
		stop = "toolUse"
	}
	switch {
	case g.chance(0.06):
		stop = "error"
	case g.chance(0.04):
		stop = "aborted"
	case g.chance(0.03):
		stop = "length"
	}
	m := map[string]any{"role": "assistant", "api": api, "provider": provider, "model": model, "stopReason": stop}
	if u := g.usage(); u != nil {
		m["usage"] = u
	}
	if stop == "error" {
		m["errorMessage"] = g.pick("boom", "400 prompt is too long: 210000 tokens > 200000 maximum", "rate limit")
		if g.chance(0.5) {
			content = nil
		}
	}
	switch {
	case g.chance(0.05):
		m["content"] = g.pick("plain string reply", "", "NO_REPLY")
	case content == nil:
		m["content"] = []any{}
	default:
		m["content"] = content
	}
	g.message(m)
}

func (g *gen) results() {
	calls := g.calls
	if g.chance(0.15) && len(calls) > 1 {
		calls = calls[1:] // one result missing
	}
	if g.chance(0.1) {
		g.message(map[string]any{"role": "user", "content": g.text()}) // displaced: a user turn first
	}
	for _, id := range calls {
		m := map[string]any{"role": "toolResult", "toolCallId": id, "toolName": g.pick("read", "exec", " read ", ""),
			"content": []any{g.textBlock()}, "isError": g.chance(0.1)}
		switch g.r.IntN(14) {
		case 0:
			m["content"] = "string result"
		case 1:
			m["content"] = []any{g.image()}
		case 2:
			m["details"] = map[string]any{"exitCode": 0}
		case 3:
			delete(m, "toolCallId")
			m["toolUseId"] = id
		case 4:
			delete(m, "toolCallId") // a legacy result without any id
		}
		g.message(m)
		if g.chance(0.05) {
			g.message(m) // duplicate
		}
	}
	if g.chance(0.05) {
		g.message(map[string]any{"role": "toolResult", "toolCallId": "orphan_" + g.id(), "toolName": "read",
			"content": []any{map[string]any{"type": "text", "text": "?"}}, "isError": false})
	}
}

// Transcript generates transcript number i of seed.
func Transcript(seed uint64, i int) []byte {
	g := &gen{r: rand.New(rand.NewPCG(seed, uint64(i)+1)), kimiN: map[string]int{}}
	g.t = GenNow.Add(-time.Duration(2+g.r.IntN(48)) * time.Hour)
	g.family = g.pick("kimi", "anthropic", "openai", "mixed", "mixed")
	var provider, model, api string
	switch g.family {
	case "kimi":
		provider, model, api = "moonshot", "kimi-k2.5", "openai-completions"
	case "anthropic":
		provider, model, api = "anthropic", "claude-sonnet-4-5", "anthropic-messages"
	case "openai":
		provider, model, api = "openai", "gpt-5", "openai-responses"
	default:
		provider, model, api = "google", "gemini-2.5-pro", "google-generative-ai"
	}
	g.line(map[string]any{"type": "session", "version": 3, "id": fmt.Sprintf("%08x-0000-4000-8000-%012x", seed, i),
		"timestamp": g.t.Format("2006-01-02T15:04:05.000Z"), "cwd": "/work"})
	if g.chance(0.3) {
		g.entry("model_change", map[string]any{"provider": provider, "modelId": model})
	}
	if g.chance(0.2) {
		g.entry("thinking_level_change", map[string]any{"thinkingLevel": g.pick("low", "high", "off")})
	}
	if g.chance(0.2) {
		g.entry("custom", map[string]any{"customType": "model-snapshot", "data": map[string]any{
			"timestamp": g.t.UnixMilli(), "provider": g.pick(provider, "openai"), "modelApi": api, "modelId": g.pick(model, "gpt-4o")}})
	}
	if g.chance(0.08) {
		g.assistant(provider, model, api) // an assistant-first history
	}
	turns := 2 + g.r.IntN(10)
	for t := 0; t < turns; t++ {
		u := map[string]any{"role": "user"}
		switch g.r.IntN(8) {
		case 0:
			u["content"] = g.text()
		case 1:
			u["content"] = []any{g.textBlock(), g.image()}
		case 2:
			u["content"] = g.pick("", "  ")
		default:
			u["content"] = []any{g.textBlock()}
		}
		if g.chance(0.05) {
			u["provenance"] = map[string]any{"kind": "inter_session", "sourceSessionKey": "agent:main:x", "sourceTool": "sessions_send"}
		}
		g.message(u)
		if g.chance(0.05) {
			g.message(map[string]any{"role": "user", "content": g.text()}) // consecutive users
		}
		steps := 1 + g.r.IntN(3)
		for s := 0; s < steps; s++ {
			g.assistant(provider, model, api)
			if len(g.calls) > 0 {
				g.results()
			}
			if g.chance(0.05) {
				g.message(map[string]any{"role": "assistant", "provider": "openclaw", "model": "delivery-mirror",
					"api": "openclaw-transcript", "content": []any{map[string]any{"type": "text", "text": g.text()}}, "stopReason": "stop"})
			}
		}
		switch {
		case g.chance(0.1) && len(g.ids) > 3:
			kept := g.ids[len(g.ids)/2+g.r.IntN(len(g.ids)-len(g.ids)/2)]
			if g.chance(0.1) {
				kept = "missing"
			}
			g.entry("compaction", map[string]any{"summary": "## Goal\n" + g.text(), "firstKeptEntryId": kept,
				"tokensBefore": 1000 + g.r.IntN(200000), "details": map[string]any{"readFiles": []any{}, "modifiedFiles": []any{}}})
		case g.chance(0.05):
			g.entry("branch_summary", map[string]any{"fromId": g.pick("root", g.leaf), "summary": g.pick("", "tried "+g.text())})
		case g.chance(0.06):
			g.entry("custom_message", map[string]any{"customType": "note", "content": g.pick("a note", ""), "display": g.chance(0.5)})
		case g.chance(0.05):
			g.message(map[string]any{"role": "bashExecution", "command": "ls", "output": g.text(), "exitCode": g.r.IntN(2),
				"cancelled": false, "truncated": false})
		case g.chance(0.04):
			g.entry("model_change", map[string]any{"provider": "openai", "modelId": "gpt-5"})
		}
	}
	if g.chance(0.1) {
		g.message(map[string]any{"role": "user", "content": g.text()}) // an orphan user leaf
	}
	return g.b.Bytes()
}

// Package linegen writes realistic OpenClaw transcript lines for the jsonl benchmarks and
// tests: a session header, then user turns, assistant turns with thinking, text and nested
// tool-call arguments, tool results with long outputs and base64 images, CJK and escaped text.
// Output is deterministic for a seed. It is not the fixtures generator (fixtures/): it only
// needs line shapes that stress a JSON scanner the way real transcripts do.
package linegen

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

// Gen produces lines; it is not safe for concurrent use.
type Gen struct {
	rng    *rand.Rand
	n      int
	parent string
	t      time.Time
	img    string // one base64 payload reused (with a varying prefix) for image blocks
}

// New returns a generator seeded with seed.
func New(seed uint64) *Gen {
	g := &Gen{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	raw := make([]byte, 96<<10)
	for i := range raw {
		raw[i] = byte(g.rng.Uint32())
	}
	g.img = base64.StdEncoding.EncodeToString(raw)
	return g
}

var words = strings.Fields(`the session tool call result file repair compaction agent gateway provider
model token usage stream line byte offset header entry parent child leaf branch summary thinking
retry fallback error timeout config json value string number array object read write sync rename`)

var cjk = []string{"你好", "世界", "会话", "修复", "文件", "工具", "调用", "结果", "模型", "请求错误", "こんにちは", "세션"}

func (g *Gen) text(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch r := g.rng.IntN(40); {
		case r == 0:
			b.WriteString("\n\n")
		case r == 1:
			b.WriteString(`"quoted"`)
		case r == 2:
			b.WriteString("tab\there")
		case r < 6:
			b.WriteString(cjk[g.rng.IntN(len(cjk))])
		case r == 6:
			b.WriteString("café naïve ✓")
		default:
			b.WriteString(words[g.rng.IntN(len(words))])
		}
	}
	return b.String()
}

func (g *Gen) id() string { return fmt.Sprintf("%08x", g.rng.Uint32()) }

func (g *Gen) stamp() string {
	g.t = g.t.Add(time.Duration(g.rng.IntN(20000)) * time.Millisecond)
	return g.t.Format("2006-01-02T15:04:05.000Z")
}

// Header returns the session header line (without newline).
func (g *Gen) Header() []byte {
	b, _ := json.Marshal(map[string]any{"type": "session", "version": 3, "id": "5f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b",
		"timestamp": g.stamp(), "cwd": "/home/user/project"})
	return b
}

// Next returns the next entry line (without newline).
func (g *Gen) Next() []byte {
	g.n++
	id := g.id()
	e := map[string]any{"type": "message", "id": id, "parentId": g.parent, "timestamp": g.stamp()}
	if g.parent == "" {
		e["parentId"] = nil
	}
	g.parent = id
	ms := g.t.UnixMilli()
	switch r := g.rng.IntN(100); {
	case r < 25:
		e["message"] = map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": g.text(5 + g.rng.IntN(60))}}, "timestamp": ms}
	case r < 60:
		args := map[string]any{"path": "/home/user/project/src/" + words[g.rng.IntN(len(words))] + ".go",
			"edits": []any{map[string]any{"old": g.text(8), "new": g.text(12), "opts": map[string]any{"all": false, "n": g.rng.IntN(9), "nested": map[string]any{"deep": []any{1, 2.5, -3e-4, true, nil, "x"}}}}}}
		e["message"] = map[string]any{"role": "assistant", "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4",
			"content": []any{
				map[string]any{"type": "thinking", "thinking": g.text(20 + g.rng.IntN(120)), "thinkingSignature": g.img[:200+g.rng.IntN(600)]},
				map[string]any{"type": "text", "text": g.text(10 + g.rng.IntN(200))},
				map[string]any{"type": "toolCall", "id": "toolu_" + g.id() + g.id(), "name": "edit", "arguments": args},
			},
			"usage": map[string]any{"input": g.rng.IntN(200000), "output": g.rng.IntN(4000), "cacheRead": 0, "cacheWrite": 12,
				"totalTokens": g.rng.IntN(200000), "cost": map[string]any{"input": 0.0123, "output": 0.000456, "total": 1.25e-2}},
			"stopReason": "toolUse", "timestamp": ms}
	case r < 97:
		e["message"] = map[string]any{"role": "toolResult", "toolCallId": "toolu_" + g.id(), "toolName": "bash",
			"content": []any{map[string]any{"type": "text", "text": g.text(50 + g.rng.IntN(1500))}}, "isError": false, "timestamp": ms}
	default: // a tool result carrying a screenshot: a long base64 string
		n := (16 << 10) + g.rng.IntN(len(g.img)-(16<<10))
		e["message"] = map[string]any{"role": "toolResult", "toolCallId": "toolu_" + g.id(), "toolName": "browser",
			"content": []any{map[string]any{"type": "image", "mimeType": "image/png", "data": g.img[g.rng.IntN(64):n]}}, "isError": false, "timestamp": ms}
	}
	b, _ := json.Marshal(e)
	return b
}

// Write writes a header and entries to w until at least size bytes are written.
func Write(w io.Writer, seed uint64, size int64) (lines int64, err error) {
	g := New(seed)
	bw := bufio.NewWriterSize(w, 1<<20)
	var n int64
	line := g.Header()
	for {
		bw.Write(line)
		if err := bw.WriteByte('\n'); err != nil {
			return lines, err
		}
		lines++
		n += int64(len(line)) + 1
		if n >= size {
			break
		}
		line = g.Next()
	}
	return lines, bw.Flush()
}

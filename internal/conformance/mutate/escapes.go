package mutate

import "strings"

// Escapes are hand-made transcripts whose ids are spelled with JSON escapes: lone surrogates
// (a code unit of their own to JSON.parse, never U+FFFD), escaped surrogate pairs, escaped
// ASCII. Random mutations never write an escape, and encoding/json reads every lone surrogate
// as U+FFFD, which made repair, replay and compaction pair tool calls and link entries that
// OpenClaw keeps apart (found 2026-12-06). They are not mutation bases, so the mutation sets
// stay as they were.
func Escapes() []Base {
	const head = `{"type":"session","version":3,"id":"0e5ca9e5-1111-4222-8333-444444444444","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}`
	usage := `"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`
	user := func(id, parent, text string) string {
		return `{"type":"message","id":"` + id + `","parentId":` + parent + `,"timestamp":"2026-01-01T00:00:00.500Z","message":{"role":"user","content":[{"type":"text","text":"` + text + `"}],"timestamp":1767225600500}}`
	}
	// a code-mode turn (OpenClaw's on-disk repair answers its calls) with one tool call
	call := func(id, parent, callID string) string {
		return `{"type":"message","id":"` + id + `","parentId":` + parent + `,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"toolCall","id":"` + callID + `","name":"exec","arguments":{"cmd":"ls"}}],"api":"openai-chatgpt-responses","provider":"openai","model":"gpt-5","stopReason":"stop","timestamp":1767225601000,` + usage + `}}`
	}
	result := func(id, parent, callID string) string {
		return `{"type":"message","id":"` + id + `","parentId":"` + parent + `","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"toolResult","toolCallId":"` + callID + `","toolName":"exec","content":[{"type":"text","text":"file"}],"isError":false,"timestamp":1767225602000}}`
	}
	reply := func(id, parent, text string) string {
		return `{"type":"message","id":"` + id + `","parentId":` + parent + `,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"` + text + `"}],"api":"openai-responses","provider":"openai","model":"gpt-5","stopReason":"stop","timestamp":1767225601000,` + usage + `}}`
	}
	file := func(lines ...string) []byte {
		return []byte(head + "\n" + strings.Join(lines, "\n") + "\n")
	}
	var out []Base
	pairs := []struct{ name, call, result string }{
		{"lone-high/other-lone", `\ud800`, `\ud801`},
		{"lone-high/escaped-fffd", `\ud800`, `\ufffd`},
		{"lone-high/same", `\ud800`, `\ud800`},
		{"lone-high/raw-fffd", `\ud800`, "\ufffd"},
		{"lone-low-inside/other", `a\udc00b`, `a\udc01b`},
		{"escaped-pair/raw", `\ud800\udc00`, "\U00010000"},
		{"escaped-ascii/plain", `call_\u0041`, "call_A"},
		{"lone-before-pair/other", `\ud800\ud800\udc00`, `\ud801` + "\U00010000"},
	}
	for _, p := range pairs {
		out = append(out, Base{Name: "escapes/call/" + p.name, Data: file(
			user("u1", "null", "hi"), call("a1", `"u1"`, p.call), result("r1", "a1", p.result), user("u2", `"r1"`, "next"))})
	}
	trees := []struct{ name, root, parent string }{
		{"lone-high/other-lone", `\ud801`, `\ud800`},
		{"escaped-fffd/lone", `\ufffd`, `\ud800`},
		{"escaped-ascii/plain", `\u0075\u0031`, `u1`},
		{"escaped-pair/raw", `\ud83d\ude00`, "\U0001F600"},
	}
	for _, tr := range trees {
		out = append(out, Base{Name: "escapes/tree/" + tr.name, Data: file(
			user(tr.root, "null", "first"), reply("a1", `"`+tr.root+`"`, "one"),
			user("u2", `"`+tr.parent+`"`, "second"), reply("a2", `"u2"`, "two"))})
	}
	// lone surrogates in text, as a cut emoji leaves them
	out = append(out, Base{Name: "escapes/text/cut-emoji", Data: file(
		user("u1", "null", `half \ud83d and \ude00 half`), reply("a1", `"u1"`, `\ud83d`), user("u2", `"a1"`, "next"))})
	return out
}

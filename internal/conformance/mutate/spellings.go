package mutate

import "strings"

// Spellings are hand-made transcripts whose ids and keys are spelled in ways JSON allows and
// JavaScript reads its own way: lone surrogates (a code unit of their own to JSON.parse, never
// U+FFFD), escaped surrogate pairs and ASCII, escaped keys, duplicate keys (the last wins),
// "__proto__" keys (an own key to JSON.parse, dropped by Object.assign), numeric ids. Random
// mutations never write these, and encoding/json reads every lone surrogate as U+FFFD, which
// made repair, replay and compaction pair tool calls and link entries that OpenClaw keeps
// apart (found 2026-12-06). They are not mutation bases, so the mutation sets stay as they
// were.
func Spellings() []Base {
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
		out = append(out, Base{Name: "spellings/call/" + p.name, Data: file(
			user("u1", "null", "hi"), call("a1", `"u1"`, p.call), result("r1", "a1", p.result), user("u2", `"r1"`, "next"))})
	}
	trees := []struct{ name, root, parent string }{
		{"lone-high/other-lone", `\ud801`, `\ud800`},
		{"escaped-fffd/lone", `\ufffd`, `\ud800`},
		{"escaped-ascii/plain", `\u0075\u0031`, `u1`},
		{"escaped-pair/raw", `\ud83d\ude00`, "\U0001F600"},
	}
	for _, tr := range trees {
		out = append(out, Base{Name: "spellings/tree/" + tr.name, Data: file(
			user(tr.root, "null", "first"), reply("a1", `"`+tr.root+`"`, "one"),
			user("u2", `"`+tr.parent+`"`, "second"), reply("a2", `"u2"`, "two"))})
	}
	// lone surrogates in text, as a cut emoji leaves them
	out = append(out, Base{Name: "spellings/text/cut-emoji", Data: file(
		user("u1", "null", `half \ud83d and \ude00 half`), reply("a1", `"u1"`, `\ud83d`), user("u2", `"a1"`, "next"))})
	out = append(out, keySpellings(file, user, usage)...)
	return out
}

// keySpellings: duplicate keys, "__proto__" keys, numeric and escaped keys around a tool call
// (a code-mode turn, which OpenClaw's on-disk repair answers, and an Anthropic one).
func keySpellings(file func(...string) []byte, user func(id, parent, text string) string, usage string) []Base {
	const proto = `"__proto__":{"x":1}`
	codeMode := func(callID, extra string) string {
		return `{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"toolCall","id":` + callID + `,"name":"exec","arguments":{"cmd":"ls"}` + extra + `}],"api":"openai-chatgpt-responses","provider":"openai","model":"gpt-5","stopReason":"stop","timestamp":1767225601000,` + usage + `}}`
	}
	anthropic := func(msgExtra, textExtra, callExtra, thinking string) string {
		return `{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[` + thinking + `{"type":"text","text":"ok"` + textExtra + `},{"type":"toolCall","id":"call_1","name":"exec","arguments":{"cmd":"ls"}` + callExtra + `}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"toolUse","timestamp":1767225601000,` + usage + msgExtra + `}}`
	}
	result := func(idMember, msgExtra, blockExtra string) string {
		return `{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"toolResult",` + idMember + `,"toolName":"exec","content":[{"type":"text","text":"file"` + blockExtra + `}],"isError":false,"timestamp":1767225602000` + msgExtra + `}}`
	}
	next := `{"type":"message","id":"u2","parentId":"r1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"next","timestamp":1767225603000}}`
	u1 := user("u1", "null", "hi")
	c1 := `"toolCallId":"c1"`
	p1 := `"toolCallId":"call_1"`
	cases := []struct{ name, user, asst, result string }{
		{"duplicate/result-id-last", u1, codeMode(`"c1"`, ""), result(`"toolCallId":"zz","toolCallId":"c1"`, "", "")},
		{"duplicate/result-id-first", u1, codeMode(`"c1"`, ""), result(`"toolCallId":"c1","toolCallId":"zz"`, "", "")},
		{"duplicate/call-id", u1, codeMode(`"c1"`, `,"id":"zz"`), result(c1, "", "")},
		{"duplicate/role-last", u1, codeMode(`"c1"`, ""), strings.Replace(result(c1, "", ""), `"role":"toolResult"`, `"role":"user","role":"toolResult"`, 1)},
		{"duplicate/role-first", u1, codeMode(`"c1"`, ""), strings.Replace(result(c1, "", ""), `"role":"toolResult"`, `"role":"toolResult","role":"user"`, 1)},
		{"duplicate/entry-type", u1, codeMode(`"c1"`, ""), strings.Replace(result(c1, "", ""), `{"type":"message"`, `{"type":"custom","type":"message"`, 1)},
		{"duplicate/parent", u1, codeMode(`"c1"`, ""), strings.Replace(result(c1, "", ""), `"parentId":"a1"`, `"parentId":"zz","parentId":"a1"`, 1)},
		{"number/call-id", u1, codeMode(`1`, ""), result(`"toolCallId":1`, "", "")},
		{"number/exponent-string", u1, codeMode(`"100"`, ""), result(`"toolCallId":"1e2"`, "", "")},
		{"escaped-key/result-id", u1, codeMode(`"c1"`, ""), result(`"tool\u0043allId":"c1"`, "", "")},
		{"escaped-key/role", u1, codeMode(`"c1"`, ""), strings.Replace(result(c1, "", ""), `"role":"toolResult"`, `"\u0072ole":"toolResult"`, 1)},
		{"proto/code-mode-call", u1, codeMode(`"c1"`, ","+proto), result(c1, "", "")},
		{"proto/code-mode-result", u1, codeMode(`"c1"`, ""), result(c1, ","+proto, "")},
		{"proto/user-message", strings.Replace(u1, `"timestamp":1767225600500}`, `"timestamp":1767225600500,`+proto+`}`, 1), anthropic("", "", "", ""), result(p1, "", "")},
		{"proto/user-block", strings.Replace(u1, `"text":"hi"`, `"text":"hi",`+proto, 1), anthropic("", "", "", ""), result(p1, "", "")},
		{"proto/assistant-message", u1, anthropic(","+proto, "", "", ""), result(p1, "", "")},
		{"proto/assistant-text", u1, anthropic("", ","+proto, "", ""), result(p1, "", "")},
		{"proto/assistant-call", u1, anthropic("", "", ","+proto, ""), result(p1, "", "")},
		{"proto/thinking", u1, anthropic("", "", "", `{"type":"thinking","thinking":"hmm","thinkingSignature":"sig",`+proto+`},`), result(p1, "", "")},
		{"proto/result-message", u1, anthropic("", "", "", ""), result(p1, ","+proto, "")},
		{"proto/result-block", u1, anthropic("", "", "", ""), result(p1, "", ","+proto)},
		{"proto/null-and-primitives", u1, anthropic("", "", `,"__proto__":null`, ""), result(p1, `,"__proto__":5`, `,"__proto__":"s"`)},
		{"proto/entry", u1, anthropic("", "", "", ""), strings.Replace(result(p1, "", ""), `{"type":"message"`, `{"type":"message","__proto__":{"type":"custom"}`, 1)},
		{"proto/unanswered-call", u1, anthropic("", "", ","+proto, ""), ""},
	}
	var out []Base
	for _, c := range cases {
		lines := []string{c.user, c.asst}
		if c.result != "" {
			lines = append(lines, c.result)
		}
		if c.result == "" { // the next turn follows the call
			lines = append(lines, strings.Replace(next, `"parentId":"r1"`, `"parentId":"a1"`, 1))
		} else {
			lines = append(lines, next)
		}
		out = append(out, Base{Name: "spellings/" + c.name, Data: file(lines...)})
	}
	return out
}

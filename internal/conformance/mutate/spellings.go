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
	out = append(out, valueSpellings(file)...)
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

// valueSpellings: parentIds that are not strings (an object, a number beside a number-like
// string id, which JavaScript's Map keeps apart), empty ids, usage numbers JSON allows
// and float64 does not hold (1e400, -0, 30 digits), a control character and U+2028 in call
// ids, a long call id and entry id, tool arguments nested 3,000 deep, and a Mistral call id
// (nine letters or digits) made of a lone surrogate and one letter.
func valueSpellings(file func(...string) []byte) []Base {
	usage := func(in, out, total string) string {
		return `"usage":{"input":` + in + `,"output":` + out + `,"cacheRead":0,"cacheWrite":0,"totalTokens":` + total + `,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`
	}
	user := func(id, parent, text string) string {
		return `{"type":"message","id":` + id + `,"parentId":` + parent + `,"timestamp":"2026-01-01T00:00:00.500Z","message":{"role":"user","content":[{"type":"text","text":"` + text + `"}],"timestamp":1767225600500}}`
	}
	reply := func(id, parent string) string {
		return `{"type":"message","id":` + id + `,"parentId":` + parent + `,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"stop","timestamp":1767225601000,` + usage("1", "1", "2") + `}}`
	}
	call := func(parent, callID, args, use, api, provider, model string) string {
		return `{"type":"message","id":"a1","parentId":` + parent + `,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"toolCall","id":"` + callID + `","name":"exec","arguments":` + args + `}],"api":"` + api + `","provider":"` + provider + `","model":"` + model + `","stopReason":"toolUse","timestamp":1767225601000,` + use + `}}`
	}
	anthropic := func(parent, callID, args, use string) string {
		return call(parent, callID, args, use, "anthropic-messages", "anthropic", "claude-sonnet-4-5")
	}
	result := func(callID string) string {
		return `{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"toolResult","toolCallId":"` + callID + `","toolName":"exec","content":[{"type":"text","text":"file"}],"isError":false,"timestamp":1767225602000}}`
	}
	next := user(`"u2"`, `"r1"`, "next")
	ls := `{"cmd":"ls"}`
	u1 := user(`"u1"`, "null", "hi")
	long := "call_" + strings.Repeat("x", 5000)
	// Entry ids that are numbers or booleans are left out: pi's loader of 2026.4.24 and before
	// keys its Map by them (1 and 1e1 name one entry, 1 and "1" two), ours reads only string
	// ids, as 2026.6.11 and later do (a known difference, docs/conformance.md: measured
	// 2026-12-06 on five such trees, replay 35 of 35 and compaction 10 of 10 comparisons
	// differ in 2026.3.13 and 2026.4.24, none in 2026.6.11 and 2026.7.35).
	trees := []struct{ name, root, parent, id2, parent3 string }{
		{"object-parent", `"u"`, `{"x":1}`, `"a"`, `"a"`},
		{"empty-ids", `""`, `""`, `"a"`, `"a"`},
		{"number-like-string", `"10"`, "10", `"a"`, `"a"`},
	}
	var out []Base
	for _, tr := range trees {
		out = append(out, Base{Name: "spellings/value/tree-" + tr.name, Data: file(
			user(tr.root, "null", "first"), reply(tr.id2, tr.parent),
			user(`"b"`, tr.parent3, "second"), reply(`"c"`, `"b"`))})
	}
	calls := []struct{ name, asst, result string }{
		{"deep-arguments", anthropic(`"u1"`, "call_1", strings.Repeat(`{"a":`, 3000)+"1"+strings.Repeat("}", 3000), usage("1", "1", "2")), result("call_1")},
		{"usage-infinite", anthropic(`"u1"`, "call_1", ls, usage("1e400", "1", "1e400")), result("call_1")},
		{"usage-negative-zero", anthropic(`"u1"`, "call_1", ls, usage("-0", "-0", "-0")), result("call_1")},
		{"usage-30-digits", anthropic(`"u1"`, "call_1", ls, usage("123456789012345678901234567890", "1", "123456789012345678901234567890")), result("call_1")},
		{"usage-fractions", anthropic(`"u1"`, "call_1", ls, usage("0.5", "1.25e2", "125.5")), result("call_1")},
		{"call-id-nul", anthropic(`"u1"`, `a\u0000b`, ls, usage("1", "1", "2")), result(`a\u0000b`)},
		{"call-id-u2028", anthropic(`"u1"`, "a\u2028b", ls, usage("1", "1", "2")), result(`a\u2028b`)},
		{"call-id-long", anthropic(`"u1"`, long, ls, usage("1", "1", "2")), result(long)},
		{"mistral-lone", call(`"u1"`, `\ud800x`, ls, usage("1", "1", "2"), "openai-completions", "mistral", "mistral-large-latest"), result(`\ud800x`)},
	}
	for _, c := range calls {
		out = append(out, Base{Name: "spellings/value/" + c.name, Data: file(u1, c.asst, c.result, next)})
	}
	longID := strings.Repeat("u", 5000)
	out = append(out, Base{Name: "spellings/value/entry-id-long", Data: file(
		user(`"`+longID+`"`, "null", "hi"), anthropic(`"`+longID+`"`, "call_1", ls, usage("1", "1", "2")), result("call_1"), next)})
	// lone surrogates in text on both sides of a tool call, and an escaped pair
	out = append(out, Base{Name: "spellings/text/lone-around-call", Data: file(
		user(`"u1"`, "null", `a\ud83d`), anthropic(`"u1"`, "call_1", ls, usage("1", "1", "2")),
		strings.Replace(result("call_1"), `"text":"file"`, `"text":"\ude00b"`, 1), user(`"u2"`, `"r1"`, `\ud83d\ude00`))})
	return out
}

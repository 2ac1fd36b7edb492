package replay_test

import (
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/hygiene"
	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/internal/replay"
)

// TestLoneSurrogatesAsJavaScriptReadsThem: a lone surrogate escape is a code unit of its own
// to OpenClaw, so a tool call "\ud800" is not answered by a result "\ud801", and an entry
// whose parentId is "\ud800" is not the child of one whose id is "\ud801". What the real
// OpenClaw 2026.7.35 sent for both transcripts (internal/conformance/oracle/replay.mjs and
// scripts/conformance.sh replay on them, 2026-12-06, every target equal after the fix; 29 of
// 56 comparisons differed before): the call answered by a synthetic error result and the
// other result dropped; the context from "second" on. encoding/json, which decoded messages
// and session fields before, made every lone surrogate U+FFFD and so paired and linked them.
func TestLoneSurrogatesAsJavaScriptReadsThem(t *testing.T) {
	const head = `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}` + "\n"
	user := func(id, parent, text string) string {
		return `{"type":"message","id":"` + id + `","parentId":` + parent + `,"timestamp":"2026-01-01T00:00:00.500Z","message":{"role":"user","content":[{"type":"text","text":"` + text + `"}],"timestamp":1767225600500}}` + "\n"
	}
	usage := `"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`
	o := replay.Options{Provider: "openrouter", Model: "google/gemini-2.5-pro", API: "openai-completions", Reasoning: true}

	calls := head + user("u1", "null", "hi") +
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"\ud800","name":"exec","arguments":{"cmd":"ls"}}],"api":"openai-completions","provider":"openrouter","model":"google/gemini-2.5-pro","stopReason":"toolUse","timestamp":1767225601000,` + usage + `}}` + "\n" +
		`{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"toolResult","toolCallId":"\ud801","toolName":"exec","content":[{"type":"text","text":"file"}],"isError":false,"timestamp":1767225602000}}` + "\n" +
		user("u2", `"r1"`, "next")
	res := run(t, calls, o)
	if res.Error != "" {
		t.Fatal(res.Error)
	}
	js, err := hygiene.Messages(res.Messages).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	out := string(js)
	if len(res.Messages) != 4 || hygiene.Role(res.Messages[2]) != "toolResult" ||
		!strings.Contains(out, `"toolCallId":"\ud800"`) || strings.Contains(out, `\ud801`) ||
		!strings.Contains(out, "missing tool result") || strings.Contains(out, `"text":"file"`) {
		t.Errorf("the call \\ud800 is answered by the result \\ud801; sent:\n%s", out)
	}

	tree := head + user(`\ud801`, "null", "first") +
		`{"type":"message","id":"a1","parentId":"\ud801","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"one"}],"api":"openai-completions","provider":"openrouter","model":"google/gemini-2.5-pro","stopReason":"stop","timestamp":1767225601000,` + usage + `}}` + "\n" +
		user("u2", `"\ud800"`, "second") +
		`{"type":"message","id":"a2","parentId":"u2","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"two"}],"api":"openai-completions","provider":"openrouter","model":"google/gemini-2.5-pro","stopReason":"stop","timestamp":1767225601000,` + usage + `}}` + "\n"
	res = run(t, tree, o)
	if res.Error != "" {
		t.Fatal(res.Error)
	}
	js, _ = hygiene.Messages(res.Messages).MarshalJSON()
	if len(res.Messages) != 2 || !strings.Contains(string(js), `"text":"second"`) || strings.Contains(string(js), `"text":"first"`) {
		t.Errorf("u2 (parent \\ud800) hangs under the entry \\ud801; sent:\n%s", js)
	}
}

// TestSummaryTruncatesInCodeUnits: pi's truncateForSummary cuts a tool result at 2000 UTF-16
// code units (text.length, text.slice), so an emoji at the cut leaves its high surrogate and
// counts two. The real serializeConversation of 2026.7.35 (run through openclaw-reference
// --node, 2026-12-06) ends 1,999 "a" + "\ud83d" + "\n\n[... 4 more characters truncated]";
// counting runes made it the whole emoji and "3 more".
func TestSummaryTruncatesInCodeUnits(t *testing.T) {
	m, err := hygiene.Decode([]byte(`{"role":"toolResult","toolCallId":"c","content":[{"type":"text","text":"` + strings.Repeat("a", 1999) + "\U0001F600" + `bbb"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	got := replay.SerializeConversation([]hygiene.Message{m})
	want := "[Tool result]: " + strings.Repeat("a", 1999) + "\xed\xa0\xbd" + "\n\n[... 4 more characters truncated]"
	if got != want {
		t.Errorf("got …%q, want …%q", got[max(0, len(got)-60):], want[len(want)-60:])
	}
	js, _ := jsonobj.MarshalJS(got, false)
	if !strings.Contains(string(js), `a\ud83d\n\n[... 4 more`) {
		t.Errorf("as JSON: …%s", js[len(js)-60:])
	}
}

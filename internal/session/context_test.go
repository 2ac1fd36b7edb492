package session_test

import (
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/session"
	"github.com/google/go-cmp/cmp"
)

// decodeAll decodes the non-header lines of a transcript written in a test.
func decodeAll(t *testing.T, text string) []*session.Entry {
	t.Helper()
	var out []*session.Entry
	for i, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if _, ok, err := session.DecodeHeader([]byte(line)); err == nil && ok {
			continue
		}
		e, err := session.DecodeEntry([]byte(line))
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		out = append(out, e)
	}
	return out
}

type ctxMsg struct{ Role, Entry, JSON string }

func summarize(msgs []session.ContextMessage) []ctxMsg {
	var out []ctxMsg
	for _, m := range msgs {
		out = append(out, ctxMsg{m.Role, m.Entry.ID, string(m.JSON)})
	}
	return out
}

// The synthetic example of context-and-forensics §1.7.
const specExample = `{"type":"session","version":3,"id":"5d1c","timestamp":"2026-05-01T08:00:00.000Z","cwd":"/home/u/.openclaw/workspace"}
{"type":"message","id":"a1","parentId":null,"timestamp":"2026-05-01T08:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"list files"}],"timestamp":1777622401000}}
{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-05-01T08:00:03.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"exec","arguments":{"command":"ls"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-6","usage":{"input":9000,"output":40,"cacheRead":0,"cacheWrite":0,"totalTokens":9040,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1777622403000}}
{"type":"message","id":"a3","parentId":"a2","timestamp":"2026-05-01T08:00:04.000Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"exec","content":[{"type":"text","text":"a.txt\nb.txt"}],"isError":false,"timestamp":1777622404000}}
{"type":"compaction","id":"c1","parentId":"a3","timestamp":"2026-05-01T09:00:00.000Z","summary":"## Goal\n...","firstKeptEntryId":"a2","tokensBefore":181000,"details":{"readFiles":[],"modifiedFiles":[]}}
{"type":"custom","id":"m1","parentId":"c1","timestamp":"2026-05-01T09:00:01.000Z","customType":"model-snapshot","data":{"timestamp":1777626001000,"provider":"anthropic","modelApi":"anthropic-messages","modelId":"claude-sonnet-4-6"}}
{"type":"message","id":"a4","parentId":"m1","timestamp":"2026-05-01T09:00:02.000Z","message":{"role":"user","content":"and now?","timestamp":1777626002000}}`

func TestBuildContextSpecExample(t *testing.T) {
	entries := decodeAll(t, specExample)
	ctx := session.BuildContextFrom(entries, nil)
	want := []ctxMsg{
		{"compactionSummary", "c1", `{"role":"compactionSummary","summary":"## Goal\n...","tokensBefore":181000,"timestamp":1777626000000}`},
		{"assistant", "a2", `{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"exec","arguments":{"command":"ls"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-6","usage":{"input":9000,"output":40,"cacheRead":0,"cacheWrite":0,"totalTokens":9040,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1777622403000}`},
		{"toolResult", "a3", `{"role":"toolResult","toolCallId":"t1","toolName":"exec","content":[{"type":"text","text":"a.txt\nb.txt"}],"isError":false,"timestamp":1777622404000}`},
		{"user", "a4", `{"role":"user","content":"and now?","timestamp":1777626002000}`},
	}
	if diff := cmp.Diff(want, summarize(ctx.Messages)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if !ctx.FirstKeptFound || ctx.Compaction == nil || ctx.Compaction.ID != "c1" {
		t.Errorf("compaction = %v, firstKeptFound = %v", ctx.Compaction, ctx.FirstKeptFound)
	}
	if diff := cmp.Diff(&session.ModelRef{Provider: "anthropic", ModelID: "claude-sonnet-4-6"}, ctx.Model); diff != "" {
		t.Errorf("model (-want +got):\n%s", diff)
	}
	if ctx.ThinkingLevel != "off" {
		t.Errorf("thinking level = %q, want off", ctx.ThinkingLevel)
	}
	var path []string
	for _, e := range ctx.Path {
		path = append(path, e.ID)
	}
	if diff := cmp.Diff([]string{"a1", "a2", "a3", "c1", "m1", "a4"}, path); diff != "" {
		t.Errorf("path (-want +got):\n%s", diff)
	}

	llm := session.ConvertToLLM(ctx.Messages)
	wantText := session.CompactionSummaryPrefix + "## Goal\n..." + session.CompactionSummarySuffix
	if got := llm[0].Message.Text(); got != wantText || llm[0].Role != "user" {
		t.Errorf("llm[0] = %s %q, want user %q", llm[0].Role, got, wantText)
	}
	if want := `{"role":"user","content":[{"type":"text","text":"The conversation history before this point was compacted into the following summary:\n\n<summary>\n## Goal\n...\n</summary>"}],"timestamp":1777626000000}`; string(llm[0].JSON) != want {
		t.Errorf("llm[0].JSON =\n%s\nwant\n%s", llm[0].JSON, want)
	}
	if len(llm) != 4 || string(llm[1].JSON) != string(ctx.Messages[1].JSON) {
		t.Errorf("assistant must pass through unchanged: %d messages", len(llm))
	}
}

// The branch example of transcript §2.9: the leaf is u2, a1 is on a dead branch.
func TestBuildContextBranch(t *testing.T) {
	entries := decodeAll(t, `{"type":"session","version":3,"id":"S","timestamp":"T","cwd":"/"}
{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}
{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:01Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}],"provider":"p","model":"m"}}
{"type":"message","id":"u2","parentId":"u1","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":"actually"}}`)
	ctx := session.BuildContextFrom(entries, nil)
	var got []string
	for _, m := range ctx.Messages {
		got = append(got, m.Entry.ID)
	}
	if diff := cmp.Diff([]string{"u1", "u2"}, got); diff != "" {
		t.Errorf("context (-want +got):\n%s", diff)
	}
	if ctx.Model != nil {
		t.Errorf("model = %+v, want nil (a1 is off the path)", ctx.Model)
	}
	// An explicit leaf moves the branch; an explicit null gives nothing.
	a1 := "a1"
	if ctx := session.BuildContextFrom(entries, &a1); len(ctx.Messages) != 2 || ctx.Messages[1].Entry.ID != "a1" || ctx.Model == nil || ctx.Model.ModelID != "m" {
		t.Errorf("leaf a1: %+v", summarize(ctx.Messages))
	}
	null := ""
	if ctx := session.BuildContextFrom(entries, &null); len(ctx.Messages) != 0 {
		t.Errorf("null leaf: %d messages", len(ctx.Messages))
	}
}

func TestBuildContextEntryKinds(t *testing.T) {
	entries := decodeAll(t, `{"type":"thinking_level_change","id":"e1","parentId":null,"timestamp":"2026-01-01T00:00:00Z","thinkingLevel":"high"}
{"type":"model_change","id":"e2","parentId":"e1","timestamp":"2026-01-01T00:00:01Z","provider":"openai","modelId":"gpt-x"}
{"type":"custom_message","id":"e3","parentId":"e2","timestamp":"2026-01-01T00:00:02.5Z","customType":"memory-recall","content":"Remember: tabs","display":false}
{"type":"custom","id":"e4","parentId":"e3","timestamp":"2026-01-01T00:00:03Z","customType":"model-snapshot","data":{}}
{"type":"branch_summary","id":"e5","parentId":"e4","timestamp":"2026-01-01T00:00:04Z","fromId":"root","summary":"explored X"}
{"type":"branch_summary","id":"e6","parentId":"e5","timestamp":"2026-01-01T00:00:05Z","fromId":"e2","summary":""}
{"type":"label","id":"e7","parentId":"e6","timestamp":"2026-01-01T00:00:06Z","targetId":"e3","label":"x"}
{"type":"session_info","id":"e8","parentId":"e7","timestamp":"2026-01-01T00:00:07Z","name":"n"}
{"type":"message","id":"e9","parentId":"e8","timestamp":"2026-01-01T00:00:08Z","message":{"role":"bashExecution","command":"ls","output":"","exitCode":2,"cancelled":false,"truncated":true,"fullOutputPath":"/tmp/o","timestamp":9}}
{"type":"message","id":"e10","parentId":"e9","timestamp":"2026-01-01T00:00:09Z","message":{"role":"bashExecution","command":"x","output":"y","excludeFromContext":true,"timestamp":10}}
{"type":"message","id":"e11","parentId":"e10","timestamp":"2026-01-01T00:00:10Z","message":null}
{"type":"mystery","id":"e12","parentId":"e11","timestamp":"2026-01-01T00:00:11Z"}`)
	ctx := session.BuildContextFrom(entries, nil)
	want := []ctxMsg{
		{"custom", "e3", `{"role":"custom","customType":"memory-recall","content":"Remember: tabs","display":false,"timestamp":1767225602500}`},
		{"branchSummary", "e5", `{"role":"branchSummary","summary":"explored X","fromId":"root","timestamp":1767225604000}`},
		{"bashExecution", "e9", `{"role":"bashExecution","command":"ls","output":"","exitCode":2,"cancelled":false,"truncated":true,"fullOutputPath":"/tmp/o","timestamp":9}`},
		{"bashExecution", "e10", `{"role":"bashExecution","command":"x","output":"y","excludeFromContext":true,"timestamp":10}`},
	}
	if diff := cmp.Diff(want, summarize(ctx.Messages)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if ctx.ThinkingLevel != "high" || ctx.Model == nil || ctx.Model.ModelID != "gpt-x" {
		t.Errorf("thinking %q model %+v", ctx.ThinkingLevel, ctx.Model)
	}
	if len(ctx.Unusable) != 1 || ctx.Unusable[0].ID != "e11" {
		t.Errorf("unusable = %v, want e11", ctx.Unusable)
	}
	llm := summarize(session.ConvertToLLM(ctx.Messages))
	wantLLM := []ctxMsg{
		{"user", "e3", `{"role":"user","content":[{"type":"text","text":"Remember: tabs"}],"timestamp":1767225602500}`},
		{"user", "e5", `{"role":"user","content":[{"type":"text","text":"The following is a summary of a branch that this conversation came back from:\n\n<summary>\nexplored X</summary>"}],"timestamp":1767225604000}`},
		{"user", "e9", "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Ran `ls`\\n(no output)\\n\\nCommand exited with code 2\\n\\n[Output truncated. Full output: /tmp/o]\"}],\"timestamp\":9}"},
	}
	if diff := cmp.Diff(wantLLM, llm); diff != "" {
		t.Errorf("llm (-want +got):\n%s", diff)
	}
}

// A compaction whose firstKeptEntryId is not on the path keeps nothing before it.
func TestBuildContextFirstKeptMissing(t *testing.T) {
	entries := decodeAll(t, `{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"old"}}
{"type":"compaction","id":"c","parentId":"a","timestamp":"2026-01-01T00:00:01Z","summary":"s","firstKeptEntryId":"zz","tokensBefore":5}
{"type":"message","id":"b","parentId":"c","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":"new"}}`)
	ctx := session.BuildContextFrom(entries, nil)
	if got := summarize(ctx.Messages); len(got) != 2 || got[0].Role != "compactionSummary" || got[1].Entry != "b" || ctx.FirstKeptFound {
		t.Errorf("got %+v firstKeptFound=%v", got, ctx.FirstKeptFound)
	}
}

// TestBuildContextMessageValues pins what pi's buildSessionContext does with a message entry
// whose "message" is not an object (checked against OpenClaw 2026.3.13, 2026.4.24 and
// 2026.6.11: internal/conformance/replaycheck, the matrix's null-role block): a string, number, boolean
// or array is held as it is, in its place; null or an absent message makes it throw, wherever
// the entry is on the path, because it reads message.role of every message entry.
func TestBuildContextMessageValues(t *testing.T) {
	const head = `{"type":"message","id":"u","parentId":null,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi","timestamp":1}}` + "\n"
	for _, tc := range []struct {
		name, line string
		values     []string // the context's messages after u
		throws     string   // a part of Throws, "" for none
	}{
		{"string", `{"type":"message","id":"v","parentId":"u","timestamp":"2026-01-01T00:00:01Z","message":"hello"}`, []string{`"hello"`}, ""},
		{"number", `{"type":"message","id":"v","parentId":"u","timestamp":"2026-01-01T00:00:01Z","message":5}`, []string{`5`}, ""},
		{"array", `{"type":"message","id":"v","parentId":"u","timestamp":"2026-01-01T00:00:01Z","message":[]}`, []string{`[]`}, ""},
		{"boolean", `{"type":"message","id":"v","parentId":"u","timestamp":"2026-01-01T00:00:01Z","message":true}`, []string{`true`}, ""},
		{"empty object is a message", `{"type":"message","id":"v","parentId":"u","timestamp":"2026-01-01T00:00:01Z","message":{}}`, []string{`{}`}, ""},
		{"null", `{"type":"message","id":"v","parentId":"u","timestamp":"2026-01-01T00:00:01Z","message":null}`, nil, "entry v: its message is null"},
		{"absent", `{"type":"message","id":"v","parentId":"u","timestamp":"2026-01-01T00:00:01Z"}`, nil, "entry v: its message is undefined"},
		{"null before a compaction's kept region still throws", `{"type":"message","id":"v","parentId":"u","timestamp":"2026-01-01T00:00:01Z","message":null}
{"type":"message","id":"k","parentId":"v","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":"kept","timestamp":2}}
{"type":"compaction","id":"c","parentId":"k","timestamp":"2026-01-01T00:00:03Z","summary":"s","firstKeptEntryId":"k","tokensBefore":1}`, nil, "entry v: its message is null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := session.BuildContextFrom(decodeAll(t, head+tc.line), nil)
			if tc.throws != "" {
				if !strings.Contains(ctx.Throws, tc.throws) {
					t.Fatalf("Throws = %q, want it to name %q", ctx.Throws, tc.throws)
				}
				return
			}
			if ctx.Throws != "" {
				t.Fatalf("Throws = %q, want none", ctx.Throws)
			}
			var got []string
			for _, m := range ctx.Messages[1:] {
				got = append(got, string(m.JSON))
				if m.Value != (m.Message == nil) || (m.Value && m.Role != "") {
					t.Errorf("%s: Value %v, Message %v, Role %q", m.JSON, m.Value, m.Message, m.Role)
				}
			}
			if diff := cmp.Diff(tc.values, got); diff != "" {
				t.Errorf("messages after u (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBuildContextStrictTimestamps: OpenClaw 2026.6.11's agent core requires the timestamp of
// the entry a compaction summary, custom or branch summary message is made from to be a date
// string, and throws otherwise (found by the mutations: a flipped byte in a custom_message's
// timestamp); the older context takes new Date(timestamp) as it comes.
func TestBuildContextStrictTimestamps(t *testing.T) {
	const u = `{"type":"message","id":"u","parentId":null,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi","timestamp":1}}` + "\n"
	for _, tc := range []struct {
		name, line string
		throws     bool
	}{
		{"valid", `{"type":"custom_message","id":"c","parentId":"u","timestamp":"2026-01-01T00:00:01Z","customType":"x","content":"y","display":false}`, false},
		{"flipped byte", `{"type":"custom_message","id":"c","parentId":"u","timestamp":"2026-01-0b T00:00:01Z","customType":"x","content":"y","display":false}`, true},
		{"a number", `{"type":"custom_message","id":"c","parentId":"u","timestamp":1767225601000,"customType":"x","content":"y","display":false}`, true},
		{"blank", `{"type":"branch_summary","id":"c","parentId":"u","timestamp":"  ","fromId":"u","summary":"s"}`, true},
		{"empty branch summary makes no message", `{"type":"branch_summary","id":"c","parentId":"u","timestamp":"x","fromId":"u","summary":""}`, false},
		{"compaction", `{"type":"compaction","id":"c","parentId":"u","timestamp":"nope","summary":"s","firstKeptEntryId":"u","tokensBefore":1}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries := decodeAll(t, u+tc.line)
			strict := session.BuildContextStrict(entries)
			if (strict.Throws != "") != tc.throws {
				t.Errorf("strict Throws = %q, want throws=%v", strict.Throws, tc.throws)
			}
			if loose := session.BuildContext(entries); loose.Throws != "" {
				t.Errorf("BuildContext Throws = %q, want none", loose.Throws)
			}
		})
	}
}

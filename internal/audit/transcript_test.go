package audit_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/audit"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// Small synthetic transcript builders. parent "" writes parentId null.

func hdr() string {
	return `{"type":"session","version":3,"id":"5d1c0000-0000-4000-8000-000000000001","timestamp":"2026-05-01T08:00:00.000Z","cwd":"/w"}`
}

func par(p string) string {
	if p == "" {
		return "null"
	}
	return fmt.Sprintf("%q", p)
}

func ts(sec int) string { return fmt.Sprintf(`"2026-05-01T08:%02d:%02d.000Z"`, sec/60, sec%60) }

func ms(sec int) int64 { return 1777622400000 + int64(sec)*1000 }

func user(id, parent, text string) string {
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-05-01T08:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":%q}],"timestamp":1777622400000}}`, id, par(parent), text)
}

func userAt(id, parent, text string, sec int) string {
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":%s,"message":{"role":"user","content":[{"type":"text","text":%q}],"timestamp":%d}}`, id, par(parent), ts(sec), text, ms(sec))
}

func asstModel(id, parent, stop, provider, model string, sec int, blocks ...string) string {
	extra := ""
	if stop == "error" {
		extra = `,"errorMessage":"Request timed out."`
	}
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":%s,"message":{"role":"assistant","content":[%s],"api":"anthropic-messages","provider":%q,"model":%q,"stopReason":%q%s,"timestamp":%d}}`,
		id, par(parent), ts(sec), strings.Join(blocks, ","), provider, model, stop, extra, ms(sec))
}

func asst(id, parent, stop string, blocks ...string) string {
	return asstModel(id, parent, stop, "anthropic", "claude-sonnet-4-6", 0, blocks...)
}

func text(t string) string { return fmt.Sprintf(`{"type":"text","text":%q}`, t) }

func toolCall(id, name string) string {
	return fmt.Sprintf(`{"type":"toolCall","id":%q,"name":%q,"arguments":{"path":"a"}}`, id, name)
}

func result(id, parent, callID string) string {
	return resultAt(id, parent, callID, "read", `ok`, 0)
}

func resultAt(id, parent, callID, tool, body string, sec int) string {
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":%s,"message":{"role":"toolResult","toolCallId":%q,"toolName":%q,"content":[{"type":"text","text":%q}],"isError":false,"timestamp":%d}}`,
		id, par(parent), ts(sec), callID, tool, body, ms(sec))
}

func jl(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// clean is a healthy transcript: a user turn, a tool call and its result, a reply.
var clean = jl(hdr(), user("u1", "", "list files"), asst("a1", "u1", "toolUse", toolCall("c1", "read")),
	result("r1", "a1", "c1"), asst("a2", "r1", "stop", text("done")))

func check(t *testing.T, in string, opts audit.Options) []audit.Finding {
	t.Helper()
	fs, _, err := audit.CheckTranscript(context.Background(), strings.NewReader(in), "t.jsonl", opts)
	if err != nil {
		t.Fatalf("CheckTranscript: %v", err)
	}
	return fs
}

func rulesOf(fs []audit.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule)
	}
	sort.Strings(out)
	return out
}

func TestCleanTranscriptHasNoFindings(t *testing.T) {
	if fs := check(t, clean, audit.Options{}); len(fs) != 0 {
		t.Fatalf("clean transcript: %v", fs)
	}
}

// TestRules makes every transcript rule fire on a small input (rule and line checked) and
// stay quiet on the correct form of the same input.
func TestRules(t *testing.T) {
	big := strings.Repeat("A", 7<<20) // base64 of ~5.2 MB
	for _, tc := range []struct {
		rule  string
		fire  string
		line  int64
		quiet string
		opts  audit.Options
	}{
		{"jsonl.malformed-line", jl(hdr(), user("u1", "", "hi"), `{"type":"message","id":"x1","parentId":"u1","mess`), 3, clean, audit.Options{}},
		{"jsonl.malformed-line", hdr() + "\n" + user("u1", "", "hi") + "\n" + `{"type":"message","id":"x1"`, 3, clean, audit.Options{}}, // torn, no final newline
		{"jsonl.bom", "\xEF\xBB\xBF" + clean, 1, clean, audit.Options{}},
		{"jsonl.nul-bytes", jl(hdr(), user("u1", "", "hi"), "\x00\x00\x00\x00"), 3, clean, audit.Options{}},
		{"jsonl.concatenated", jl(hdr(), user("u1", "", "hi")+asst("a1", "u1", "stop", text("yo"))), 2, jl(hdr(), user("u1", "", "hi"), asst("a1", "u1", "stop", text("yo"))), audit.Options{}},
		{"jsonl.invalid-utf8", jl(hdr(), strings.Replace(user("u1", "", "cafX"), "cafX", "caf\xe9", 1)), 2, jl(hdr(), user("u1", "", "café")), audit.Options{}},
		{"jsonl.crlf", strings.ReplaceAll(clean, "\n", "\r\n"), 1, clean, audit.Options{}},
		{"jsonl.missing-final-newline", strings.TrimSuffix(clean, "\n"), 5, clean, audit.Options{}},
		{"jsonl.line-too-long", jl(hdr(), user("u1", "", strings.Repeat("x", 500))), 2, jl(hdr(), user("u1", "", strings.Repeat("x", 100))), audit.Options{MaxLine: 300}},
		{"header.missing", jl(user("u1", "", "hi"), asst("a1", "u1", "stop", text("yo"))), 1, clean, audit.Options{}},
		{"header.invalid", jl(`{"type":"session","version":3,"id":"","timestamp":"2026-05-01T08:00:00.000Z","cwd":"/w"}`, user("u1", "", "hi")), 1, clean, audit.Options{}},
		{"header.invalid", jl(`{"type":"session","version":4,"id":"s","timestamp":"2026-05-01T08:00:00.000Z","cwd":"/w"}`, user("u1", "", "hi")), 1,
			jl(`{"type":"session","id":"s","timestamp":"2026-05-01T08:00:00.000Z","cwd":"/w"}`, user("u1", "", "hi")), audit.Options{}}, // v1 (no version) is fine
		{"header.duplicate", jl(hdr(), user("u1", "", "hi"), hdr(), user("u2", "u1", "again")), 3, clean, audit.Options{}},
		{"tree.dangling-parent", jl(hdr(), user("u1", "", "hi"), asst("a1", "zz", "stop", text("yo")), user("u2", "u1", "x")), 3, clean, audit.Options{}},
		{"tree.duplicate-id", jl(hdr(), user("u1", "", "hi"), asst("u1", "u1", "stop", text("yo"))), 3, clean, audit.Options{}},
		{"tree.multiple-roots", jl(hdr(), user("u1", "", "hi"), user("u2", "", "again"), asst("a1", "u1", "stop", text("yo"))), 3, clean, audit.Options{}},
		{"tree.cycle", jl(hdr(), user("u1", "", "hi"), user("x1", "x2", "a"), user("x2", "x1", "b"), asst("a1", "u1", "stop", text("yo"))), 3, clean, audit.Options{}},
		{"compaction.first-kept-missing", jl(hdr(), user("u1", "", "hi"), asst("a1", "u1", "stop", text("yo")),
			`{"type":"compaction","id":"c1","parentId":"a1","timestamp":"2026-05-01T09:00:00.000Z","summary":"s","firstKeptEntryId":"gone","tokensBefore":100}`, user("u2", "c1", "next")), 4,
			jl(hdr(), user("u1", "", "hi"), asst("a1", "u1", "stop", text("yo")),
				`{"type":"compaction","id":"c1","parentId":"a1","timestamp":"2026-05-01T09:00:00.000Z","summary":"s","firstKeptEntryId":"a1","tokensBefore":100}`, user("u2", "c1", "next")), audit.Options{}},
		{"message.null-role", jl(hdr(), user("u1", "", "hi"), `{"type":"message","id":"m1","parentId":"u1","timestamp":"2026-05-01T08:00:00.000Z","message":null}`), 3, clean, audit.Options{}},
		{"message.empty-error-assistant", jl(hdr(), user("u1", "", "hi"), asst("a1", "u1", "error")), 3,
			jl(hdr(), user("u1", "", "hi"), asst("a1", "u1", "error", text("partial"))), audit.Options{}},
		{"message.blank-user", jl(hdr(), user("u1", "", "  \n ")), 2, jl(hdr(), user("u1", "", "hi")), audit.Options{}},
		{"image.oversized", jl(hdr(), `{"type":"message","id":"u1","parentId":null,"timestamp":"2026-05-01T08:00:00.000Z","message":{"role":"user","content":[{"type":"image","data":"`+big+`","mimeType":"image/png"}],"timestamp":1}}`), 2,
			jl(hdr(), `{"type":"message","id":"u1","parentId":null,"timestamp":"2026-05-01T08:00:00.000Z","message":{"role":"user","content":[{"type":"image","data":"AAAA","mimeType":"image/png"}],"timestamp":1}}`), audit.Options{}},
		{"tool.unpaired-call", jl(hdr(), user("u1", "", "hi"), asst("a1", "u1", "toolUse", toolCall("c1", "read")), user("u2", "a1", "well?")), 3, clean, audit.Options{}},
		{"tool.orphan-result", jl(hdr(), user("u1", "", "hi"), result("r1", "u1", "c9"), asst("a1", "r1", "stop", text("yo"))), 3, clean, audit.Options{}},
		{"tool.duplicate-result", jl(hdr(), user("u1", "", "hi"), asst("a1", "u1", "toolUse", toolCall("c1", "read")), result("r1", "a1", "c1"), result("r2", "r1", "c1"), asst("a2", "r2", "stop", text("ok"))), 5, clean, audit.Options{}},
		{"tool.displaced-result", jl(hdr(), user("u1", "", "hi"), asst("a1", "u1", "toolUse", toolCall("c1", "read")), user("u2", "a1", "hurry"), result("r1", "u2", "c1"), asst("a2", "r1", "stop", text("ok"))), 5, clean, audit.Options{}},
		{"tool.reused-call-id", jl(hdr(), user("u1", "", "hi"), asst("a1", "u1", "toolUse", toolCall("functions.read:0", "read")), result("r1", "a1", "functions.read:0"), asst("a2", "r1", "stop", text("ok")),
			user("u2", "a2", "again"), asst("a3", "u2", "toolUse", toolCall("functions.read:0", "read")), result("r2", "a3", "functions.read:0"), asst("a4", "r2", "stop", text("ok"))), 7,
			jl(hdr(), user("u1", "", "hi"), asst("a1", "u1", "toolUse", toolCall("functions.read:0", "read")), result("r1", "a1", "functions.read:0"), asst("a2", "r1", "stop", text("ok")),
				user("u2", "a2", "again"), asst("a3", "u2", "toolUse", toolCall("functions.read:1", "read")), result("r2", "a3", "functions.read:1"), asst("a4", "r2", "stop", text("ok"))), audit.Options{}},
		{"tool.invalid-call", jl(hdr(), user("u1", "", "hi"), asst("a1", "u1", "toolUse", `{"type":"toolCall","id":"c1","name":"read"}`), result("r1", "a1", "c1"), asst("a2", "r1", "stop", text("ok"))), 3, clean, audit.Options{}},
		{"tool.invalid-call", jl(hdr(), user("u1", "", "hi"), asst("a1", "u1", "toolUse", `{"type":"toolUse","id":"c1","name":"bad name <|x|>","input":{}}`), result("r1", "a1", "c1"), asst("a2", "r1", "stop", text("ok"))), 3,
			jl(hdr(), user("u1", "", "hi"), asst("a1", "u1", "toolUse", `{"type":"toolUse","id":"c1","name":"read_file","input":{}}`), result("r1", "a1", "c1"), asst("a2", "r1", "stop", text("ok"))), audit.Options{}},
		{"fallback.lost-prompt", jl(hdr(), user("u1", "", "summarize the Q3 report"), asst("e1", "u1", "error"), user("u2", "e1", audit.RetryText), asst("a2", "u2", "stop", text("continuing"))), 4,
			jl(hdr(), user("u1", "", "summarize the Q3 report"), asst("e1", "u1", "error"), user("u2", "e1", audit.RetryMarker+"\n\nsummarize the Q3 report"), asst("a2", "u2", "stop", text("here"))), audit.Options{}},
		{"fallback.chain", jl(hdr(), user("u1", "", "hi"), asstModel("e1", "u1", "error", "openai", "gpt-5.4", 1), asstModel("a2", "e1", "stop", "anthropic", "claude-sonnet-4-6", 2, text("hello"))), 4,
			jl(hdr(), user("u1", "", "hi"), asstModel("e1", "u1", "error", "openai", "gpt-5.4", 1), asstModel("a2", "e1", "stop", "openai", "gpt-5.4", 2, text("hello"))), audit.Options{}},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			fs := check(t, tc.fire, tc.opts)
			var got *audit.Finding
			for i := range fs {
				if fs[i].Rule == tc.rule {
					got = &fs[i]
					break
				}
			}
			if got == nil {
				t.Fatalf("%s did not fire; got %v", tc.rule, rulesOf(fs))
			}
			if got.Line != tc.line {
				t.Errorf("%s at line %d, want %d (%s)", tc.rule, got.Line, tc.line, got.Message)
			}
			if got.Path != "t.jsonl" || got.Message == "" {
				t.Errorf("finding lacks path or message: %+v", got)
			}
			r, _ := audit.RuleByID(tc.rule)
			if got.Severity != r.Severity {
				t.Errorf("severity %v, want %v", got.Severity, r.Severity)
			}
			for _, f := range check(t, tc.quiet, tc.opts) {
				if f.Rule == tc.rule {
					t.Errorf("%s fired on the correct form: %s", tc.rule, f.Message)
				}
			}
		})
	}
}

func evidence(t *testing.T, fs []audit.Finding, rule string) map[string]any {
	t.Helper()
	for _, f := range fs {
		if f.Rule == rule {
			return f.Evidence
		}
	}
	t.Fatalf("no %s in %v", rule, rulesOf(fs))
	return nil
}

func TestLostPromptRecoversReplacedPrompt(t *testing.T) {
	fs := check(t, jl(hdr(), user("u0", "", "hello"), asst("a0", "u0", "stop", text("hi")),
		user("u1", "a0", "[Telegram Ann id:42] summarize the Q3 report"), asst("e1", "u1", "error"),
		`{"type":"custom","id":"s2","parentId":"e1","timestamp":"2026-05-01T08:00:00.000Z","customType":"model-snapshot","data":{"timestamp":1,"provider":"anthropic","modelApi":"anthropic-messages","modelId":"claude-sonnet-4-6"}}`,
		user("u2", "s2", audit.RetryText)), audit.Options{})
	ev := evidence(t, fs, "fallback.lost-prompt")
	want := map[string]any{"retryText": audit.RetryText, "replacedPrompt": "[Telegram Ann id:42] summarize the Q3 report",
		"promptEntryId": "u1", "promptLine": int64(4), "answeredBeforeRetry": false}
	if diff := cmp.Diff(want, ev); diff != "" {
		t.Errorf("evidence (-want +got):\n%s", diff)
	}
}

func TestLostPromptUnrecoverable(t *testing.T) {
	// a subagent whose task never reached the transcript: the retry text is the first user turn
	fs := check(t, jl(hdr(), user("u1", "", audit.RetryText), asst("a1", "u1", "stop", text("ok"))), audit.Options{})
	ev := evidence(t, fs, "fallback.lost-prompt")
	if ev["unrecoverable"] != true || ev["replacedPrompt"] != nil {
		t.Errorf("evidence %v, want unrecoverable", ev)
	}
}

func TestToolRulesOnlyOnActiveBranch(t *testing.T) {
	// a1's call is unanswered but a1 is on a dead branch: the leaf u2 branches from u1
	in := jl(hdr(), user("u1", "", "hi"), asst("a1", "u1", "toolUse", toolCall("c1", "read")), result("r9", "a1", "c7"),
		user("u2", "u1", "actually…"))
	for _, f := range check(t, in, audit.Options{}) {
		if strings.HasPrefix(f.Rule, "tool.") {
			t.Errorf("tool rule on a dead branch: %s", f.Message)
		}
	}
}

func TestMirrorRowsDoNotDisplaceResults(t *testing.T) {
	in := jl(hdr(), user("u1", "", "hi"), asst("a1", "u1", "toolUse", sendCall("s1", "on it")), mirror("m1", "a1", "on it", 1),
		resultAt("r1", "m1", "s1", "message", `{"ok":true}`, 2), asst("a2", "r1", "stop", text("done")))
	for _, f := range check(t, in, audit.Options{}) {
		t.Errorf("unexpected %s: %s", f.Rule, f.Message)
	}
}

func TestAbortedTurnCallsAreNotUnpaired(t *testing.T) {
	in := jl(hdr(), user("u1", "", "hi"), asst("a1", "u1", "aborted", toolCall("c1", "read")), user("u2", "a1", "retry"), asst("a2", "u2", "stop", text("ok")))
	for _, f := range check(t, in, audit.Options{}) {
		if f.Rule == "tool.unpaired-call" {
			t.Errorf("aborted turn reported: %s", f.Message)
		}
	}
}

// TestReusedCallID: the later call pairs with its own result (no duplicate, no unpaired call),
// the finding names the earlier call and carries what the real OpenClaw releases do; an id
// used twice in one turn, or a reuse on a dead branch, is not reported.
func TestReusedCallID(t *testing.T) {
	const id = "functions.exec:0"
	fs := check(t, jl(hdr(), user("u1", "", "hi"), asst("a1", "u1", "toolUse", toolCall(id, "exec")), result("r1", "a1", id), asst("a2", "r1", "stop", text("ok")),
		user("u2", "a2", "again"), asst("a3", "u2", "toolUse", toolCall(id, "exec")), result("r2", "a3", id), asst("a4", "r2", "stop", text("done"))), audit.Options{})
	if diff := cmp.Diff([]string{"tool.reused-call-id"}, rulesOf(fs)); diff != "" {
		t.Fatalf("rules (-want +got):\n%s", diff)
	}
	ev := fs[0].Evidence
	if ev["earlierLine"] != int64(4) || ev["earlierCall"] != "answered" || ev["toolCallId"] != id {
		t.Errorf("evidence %v", ev)
	}
	if loses := ev["losesResult"].(map[string][]string); len(loses["2026.3.13"]) == 0 || !strings.Contains(fs[0].Message, "2026.6.11") {
		t.Errorf("no release facts: %v / %s", loses, fs[0].Message)
	}
	// an unanswered earlier call stays unpaired and is named as such
	fs = check(t, jl(hdr(), user("u1", "", "hi"), asst("a1", "u1", "toolUse", toolCall(id, "exec")), user("u2", "a1", "well?"),
		asst("a3", "u2", "toolUse", toolCall(id, "exec")), result("r2", "a3", id), asst("a4", "r2", "stop", text("done"))), audit.Options{})
	if diff := cmp.Diff([]string{"tool.reused-call-id", "tool.unpaired-call"}, rulesOf(fs)); diff != "" {
		t.Fatalf("rules (-want +got):\n%s", diff)
	}
	// twice in one turn: a different problem (providers reject it), not a reuse across turns
	for _, f := range check(t, jl(hdr(), user("u1", "", "hi"), asst("a1", "u1", "toolUse", toolCall(id, "exec"), toolCall(id, "exec")), result("r1", "a1", id), asst("a2", "r1", "stop", text("ok"))), audit.Options{}) {
		if f.Rule == "tool.reused-call-id" {
			t.Errorf("same turn reported as reuse: %s", f.Message)
		}
	}
	// the first use on a dead branch
	for _, f := range check(t, jl(hdr(), user("u1", "", "hi"), asst("a1", "u1", "toolUse", toolCall(id, "exec")), result("r1", "a1", id),
		user("u2", "u1", "instead"), asst("a3", "u2", "toolUse", toolCall(id, "exec")), result("r2", "a3", id), asst("a4", "r2", "stop", text("done"))), audit.Options{}) {
		if f.Rule == "tool.reused-call-id" {
			t.Errorf("dead-branch use reported: %s", f.Message)
		}
	}
}

func sendCall(id, msg string) string {
	return fmt.Sprintf(`{"type":"toolCall","id":%q,"name":"message","arguments":{"action":"send","message":%q,"target":"42"}}`, id, msg)
}

func mirror(id, parent, body string, sec int) string {
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":%s,"message":{"role":"assistant","content":[{"type":"text","text":%q}],"api":"openclaw-transcript","provider":"openclaw","model":"delivery-mirror","stopReason":"stop","timestamp":%d}}`, id, par(parent), ts(sec), body, ms(sec))
}

// batchedTurn: three sends at 5 s, 100 s and 190 s, the turn ends at 210 s; mirrors at the
// given seconds.
func batchedTurn(mirrorAt ...int) string {
	lines := []string{hdr(), userAt("u1", "", "report progress", 0),
		asstModel("a1", "u1", "toolUse", "anthropic", "m", 4, sendCall("s1", "step 1")), resultAt("r1", "a1", "s1", "message", `{"ok":true,"messageId":"9801"}`, 5),
		asstModel("a2", "r1", "toolUse", "anthropic", "m", 99, sendCall("s2", "step 2")), resultAt("r2", "a2", "s2", "message", `{"ok":true,"messageId":"9802"}`, 100),
		asstModel("a3", "r2", "toolUse", "anthropic", "m", 189, sendCall("s3", "step 3")), resultAt("r3", "a3", "s3", "message", `{"ok":true,"messageId":"9803"}`, 190),
		asstModel("a4", "r3", "stop", "anthropic", "m", 210, text("all done"))}
	parent := "a4"
	for i, sec := range mirrorAt {
		id := fmt.Sprintf("m%d", i)
		lines = append(lines, mirror(id, parent, fmt.Sprintf("step %d", i+1), sec))
		parent = id
	}
	return jl(lines...)
}

func TestMessageBatched(t *testing.T) {
	t.Run("confirmed by delivery mirrors", func(t *testing.T) {
		ev := evidence(t, check(t, batchedTurn(211, 211, 212), audit.Options{}), "delivery.message-batched")
		if ev["status"] != "confirmed" || ev["sends"] != 3 {
			t.Fatalf("evidence %v", ev)
		}
		msgs := ev["messages"].([]map[string]any)
		if msgs[0]["delayMs"] != int64(206000) || msgs[2]["messageId"] != "9803" {
			t.Errorf("per-message delay: %v", msgs)
		}
	})
	t.Run("at risk without delivery times", func(t *testing.T) {
		fs := check(t, batchedTurn(), audit.Options{})
		ev := evidence(t, fs, "delivery.message-batched")
		if ev["status"] != "at-risk" || fs[0].Severity != audit.Info {
			t.Fatalf("evidence %v severity %v: want at-risk, info", ev, fs[0].Severity)
		}
	})
	t.Run("quiet when mirrors track the sends", func(t *testing.T) {
		for _, f := range check(t, batchedTurn(6, 101, 191), audit.Options{}) {
			if f.Rule == "delivery.message-batched" {
				t.Errorf("fired: %s", f.Message)
			}
		}
	})
}

func TestPerRuleCap(t *testing.T) {
	var lines []string
	lines = append(lines, hdr())
	for i := 0; i < 30; i++ {
		lines = append(lines, "not json")
	}
	fs := check(t, jl(lines...), audit.Options{MaxPerRule: 10})
	if len(fs) != 10 {
		t.Fatalf("got %d findings, want 10", len(fs))
	}
	if fs[9].Omitted != 20 {
		t.Errorf("last finding omitted %d, want 20", fs[9].Omitted)
	}
}

// TestSummaryCountsEveryFinding: the cap limits what is listed, never what is counted
// (issue 14: summary.errors once counted 280 of 547 bad lines).
func TestSummaryCountsEveryFinding(t *testing.T) {
	lines := []string{hdr(), user("u1", "", "hi")}
	for i := 0; i < 37; i++ {
		lines = append(lines, "not json")
	}
	for i := 0; i < 3; i++ {
		lines = append(lines, "\x00\x00")
	}
	lines = append(lines, user("u2", "u1", " "))
	two := jl(lines...)
	dir := sessionsDir(t, map[string]string{"a.jsonl": two, "b.jsonl": two})
	res, err := audit.Run(context.Background(), []string{dir}, audit.Options{Now: now, MaxPerRule: 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]int{}
	for _, f := range res.Findings {
		listed[f.Rule]++
	}
	// per file: 37 malformed (10 listed), 3 NUL lines, 1 blank user
	want := audit.Summary{Files: 2, Entries: 4, Errors: 2 * (37 + 3), Warnings: 2, Omitted: 2 * 27, Rules: []audit.RuleCount{
		{Rule: "jsonl.malformed-line", Severity: audit.Error, Count: 74, Omitted: 54},
		{Rule: "jsonl.nul-bytes", Severity: audit.Error, Count: 6},
		{Rule: "message.blank-user", Severity: audit.Warning, Count: 2},
	}}
	if diff := cmp.Diff(want, res.Summary); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if listed["jsonl.malformed-line"] != 20 {
		t.Errorf("listed %d malformed-line findings, want 10 per file", listed["jsonl.malformed-line"])
	}
}

func TestEveryRuleHasTests(t *testing.T) {
	// the rule list is the documentation's source; every id must be well-formed and unique
	seen := map[string]bool{}
	for _, r := range audit.Rules {
		if seen[r.ID] || !strings.Contains(r.ID, ".") || r.Description == "" {
			t.Errorf("bad or duplicate rule %+v", r)
		}
		seen[r.ID] = true
	}
}

// TestDeepLines: the one-pass reader (jsonl.Doc) gives up past 256 levels; such a line is read
// by fastjson instead up to its 300, so an entry nested 270 deep is audited like a shallow one
// (a tool result carries it: no finding, four entries), and deeper ones are reported as not
// checked, never as malformed (the entry is not read: the reply after it has a dangling
// parent). The same findings as before the Doc, checked by hand on c66ade4's binary.
func TestDeepLines(t *testing.T) {
	nested := func(depth int) string {
		return strings.Repeat("[", depth) + strings.Repeat("]", depth)
	}
	deepResult := func(depth int) string {
		return fmt.Sprintf(`{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-05-01T08:00:00.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"ok"}],"details":%s,"isError":false,"timestamp":1777622400000}}`, nested(depth))
	}
	for _, tc := range []struct {
		depth int
		want  []string // rules found
		deep  string   // what the line-too-long message says
	}{
		{depth: 250},
		{depth: 270},
		{depth: 320, want: []string{"jsonl.line-too-long", "tree.dangling-parent"}, deep: "deeper than the 300 levels"},
		{depth: 10001, want: []string{"jsonl.line-too-long", "tree.dangling-parent"}, deep: "deeper than 10000 levels"},
	} {
		in := jl(hdr(), user("u1", "", "read a"), asst("a1", "u1", "toolUse", toolCall("c1", "read")), deepResult(tc.depth), asst("a2", "r1", "stop", text("done")))
		fs, n, err := audit.CheckTranscript(context.Background(), strings.NewReader(in), "deep.jsonl", audit.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			if f.Rule == "jsonl.line-too-long" && !strings.Contains(f.Message, tc.deep) {
				t.Errorf("depth %d: %q does not say %q", tc.depth, f.Message, tc.deep)
			}
		}
		if diff := cmp.Diff(tc.want, rulesOf(fs)); diff != "" {
			t.Errorf("depth %d: rules (-want +got):\n%s", tc.depth, diff)
		}
		wantN := int64(4) // a line not checked is no entry
		if tc.want != nil {
			wantN = 3
		}
		if n != wantN {
			t.Errorf("depth %d: %d entries read, want %d", tc.depth, n, wantN)
		}
	}
}

// TestLineOfManyValues: a line holding more values than a Doc keeps (jsonl.DocMaxValues, made
// small here) is reported as not checked, with no tree of its values built; the entries around
// it are read, and a line under the limit is read as any other.
func TestLineOfManyValues(t *testing.T) {
	defer func(n int) { jsonl.DocMaxValues = n }(jsonl.DocMaxValues)
	jsonl.DocMaxValues = 1000
	many := func(n int) string {
		return fmt.Sprintf(`{"type":"custom","id":"x1","parentId":"u1","timestamp":"2026-05-01T08:00:00.000Z","customType":"blob","data":[%s1]}`, strings.Repeat("1,", n-1))
	}
	for _, tc := range []struct {
		values int
		nul    bool // a NUL byte in the line: read leniently, with the same limit
		want   []string
	}{
		{values: 900},
		{values: 5000, want: []string{"jsonl.line-too-long", "tree.dangling-parent"}},
		{values: 900, nul: true, want: []string{"jsonl.nul-bytes"}},
		{values: 5000, nul: true, want: []string{"jsonl.nul-bytes", "tree.dangling-parent"}},
	} {
		line := many(tc.values)
		if tc.nul {
			line = strings.Replace(line, `"blob"`, "\"bl\x00ob\"", 1)
		}
		in := jl(hdr(), user("u1", "", "hi"), line, asst("a1", "x1", "stop", text("yo")))
		fs := check(t, in, audit.Options{})
		for _, f := range fs {
			if f.Rule == "jsonl.line-too-long" && (f.Evidence["tooBig"] != true || !strings.Contains(f.Message, "more than the 1000 values")) {
				t.Errorf("%d values: %q %v", tc.values, f.Message, f.Evidence)
			}
		}
		if diff := cmp.Diff(tc.want, rulesOf(fs)); diff != "" {
			t.Errorf("%d values: rules (-want +got):\n%s", tc.values, diff)
		}
	}
}

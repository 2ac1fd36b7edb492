package replay_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/clawdoctor/clawdoctor/internal/compaction"
	"github.com/clawdoctor/clawdoctor/internal/hygiene"
	"github.com/clawdoctor/clawdoctor/internal/replay"
	"github.com/clawdoctor/clawdoctor/internal/session"
)

// example is context-and-forensics.md §1.7 plus a dead branch.
const example = `{"type":"session","version":3,"id":"5d1c","timestamp":"2026-05-01T08:00:00.000Z","cwd":"/w"}
{"type":"message","id":"a1","parentId":null,"timestamp":"2026-05-01T08:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"list files"}],"timestamp":1777622401000}}
{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-05-01T08:00:03.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"exec","arguments":{"command":"ls"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-6","usage":{"input":9000,"output":40,"cacheRead":0,"cacheWrite":0,"totalTokens":9040,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1777622403000}}
{"type":"message","id":"a3","parentId":"a2","timestamp":"2026-05-01T08:00:04.000Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"exec","content":[{"type":"text","text":"a.txt\nb.txt"}],"isError":false,"timestamp":1777622404000}}
{"type":"compaction","id":"c1","parentId":"a3","timestamp":"2026-05-01T09:00:00.000Z","summary":"## Goal\n...","firstKeptEntryId":"a2","tokensBefore":181000,"details":{"readFiles":[],"modifiedFiles":[]}}
{"type":"custom","id":"m1","parentId":"c1","timestamp":"2026-05-01T09:00:01.000Z","customType":"model-snapshot","data":{"timestamp":1777626001000,"provider":"anthropic","modelApi":"anthropic-messages","modelId":"claude-sonnet-4-6"}}
{"type":"message","id":"dead","parentId":"c1","timestamp":"2026-05-01T09:00:01.500Z","message":{"role":"user","content":"abandoned","timestamp":1777626001500}}
{"type":"custom_message","id":"cm","parentId":"m1","timestamp":"2026-05-01T09:00:01.700Z","customType":"memory-recall","content":"Remember: tabs","display":false}
{"type":"message","id":"a4","parentId":"cm","timestamp":"2026-05-01T09:00:02.000Z","message":{"role":"user","content":"and now?","timestamp":1777626002000}}
`

func run(t *testing.T, src string, o replay.Options) *replay.Result {
	t.Helper()
	if o.Provider == "" {
		o.Provider, o.Model, o.API = "anthropic", "claude-sonnet-4-5", "anthropic-messages"
	}
	o.NowMs = testNow
	res, err := replay.Run(context.Background(), strings.NewReader(src), "s.jsonl", o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestContextExample: the history OpenClaw sanitizes is the context as AgentMessages (the
// compaction summary and the custom message keep their roles; convertToLlm runs later), so
// nothing merges the custom message into the user turn. (OpenClaw 2026.6.11 gives exactly
// these messages: internal/conformance/replaycheck records it.)
func TestContextExample(t *testing.T) {
	res := run(t, example, replay.Options{})
	if diff := cmp.Diff([]string{"summary:c1", "a2", "a3", "cm", "a4"}, res.Refs); diff != "" {
		t.Errorf("sent messages (-want +got):\n%s", diff)
	}
	if s, _ := hygiene.Str(res.Messages[0], "summary"); hygiene.Role(res.Messages[0]) != "compactionSummary" || s != "## Goal\n..." {
		t.Errorf("first message = %v, want the compaction summary", res.Messages[0])
	}
	if hygiene.Role(res.Messages[3]) != "custom" || hygiene.Role(res.Messages[4]) != "user" {
		t.Errorf("custom message and user turn: %v %v", res.Messages[3], res.Messages[4])
	}
	if res.Context.Leaf != "a4" || res.Context.Compaction != "c1" || !res.Context.FirstKeptFound {
		t.Errorf("context = %+v", res.Context)
	}
	if !res.Context.OrphanUserLeaf {
		t.Error("the leaf a4 is a user message: §7.1 orphan leaf not reported")
	}
	if m := res.Context.Model; m == nil || m.Provider != "anthropic" || m.ModelID != "claude-sonnet-4-6" {
		t.Errorf("model from the path = %+v", m)
	}
	if ms := res.Context.ModelSnapshot; !ms.Found || !ms.WouldAppend || !strings.Contains(ms.Reason, "claude-sonnet-4-6") {
		t.Errorf("snapshot for claude-sonnet-4-5 = %+v, want a model change", ms)
	}
	same := run(t, example, replay.Options{Provider: "anthropic", Model: "claude-sonnet-4-6", API: "anthropic-messages"})
	if same.Context.ModelSnapshot.WouldAppend {
		t.Errorf("same model: %+v", same.Context.ModelSnapshot)
	}
	// a2's usage predates the compaction: zeroed, and the trigger estimates instead
	u := res.Messages[1]["usage"].(map[string]any)
	if n, _ := hygiene.Num(u, "totalTokens"); n != 0 {
		t.Errorf("stale usage kept: %v", u)
	}
	if res.Compaction.Trigger.Source != "none" {
		t.Errorf("trigger source = %s, want none (the last assistant predates the compaction)", res.Compaction.Trigger.Source)
	}
	if res.Compaction.Trigger.WouldCompact {
		t.Error("a tiny context must not compact")
	}
}

func TestLeafOption(t *testing.T) {
	res := run(t, example, replay.Options{Leaf: "dead"})
	if diff := cmp.Diff([]string{"summary:c1", "a2", "a3", "dead"}, res.Refs); diff != "" {
		t.Errorf("sent messages for --leaf dead (-want +got):\n%s", diff)
	}
	_, err := replay.Run(context.Background(), strings.NewReader(example), "s.jsonl",
		replay.Options{Provider: "anthropic", Model: "m", Leaf: "nope"})
	if !errors.Is(err, replay.ErrUnknownLeaf) || !strings.Contains(err.Error(), "s.jsonl") {
		t.Errorf("unknown leaf: err = %v", err)
	}
}

func TestBadLinesAreWarnings(t *testing.T) {
	src := strings.Replace(example, `{"type":"custom","id":"m1"`, "{not json\n"+`{"type":"custom","id":"m1"`, 1)
	res := run(t, src, replay.Options{})
	if res.Context.SkippedLines != 1 || !strings.Contains(res.Context.Warnings[0], "s.jsonl:6:") {
		t.Errorf("warnings = %q", res.Context.Warnings)
	}
}

func TestSplitTurnPlan(t *testing.T) {
	// one user turn followed by a long tool loop: the cut lands inside the turn
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"s","timestamp":"2026-05-01T08:00:00Z","cwd":"/w"}` + "\n")
	b.WriteString(`{"type":"message","id":"u0","parentId":null,"timestamp":"2026-05-01T08:00:00Z","message":{"role":"user","content":"go","timestamp":1}}` + "\n")
	prev := "u0"
	big := strings.Repeat("x", 40000)
	for i := 0; i < 6; i++ {
		a, r := "a"+string(rune('0'+i)), "r"+string(rune('0'+i))
		b.WriteString(`{"type":"message","id":"` + a + `","parentId":"` + prev + `","timestamp":"2026-05-01T08:00:01Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c` + a + `","name":"read","arguments":{}}],"stopReason":"toolUse","usage":{"totalTokens":100}}}` + "\n")
		b.WriteString(`{"type":"message","id":"` + r + `","parentId":"` + a + `","timestamp":"2026-05-01T08:00:02Z","message":{"role":"toolResult","toolCallId":"c` + a + `","toolName":"read","content":[{"type":"text","text":"` + big + `"}],"isError":false}}` + "\n")
		prev = r
	}
	res := run(t, b.String(), replay.Options{})
	cp := res.Compaction
	if !cp.Cut.IsSplitTurn || cp.Cut.TurnStartIndex != 0 || cp.FirstKeptEntryID != "a5" {
		t.Fatalf("cut = %+v first kept %s, want a split turn from u0 keeping from a5 (the first cut point at or after the entry that fills keepRecentTokens)", cp.Cut, cp.FirstKeptEntryID)
	}
	if cp.Summarize.Len() != 0 || cp.TurnPrefix.Len() != 11 {
		t.Errorf("summarize %+v prefix %+v: the history before the turn is empty, the prefix is u0..r4", cp.Summarize, cp.TurnPrefix)
	}
	in := replay.SummaryInput(res)
	if !strings.Contains(in, "[User]: go") || !strings.Contains(in, "[Tool result]: "+strings.Repeat("x", 2000)+"\n\n[... 38000 more characters truncated]") {
		t.Errorf("summary input lacks the turn prefix or the truncation: %.300s", in)
	}
}

func TestRunSummaryCmd(t *testing.T) {
	if _, err := exec.LookPath("cat"); err != nil {
		t.Skip("no cat")
	}
	out, err := replay.RunSummaryCmd(context.Background(), []string{"cat"}, "hello", 5*time.Second)
	if err != nil || out != "hello" {
		t.Fatalf("cat: %q %v", out, err)
	}
	if _, err := exec.LookPath("sleep"); err == nil {
		start := time.Now()
		_, err := replay.RunSummaryCmd(context.Background(), []string{"sleep", "10"}, "", 200*time.Millisecond)
		if !errors.Is(err, replay.ErrSummaryTimeout) || time.Since(start) > 5*time.Second {
			t.Errorf("timeout: err %v after %s", err, time.Since(start))
		}
	}
	if _, err := replay.RunSummaryCmd(context.Background(), []string{"false"}, "", time.Second); err == nil {
		t.Error("a failing command must report an error")
	}
}

func TestSerializeConversation(t *testing.T) {
	var msgs []hygiene.Message
	for _, s := range []string{
		`{"role":"compactionSummary","summary":"S","tokensBefore":1,"timestamp":1}`,
		`{"role":"bashExecution","command":"ls","output":"a","exitCode":2,"cancelled":false,"truncated":false,"timestamp":2}`,
		`{"role":"custom","customType":"x","content":"note","display":true,"timestamp":3}`,
		`{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"ok"},{"type":"toolCall","id":"c","name":"read","arguments":{"path":"a","n":1}}]}`,
		`{"role":"toolResult","toolCallId":"c","content":[{"type":"text","text":"r"}]}`,
		`{"role":"system","content":"never sent"}`,
	} {
		m, err := hygiene.Decode([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	want := "[User]: " + session.CompactionSummaryPrefix + "S" + session.CompactionSummarySuffix + "\n\n" +
		"[User]: Ran `ls`\n```\na\n```\n\nCommand exited with code 2\n\n" +
		"[User]: note\n\n" +
		"[Assistant thinking]: hm\n\n[Assistant]: ok\n\n[Assistant tool calls]: read(n=1, path=\"a\")\n\n" +
		"[Tool result]: r"
	if got := replay.SerializeConversation(msgs); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestRunFileCompressed: a gzip transcript replays like the plain one (the streamed read of
// the needed entries), and both agree with the in-memory replay.
func TestRunFileCompressed(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "s.jsonl")
	gz := filepath.Join(dir, "s.jsonl.gz")
	if err := os.WriteFile(plain, []byte(example), 0o644); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(example))
	zw.Close()
	if err := os.WriteFile(gz, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	o := replay.Options{Provider: "anthropic", Model: "claude-sonnet-4-5", NowMs: testNow}
	mem := run(t, example, o)
	for _, p := range []string{plain, gz} {
		res, err := replay.RunFile(context.Background(), p, o)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if diff := cmp.Diff(mem.Messages, res.Messages); diff != "" || mem.Compaction.FirstKeptEntryID != res.Compaction.FirstKeptEntryID {
			t.Errorf("%s differs from the in-memory replay:\n%s", filepath.Base(p), diff)
		}
	}
}

// TestBranchSummaryAndThinkingLevel: a branch summary is sent as a user turn inside pi's
// wrapper, and the thinking level comes from the last change on the path.
func TestBranchSummaryAndThinkingLevel(t *testing.T) {
	src := `{"type":"session","version":3,"id":"s","timestamp":"2026-05-01T08:00:00.000Z","cwd":"/w"}
{"type":"thinking_level_change","id":"t1","parentId":null,"timestamp":"2026-05-01T08:00:00.100Z","thinkingLevel":"low"}
{"type":"message","id":"u1","parentId":"t1","timestamp":"2026-05-01T08:00:01.000Z","message":{"role":"user","content":"q","timestamp":1777622401000}}
{"type":"thinking_level_change","id":"t2","parentId":"u1","timestamp":"2026-05-01T08:00:01.100Z","thinkingLevel":"high"}
{"type":"branch_summary","id":"b1","parentId":"t2","timestamp":"2026-05-01T08:00:02.000Z","fromId":"x","summary":"tried A"}
{"type":"branch_summary","id":"b2","parentId":"b1","timestamp":"2026-05-01T08:00:02.500Z","fromId":"y","summary":""}
{"type":"message","id":"a1","parentId":"b2","timestamp":"2026-05-01T08:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"stopReason":"stop","provider":"google","model":"gemini-2.5-pro","timestamp":1777622403000}}
`
	res := run(t, src, replay.Options{Provider: "openai", Model: "gpt-5", API: "openai-responses"})
	if diff := cmp.Diff([]string{"u1", "b1", "a1"}, res.Refs); diff != "" {
		t.Errorf("sent (-want +got); an empty branch summary sends nothing:\n%s", diff)
	}
	if s, _ := hygiene.Str(res.Messages[1], "summary"); hygiene.Role(res.Messages[1]) != "branchSummary" || s != "tried A" {
		t.Errorf("branch summary message = %v", res.Messages[1])
	}
	if res.Context.ThinkingLevel != "high" || res.Context.Model == nil || res.Context.Model.ModelID != "gemini-2.5-pro" {
		t.Errorf("thinking %q model %+v", res.Context.ThinkingLevel, res.Context.Model)
	}
}

// TestMigrationAndMissingHeader: a v1 transcript is migrated in memory as pi does on load
// (ids chained, hookMessage renamed to custom), for Run and RunFile alike. A file without a
// header is recovered by OpenClaw 2026.6.11 and later (replayed, with a warning) and loads nothing in
// older releases.
func TestMigrationAndMissingHeader(t *testing.T) {
	v1 := `{"type":"session","id":"S","timestamp":"2026-05-01T08:00:00.000Z","cwd":"/p"}
{"type":"message","timestamp":"2026-05-01T08:00:01.000Z","message":{"role":"hookMessage","customType":"x","content":"c","display":true,"timestamp":1}}
{"type":"message","timestamp":"2026-05-01T08:00:02.000Z","message":{"role":"user","content":"hi","timestamp":2}}
`
	file := filepath.Join(t.TempDir(), "v1.jsonl")
	if err := os.WriteFile(file, []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	o := replay.Options{Provider: "anthropic", Model: "m", NowMs: testNow}
	fromFile, err := replay.RunFile(context.Background(), file, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range []*replay.Result{run(t, v1, o), fromFile} {
		if res.Context.PathEntries != 2 || len(res.Messages) != 2 || hygiene.Role(res.Messages[0]) != "custom" || hygiene.TextOf(res.Messages[1]) != "hi" {
			t.Errorf("migrated v1: path %d, messages %d %v", res.Context.PathEntries, len(res.Messages), res.Messages)
		}
		if res.Context.SkippedLines != 0 || len(res.Context.Warnings) != 1 || !strings.Contains(res.Context.Warnings[0], "version 1 transcript migrated to 3 in memory") {
			t.Errorf("warnings = %q", res.Context.Warnings)
		}
	}
	headless := strings.SplitN(example, "\n", 2)[1]
	res := run(t, headless, replay.Options{})
	if len(res.Context.Warnings) == 0 || !strings.Contains(res.Context.Warnings[0], "no readable session header: OpenClaw 2026.7.35 backs the file up") ||
		res.Context.SkippedLines != 0 || len(res.Messages) != 5 {
		t.Errorf("headerless: warnings %q skipped %d messages %d", res.Context.Warnings, res.Context.SkippedLines, len(res.Messages))
	}
	old := run(t, headless, replay.Options{Release: hygiene.Release20260424})
	if len(old.Messages) != 0 || !strings.Contains(old.Context.Warnings[0], "loads nothing") {
		t.Errorf("headerless under 2026.4.24: %d messages, warnings %q", len(old.Messages), old.Context.Warnings)
	}
}

// TestNullMessageThrows: a message entry whose message is null makes OpenClaw's
// buildSessionContext throw, so nothing is sent and no compaction is decided; also when the
// entry lies before the last compaction's kept region, which RunFile otherwise reads only as a
// light stand-in (session.Node.NoMessage makes it read the entry in full).
func TestNullMessageThrows(t *testing.T) {
	// a1 (user), then the null message n, then a2 (kept), a compaction keeping a2, a4
	src := strings.Replace(example, `{"type":"message","id":"a2","parentId":"a1"`,
		`{"type":"message","id":"n","parentId":"a1","timestamp":"2026-05-01T08:00:02.000Z","message":null}`+"\n"+`{"type":"message","id":"a2","parentId":"n"`, 1)
	if src == example {
		t.Fatal("the example changed: no a2 entry")
	}
	file := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	o := replay.Options{Provider: "anthropic", Model: "claude-sonnet-4-5", NowMs: testNow}
	fromFile, err := replay.RunFile(context.Background(), file, o)
	if err != nil {
		t.Fatal(err)
	}
	for name, res := range map[string]*replay.Result{"Run": run(t, src, o), "RunFile": fromFile} {
		if !strings.Contains(res.Error, "entry n: its message is null") || len(res.Messages) != 0 || res.Context.Throws == "" {
			t.Errorf("%s: error %q, %d messages sent, throws %q", name, res.Error, len(res.Messages), res.Context.Throws)
		}
	}
	// a string message instead is sent in its place
	res := run(t, strings.Replace(src, `"message":null`, `"message":"hello"`, 1), replay.Options{})
	if res.Error != "" {
		t.Fatal(res.Error)
	}
	found := false
	for _, m := range res.Messages {
		if hygiene.Plain(m) == "hello" {
			found = true
		}
	}
	if found {
		t.Error("the string message lies before the kept region (a2): it must not be sent")
	}
}

// TestWhiteSpaceBeforeHeader: pi's loader up to 2026.4.24 reads content.trim(), so BOMs and
// white space before the header line are skipped and the file is read (found by the
// mutations: a second BOM); from a file as from a stream.
func TestWhiteSpaceBeforeHeader(t *testing.T) {
	src := "\ufeff\ufeff \n" + example
	file := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	o := replay.Options{Provider: "anthropic", Model: "claude-sonnet-4-5", NowMs: testNow, Release: hygiene.Release20260424}
	want := run(t, example, o)
	fromFile, err := replay.RunFile(context.Background(), file, o)
	if err != nil {
		t.Fatal(err)
	}
	for name, res := range map[string]*replay.Result{"Run": run(t, src, o), "RunFile": fromFile} {
		if len(res.Messages) == 0 || !cmp.Equal(want.Messages, res.Messages) {
			t.Errorf("%s: %d messages, want the %d of the file without the BOMs", name, len(res.Messages), len(want.Messages))
		}
	}
}

// Every release reads a transcript as content.trim().split("\n"): the first and last lines
// with content lose the JavaScript white space at their start and end and are read, while the
// same padding on another line makes that line unreadable (mutations 7591 and 4748 of seed 6,
// and inputs checked live against 2026.3.13, 2026.4.24 and 2026.6.11: a U+FEFF glued after
// the last entry, NBSP-only lines after it, U+3000 after it, two BOMs before a header-less
// file's first entry). Both readers (Run in memory, RunFile through the index) and the
// migration path of a header without a version agree.
func TestContentTrim(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(example, "\n"), "\n")
	join := func(ls ...string) string { return strings.Join(ls, "\n") }
	last := len(lines) - 1
	with := func(k int, s string) []string { c := append([]string(nil), lines...); c[k] = s; return c }
	unversioned := strings.Replace(lines[0], `"version":3,`, "", 1)
	for _, tc := range []struct {
		name, src, same string // src replays as same does
	}{
		{"U+FEFF after the last entry", join(with(last, lines[last]+"\ufeff")...) + "\n", example},
		{"U+3000 and NBSP lines after it", join(with(last, lines[last]+"\u3000")...) + "\n\u00a0\n\n", example},
		{"no final newline", join(with(last, lines[last]+"\ufeff\u00a0")...), example},
		{"on an earlier line it is unreadable", join(with(3, lines[3]+"\ufeff")...) + "\n", join(with(3, "{")...) + "\n"},
		{"a character that is not white space", join(with(last, lines[last]+"x")...) + "\n", join(with(last, "{")...) + "\n"},
		{"migrated", join(with(0, unversioned)...) + "\ufeff\n", join(with(0, unversioned)...) + "\n"},
		{"two BOMs before the first entry of a file without a header", "\ufeff\ufeff" + join(lines[1:]...) + "\n", join(lines[1:]...) + "\n"},
		{"NBSP and a blank line before the header", "\u00a0\n\u2028\u00a0" + example, example},
	} {
		for _, r := range hygiene.Releases {
			t.Run(tc.name+"/"+string(r), func(t *testing.T) {
				o := replay.Options{Provider: "anthropic", Model: "claude-sonnet-4-5", API: "anthropic-messages", NowMs: testNow, Release: r}
				want := run(t, tc.same, o)
				file := filepath.Join(t.TempDir(), "s.jsonl")
				if err := os.WriteFile(file, []byte(tc.src), 0o644); err != nil {
					t.Fatal(err)
				}
				fromFile, err := replay.RunFile(context.Background(), file, o)
				if err != nil {
					t.Fatal(err)
				}
				for name, res := range map[string]*replay.Result{"Run": run(t, tc.src, o), "RunFile": fromFile} {
					if !cmp.Equal(want.Messages, res.Messages) {
						t.Errorf("%s: %d messages %v, want %d %v", name, len(res.Messages), res.Messages, len(want.Messages), want.Messages)
					}
					var opts []cmp.Option
					if tc.name == "migrated" { // pi's migration gives entries new random ids
						opts = append(opts, cmpopts.IgnoreFields(compaction.Plan{}, "FirstKeptEntryID"))
					}
					if diff := cmp.Diff(want.Compaction, res.Compaction, opts...); diff != "" {
						t.Errorf("%s: compaction plan (-want +got):\n%s", name, diff)
					}
				}
			})
		}
	}
}

// Before 2026.6.11 pi's SessionManager takes the id of the file's last value as its leaf
// (checked live on 2026.3.13 and 2026.4.24): when it is not truthy, getBranch() is empty, so
// prepareCompaction gets nothing, while buildSessionContext falls back to the last entry
// (mutation 8938 of seed 6: the last entry's "id" key flipped to "i6"); when that last value
// is not an object, or its id is null, the context is empty too. 2026.6.11 reads its own tree.
func TestLeafOfOldReleases(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(example, "\n"), "\n")
	last := len(lines) - 1
	with := func(s string) string {
		c := append([]string(nil), lines...)
		c[last] = s
		return strings.Join(c, "\n") + "\n"
	}
	noID := with(strings.Replace(lines[last], `"id":"a4"`, `"i4":"a4"`, 1))
	nullID := with(strings.Replace(lines[last], `"id":"a4"`, `"id":null`, 1))
	both := func(t *testing.T, src string, o replay.Options) []*replay.Result {
		t.Helper()
		file := filepath.Join(t.TempDir(), "s.jsonl")
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := replay.RunFile(context.Background(), file, o)
		if err != nil {
			t.Fatal(err)
		}
		return []*replay.Result{run(t, src, o), res}
	}
	for _, r := range hygiene.Releases {
		t.Run(string(r), func(t *testing.T) {
			o := replay.Options{Provider: "anthropic", Model: "claude-sonnet-4-5", API: "anthropic-messages", NowMs: testNow, Release: r}
			base := run(t, example, o)
			if base.Compaction.Blocked != "" || len(base.Messages) == 0 {
				t.Fatalf("example: blocked %q, %d messages", base.Compaction.Blocked, len(base.Messages))
			}
			old := hygiene.CompareReleases(r, hygiene.Release20260611) < 0
			for _, res := range both(t, noID, o) {
				// (2026.6.11 leaves an entry without an id out of its tree: not compared)
				if old && !cmp.Equal(base.Messages, res.Messages) {
					t.Errorf("no id: %d messages, want the example's %d", len(res.Messages), len(base.Messages))
				}
				if blocked := res.Compaction.Blocked != ""; blocked != old {
					t.Errorf("no id: preparation blocked %v (%q), want %v", blocked, res.Compaction.Blocked, old)
				}
			}
			for name, src := range map[string]string{"a number last": example + "5\n", "a null id": nullID} {
				for _, res := range both(t, src, o) {
					if empty := len(res.Messages) == 0; empty != old {
						t.Errorf("%s: %d messages, want none: %v", name, len(res.Messages), old)
					}
				}
			}
		})
	}
}

// 2026.7.35's loader turns the string content of an assistant or toolResult message into a
// text block, and a toolResult's object content into a list of it (normalizeLoadedFileEntry):
// the tool results below reach the provider with their text, where 2026.6.11 sent
// "[empty content omitted]" (gen/1/468 of the replay differential, 883 comparisons).
func TestLoaderNormalizesContent(t *testing.T) {
	src := `{"type":"session","version":3,"id":"s","timestamp":"2026-05-01T08:00:00.000Z","cwd":"/w"}
{"type":"message","id":"u1","parentId":null,"timestamp":"2026-05-01T08:00:01.000Z","message":{"role":"user","content":"run it","timestamp":1}}
{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-05-01T08:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"exec","arguments":{}},{"type":"toolCall","id":"c2","name":"exec","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":2}}
{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-05-01T08:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"exec","content":"string result","isError":false,"timestamp":3}}
{"type":"message","id":"r2","parentId":"r1","timestamp":"2026-05-01T08:00:04.000Z","message":{"role":"toolResult","toolCallId":"c2","toolName":"exec","content":{"type":"text","text":"object result"},"isError":false,"timestamp":4}}
{"type":"message","id":"a2","parentId":"r2","timestamp":"2026-05-01T08:00:05.000Z","message":{"role":"assistant","content":"done","api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":5}}
`
	texts := func(r hygiene.Release) string {
		res := run(t, src, replay.Options{Release: r})
		b, _ := json.Marshal(res.Messages)
		return string(b)
	}
	old, now := texts(hygiene.Release20260611), texts(hygiene.Release20260735)
	if !strings.Contains(old, "[empty content omitted]") || strings.Contains(old, "string result") {
		t.Errorf("2026.6.11 sends the string tool result as empty: %s", old)
	}
	for _, want := range []string{`"text":"string result"`, `"text":"object result"`, `"text":"done"`} {
		if !strings.Contains(now, want) {
			t.Errorf("2026.7.35 does not send %s: %s", want, now)
		}
	}
	if strings.Contains(now, "[empty content omitted]") {
		t.Errorf("2026.7.35: %s", now)
	}
}

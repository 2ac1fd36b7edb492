package compaction_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/compaction"
	"github.com/clawdoctor/clawdoctor/internal/hygiene"
)

func msg(t *testing.T, s string) hygiene.Message {
	t.Helper()
	m, err := hygiene.Decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestEstimateTokens(t *testing.T) {
	img := `{"type":"image","data":"AA==","mimeType":"image/png"}`
	for _, tc := range []struct {
		name    string
		m       string
		pi, cjk int
	}{
		{"user string rounds up", `{"role":"user","content":"abcde"}`, 2, 2},
		{"user blocks, image free in pi", `{"role":"user","content":[{"type":"text","text":"abcd"},` + img + `]}`, 1, 2001},
		{"toolResult image 4800 chars", `{"role":"toolResult","content":[` + img + `]}`, 1200, 2000},
		{"custom text", `{"role":"custom","content":"12345678"}`, 2, 2},
		{"assistant text thinking and call", `{"role":"assistant","content":[{"type":"text","text":"ab"},{"type":"thinking","thinking":"cd"},{"type":"toolCall","id":"x","name":"read","arguments":{"p":"<a>"}}]}`,
			(2 + 2 + 4 + len(`{"p":"<a>"}`) + 3) / 4, (2 + 2 + 4 + len(`{"p":"<a>"}`) + 3) / 4},
		{"bashExecution", `{"role":"bashExecution","command":"ls","output":"a b"}`, 2, 2},
		{"compaction summary", `{"role":"compactionSummary","summary":"` + strings.Repeat("s", 40) + `"}`, 10, 10},
		{"CJK counts a token per character in OC-core", `{"role":"user","content":"你好世界"}`, 1, 4},
		{"astral CJK counts once", `{"role":"user","content":"𠀀"}`, 1, 1},
		{"unknown role", `{"role":"system","content":"abcdefgh"}`, 0, 0},
	} {
		m := msg(t, tc.m)
		if got := compaction.EstimatorPi.Tokens(m); got != tc.pi {
			t.Errorf("%s: pi = %d, want %d", tc.name, got, tc.pi)
		}
		if got := compaction.EstimatorCJK.Tokens(m); got != tc.cjk {
			t.Errorf("%s: cjk = %d, want %d", tc.name, got, tc.cjk)
		}
	}
}

func TestContextTokens(t *testing.T) {
	msgs := []hygiene.Message{
		msg(t, `{"role":"user","content":"x"}`),
		msg(t, `{"role":"assistant","content":[],"usage":{"input":100,"output":20,"cacheRead":5,"cacheWrite":1,"totalTokens":0},"stopReason":"stop"}`),
		msg(t, `{"role":"user","content":"abcdefgh"}`),
		msg(t, `{"role":"assistant","content":[{"type":"text","text":"abcd"}],"usage":{"input":999,"totalTokens":999},"stopReason":"aborted"}`),
	}
	got := compaction.EstimatorPi.EstimateContext(msgs)
	want := compaction.ContextEstimate{Tokens: 126 + 2 + 1, UsageTokens: 126, TrailingTokens: 3, LastUsageIndex: 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := compaction.ContextTokens(map[string]any{"totalTokens": json.Number("7"), "input": json.Number("1")}); got != 7 {
		t.Errorf("totalTokens wins: got %d", got)
	}
}

func TestTrigger(t *testing.T) {
	if r := compaction.EffectiveReserve(16384, 20000, 200000); r != 20000 {
		t.Errorf("reserve with floor = %d, want 20000", r)
	}
	if r := compaction.EffectiveReserve(16384, 20000, 16000); r != 16384 {
		t.Errorf("small window caps the floor to 8000, so the configured 16384 stays: got %d", r)
	}
	if r := compaction.EffectiveReserve(30000, 20000, 200000); r != 30000 {
		t.Errorf("configured reserve above the floor: got %d", r)
	}
	if compaction.ShouldCompact(180000, 200000, 20000) {
		t.Error("180000 is not > 200000-20000")
	}
	if !compaction.ShouldCompact(180001, 200000, 20000) {
		t.Error("180001 > 180000 must compact")
	}
	if compaction.ShouldCompact(5, 0, 0) {
		t.Error("no window never compacts")
	}
}

// path builds items from a compact description: "u:N" user with N tokens, "a:N" assistant,
// "t:N" assistant with a tool call, "r:N" tool result, "c" custom entry, "C<firstKept>"
// compaction, "m:N" custom_message. Ids are e0, e1, ...
func path(t *testing.T, spec string) []compaction.Item {
	t.Helper()
	var items []compaction.Item
	for i, f := range strings.Fields(spec) {
		id := "e" + itoa(i)
		text := func(n int) string { return strings.Repeat("x", 4*n) }
		var it compaction.Item
		kind, n := f[0], 0
		if p := strings.IndexByte(f, ':'); p > 0 {
			n = atoi(f[p+1:])
		}
		switch kind {
		case 'u':
			it = compaction.Item{Kind: compaction.KindMessage, Msg: msg(t, `{"role":"user","content":"`+text(n)+`"}`)}
		case 'a':
			it = compaction.Item{Kind: compaction.KindMessage, Msg: msg(t, `{"role":"assistant","content":[{"type":"text","text":"`+text(n)+`"}],"stopReason":"stop"}`)}
		case 't':
			it = compaction.Item{Kind: compaction.KindMessage, Msg: msg(t, `{"role":"assistant","content":[{"type":"text","text":"`+text(n)+`"},{"type":"toolCall","id":"`+id+`","name":"x","arguments":{}}],"stopReason":"toolUse"}`)}
		case 'r':
			it = compaction.Item{Kind: compaction.KindMessage, Msg: msg(t, `{"role":"toolResult","toolCallId":"x","content":"`+text(n)+`"}`)}
		case 'm':
			it = compaction.Item{Kind: compaction.KindCustomMessage, Msg: msg(t, `{"role":"custom","content":"`+text(n)+`"}`)}
		case 'c':
			it = compaction.Item{Kind: "custom"}
		case 'C':
			it = compaction.Item{Kind: compaction.KindCompaction, FirstKeptID: f[1:], Msg: msg(t, `{"role":"compactionSummary","summary":"s"}`)}
		}
		it.ID = id
		if it.Msg != nil {
			it.Tokens = compaction.EstimatorPi.Tokens(it.Msg)
		}
		items = append(items, it)
	}
	return items
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
func atoi(s string) int {
	var n int
	_ = json.Unmarshal([]byte(s), &n)
	return n
}

func TestFindCutPoint(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec string
		keep int
		want compaction.Cut
	}{
		{"keeps from the user turn that reaches the budget", "u:10 a:10 u:10 a:10 u:10 a:10", 20,
			compaction.Cut{FirstKeptIndex: 4, TurnStartIndex: -1}},
		{"never cuts at a tool result: the assistant keeps its results", "u:10 t:10 r:10 r:10 a:5", 20,
			compaction.Cut{FirstKeptIndex: 4, TurnStartIndex: 0, IsSplitTurn: true}},
		{"budget landing on a result moves to the next cut point", "u:10 t:10 r:30 a:5", 30,
			compaction.Cut{FirstKeptIndex: 3, TurnStartIndex: 0, IsSplitTurn: true}},
		{"budget never reached keeps everything", "u:1 a:1 u:1", 100,
			compaction.Cut{FirstKeptIndex: 0, TurnStartIndex: -1}},
		// pi quirk: the cut entry is then a custom entry, not a user message, so the turn start
		// is searched backwards and the turn counts as split
		{"cut extends back over non-message entries", "u:10 a:10 c c u:10 a:10", 20,
			compaction.Cut{FirstKeptIndex: 2, TurnStartIndex: 0, IsSplitTurn: true}},
		{"custom_message entries are not counted towards the budget", "u:10 a:10 m:10 a:10", 20,
			compaction.Cut{FirstKeptIndex: 1, TurnStartIndex: 0, IsSplitTurn: true}},
		{"custom_message is a cut point and a turn start", "u:10 a:10 m:1 a:20", 20,
			compaction.Cut{FirstKeptIndex: 2, TurnStartIndex: 2, IsSplitTurn: true}},
		{"no cut points", "r:5 r:5", 1, compaction.Cut{FirstKeptIndex: 0, TurnStartIndex: -1}},
	} {
		items := path(t, tc.spec)
		got := compaction.FindCutPoint(items, 0, len(items), tc.keep)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
		if k := got.FirstKeptIndex; tc.name != "no cut points" && items[k].Role() == "toolResult" {
			t.Errorf("%s: cut at a tool result", tc.name)
		}
	}
}

// TestBoundaryVariants is §2.7: with a previous compaction that kept two messages, pi-0.58
// starts the next compaction after it (the kept messages vanish), pi-late/OC-core at its
// firstKeptEntryId (they are re-considered).
func TestBoundaryVariants(t *testing.T) {
	// e0 e1 e2 e3 | e4 = compaction keeping from e2 | e5..e10
	items := path(t, "u:100 a:100 u:100 a:100 Ce2 u:100 a:100 u:100 a:100 u:100 a:100")
	ctx := []hygiene.Message{}
	for _, it := range items {
		if it.Msg != nil {
			ctx = append(ctx, it.Msg)
		}
	}
	s := compaction.Settings{ContextWindow: 1000, KeepRecentTokens: 150, ReserveFloor: -1}

	s.Boundary = compaction.BoundaryPi058
	old := compaction.Prepare(items, ctx, s)
	if old.BoundaryStart != 5 || old.PrevCompactionIndex != 4 {
		t.Errorf("pi-0.58 boundary start = %d (prev %d), want 5 (prev 4)", old.BoundaryStart, old.PrevCompactionIndex)
	}
	if diff := cmp.Diff([]string{"e2", "e3"}, old.Lost); diff != "" {
		t.Errorf("pi-0.58 loses the previously kept messages (-want +got):\n%s", diff)
	}
	if old.FirstKeptEntryID != "e9" || old.Summarize != (compaction.Range{From: 5, To: 9}) {
		t.Errorf("pi-0.58 cut %s summarize %+v, want e9 and [5,9)", old.FirstKeptEntryID, old.Summarize)
	}

	s.Boundary = compaction.BoundaryLate
	late := compaction.Prepare(items, ctx, s)
	if late.BoundaryStart != 2 || late.Lost != nil {
		t.Errorf("late boundary start = %d lost %v, want 2 and nothing lost", late.BoundaryStart, late.Lost)
	}
	if late.Summarize != (compaction.Range{From: 2, To: 9}) {
		t.Errorf("late summarize %+v, want [2,9): the kept messages are re-summarized", late.Summarize)
	}
	if late.TokensBefore <= old.TokensBefore {
		t.Errorf("late tokensBefore %v should count the kept messages too (pi-0.58: %v)", late.TokensBefore, old.TokensBefore)
	}
}

func TestPrepareTriggerAndFlush(t *testing.T) {
	items := path(t, "u:10 a:10")
	items[1].Msg["usage"] = map[string]any{"totalTokens": json.Number("180001")}
	ctx := []hygiene.Message{items[0].Msg, items[1].Msg}
	p := compaction.Prepare(items, ctx, compaction.Settings{})
	if !p.Trigger.WouldCompact || p.Trigger.ReserveTokens != 20000 || p.Trigger.Source != "usage" {
		t.Errorf("trigger = %+v, want compaction above 180000 with the 20000 floor", p.Trigger)
	}
	if p.MemoryFlush.Threshold != 176000 || !p.MemoryFlush.WouldRun {
		t.Errorf("memory flush = %+v, want threshold 176000 and a run", p.MemoryFlush)
	}
	items[1].Msg["usage"] = map[string]any{"totalTokens": json.Number("175999")}
	p = compaction.Prepare(items, ctx, compaction.Settings{})
	if p.Trigger.WouldCompact || p.MemoryFlush.WouldRun {
		t.Errorf("175999 tokens: trigger %+v flush %+v", p.Trigger, p.MemoryFlush)
	}
	last := path(t, "u:10 a:10 Ce0")
	if p := compaction.Prepare(last, nil, compaction.Settings{}); p.Blocked == "" {
		t.Error("a compaction as the last entry must block another one")
	}
}

func TestStages(t *testing.T) {
	// 40 turns of ~3000 tokens each with tool batches, a 64k window: multi-stage
	var spec []string
	for i := 0; i < 20; i++ {
		spec = append(spec, "u:500", "t:1000", "r:1500")
	}
	items := path(t, strings.Join(spec, " "))
	st := compaction.PlanStages(items, 64000)
	if !st.MultiStage || len(st.Parts) != 2 {
		t.Fatalf("want 2 stages, got %+v", st)
	}
	total, n := 0, 0
	for _, p := range st.Parts {
		for _, c := range p.Chunks {
			if c.Tokens > st.ChunkBudget {
				t.Errorf("chunk %+v over budget %d", c, st.ChunkBudget)
			}
			if items[c.From].Role() == "toolResult" {
				t.Errorf("chunk %+v starts at a tool result: a tool batch was split", c)
			}
			total += c.Tokens
			n += c.Messages
		}
	}
	if total != st.TotalTokens || n != len(items) {
		t.Errorf("chunks cover %d tokens / %d messages, want %d / %d", total, n, st.TotalTokens, len(items))
	}
	small := compaction.PlanStages(items[:3], 200000)
	if small.MultiStage || len(small.Parts) != 1 {
		t.Errorf("few messages are summarized in one stage: %+v", small)
	}
	if r := compaction.AdaptiveChunkRatio(100000, 10, 100000); r < 0.1599 || r > 0.1601 {
		t.Errorf("10k-token messages in a 100k window: ratio %v, want 0.4-0.24 = 0.16", r)
	}
	if r := compaction.AdaptiveChunkRatio(100000, 1, 100000); r-compaction.MinChunkRatio > 1e-9 {
		t.Errorf("huge messages: ratio %v, want the 0.15 floor", r)
	}
	if r := compaction.AdaptiveChunkRatio(1000, 10, 200000); r != compaction.BaseChunkRatio {
		t.Errorf("small messages keep the base ratio, got %v", r)
	}
}

func TestOverflowTrigger(t *testing.T) {
	for _, tc := range []struct {
		name, last string
		want       string
	}{
		{"prompt too long", `{"role":"assistant","content":[],"stopReason":"error","errorMessage":"400 prompt is too long: 210000 tokens","provider":"anthropic","model":"m"}`, "prompt is too long"},
		{"no body 413", `{"role":"assistant","content":[],"stopReason":"error","errorMessage":"413 status code (no body)","provider":"anthropic","model":"m"}`, `^4(?:00|13)\s*(?:status code)?\s*\(no body\)`},
		{"a ThrottlingException still matches too many tokens", `{"role":"assistant","content":[],"stopReason":"error","errorMessage":"ThrottlingException: Too many tokens, please wait","provider":"anthropic","model":"m"}`, "too many tokens"},
		{"silent overflow", `{"role":"assistant","content":[],"stopReason":"stop","usage":{"input":150000,"cacheRead":60000},"provider":"anthropic","model":"m"}`, "silent overflow: input + cacheRead > context window"},
		{"rate limit is not overflow", `{"role":"assistant","content":[],"stopReason":"error","errorMessage":"429 rate limit","provider":"anthropic","model":"m"}`, ""},
	} {
		items := path(t, "u:10")
		items = append(items, compaction.Item{ID: "last", Kind: compaction.KindMessage, Msg: msg(t, tc.last)})
		context := []hygiene.Message{items[0].Msg, items[1].Msg}
		p := compaction.Prepare(items, context, compaction.Settings{Provider: "anthropic", Model: "m"})
		if p.Trigger.Overflow != tc.want || (tc.want != "") != p.Trigger.WouldCompact {
			t.Errorf("%s: overflow %q would %v, want %q", tc.name, p.Trigger.Overflow, p.Trigger.WouldCompact, tc.want)
		}
		other := compaction.Prepare(items, context, compaction.Settings{Provider: "openai", Model: "gpt"})
		if other.Trigger.Overflow != "" {
			t.Errorf("%s: an overflow of another model must not trigger: %+v", tc.name, other.Trigger)
		}
	}
	// an error turn without any usage left: pi gives up
	items := path(t, "u:10")
	items = append(items, compaction.Item{ID: "e", Kind: compaction.KindMessage, Msg: msg(t, `{"role":"assistant","content":[],"stopReason":"error","errorMessage":"boom"}`)})
	if p := compaction.Prepare(items, []hygiene.Message{items[0].Msg, items[1].Msg}, compaction.Settings{}); p.Trigger.Source != "none" || p.Trigger.WouldCompact {
		t.Errorf("error turn without usage: %+v", p.Trigger)
	}
}

// TestRecheck recomputes stored compactions under both boundaries: the one that matches the
// stored firstKeptEntryId names the generation that wrote the file.
func TestRecheck(t *testing.T) {
	items := path(t, "u:100 a:100 u:100 a:100 Ce2 u:10 a:10 Ce5 u:1")
	got := compaction.Recheck(items, 150)
	want := []compaction.Check{
		{ID: "e4", Index: 4, StoredFirstKept: "e2", Pi058: "e2", Late: "e2", Matches: []string{"pi-0.58", "late"}},
		{ID: "e7", Index: 7, StoredFirstKept: "e5", Pi058: "e5", Late: "e2", Matches: []string{"pi-0.58"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	items = path(t, "u:100 a:100 u:100 a:100 Ce2 u:10 a:10 Ce2 u:1")
	if got := compaction.Recheck(items, 150); len(got[1].Matches) != 1 || got[1].Matches[0] != "late" {
		t.Errorf("a second compaction keeping from e2 matches only the late boundary: %+v", got[1])
	}
}

package session_test

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/session"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func ptr[T any](v T) *T { return &v }

// TestDecodeEntryTypes decodes one line of every entry type of spec §2.4 (and an unknown one).
func TestDecodeEntryTypes(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		known      bool
		want       session.Entry
	}{
		{"message", `{"type":"message","id":"a1","parentId":null,"timestamp":"T","message":{"role":"user","content":"hi","timestamp":1}}`, true,
			session.Entry{Type: "message", ID: "a1", Timestamp: "T", Message: &session.Message{Role: "user", Content: session.Content{Text: "hi", IsText: true}, Timestamp: json.RawMessage("1")}}},
		{"custom", `{"type":"custom","id":"c","parentId":"a1","timestamp":"T","customType":"model-snapshot","data":{"provider":"p"}}`, true,
			session.Entry{Type: "custom", ID: "c", ParentID: ptr("a1"), Timestamp: "T", CustomType: "model-snapshot", Data: json.RawMessage(`{"provider":"p"}`)}},
		{"custom_message", `{"type":"custom_message","id":"a","parentId":"9","timestamp":"T","customType":"memory-recall","content":"Remember","display":false}`, true,
			session.Entry{Type: "custom_message", ID: "a", ParentID: ptr("9"), Timestamp: "T", CustomType: "memory-recall", Content: json.RawMessage(`"Remember"`), Display: ptr(false)}},
		{"compaction", `{"type":"compaction","id":"0a","parentId":"a","timestamp":"T","summary":"S","firstKeptEntryId":"77","tokensBefore":182344,"fromHook":true}`, true,
			session.Entry{Type: "compaction", ID: "0a", ParentID: ptr("a"), Timestamp: "T", Summary: "S", FirstKeptEntryID: "77", TokensBefore: ptr(182344.0), FromHook: true}},
		{"branch_summary", `{"type":"branch_summary","id":"b","parentId":null,"timestamp":"T","fromId":"root","summary":"x"}`, true,
			session.Entry{Type: "branch_summary", ID: "b", Timestamp: "T", FromID: "root", Summary: "x"}},
		{"model_change", `{"type":"model_change","id":"m","parentId":null,"timestamp":"T","provider":"anthropic","modelId":"claude"}`, true,
			session.Entry{Type: "model_change", ID: "m", Timestamp: "T", Provider: "anthropic", ModelID: "claude"}},
		{"thinking_level_change", `{"type":"thinking_level_change","id":"t","parentId":null,"timestamp":"T","thinkingLevel":"high"}`, true,
			session.Entry{Type: "thinking_level_change", ID: "t", Timestamp: "T", ThinkingLevel: "high"}},
		{"label", `{"type":"label","id":"l","parentId":"t","timestamp":"T","targetId":"a1","label":"bookmark"}`, true,
			session.Entry{Type: "label", ID: "l", ParentID: ptr("t"), Timestamp: "T", TargetID: ptr("a1"), Label: ptr("bookmark")}},
		{"session_info", `{"type":"session_info","id":"s","parentId":null,"timestamp":"T","name":"My session"}`, true,
			session.Entry{Type: "session_info", ID: "s", Timestamp: "T", Name: "My session"}},
		{"leaf", `{"type":"leaf","id":"f","parentId":"s","timestamp":"T","targetId":"a1","appendParentId":"s","appendMode":"side"}`, true,
			session.Entry{Type: "leaf", ID: "f", ParentID: ptr("s"), Timestamp: "T", TargetID: ptr("a1"), AppendParentID: ptr("s"), AppendMode: "side"}},
		{"unknown type", `{"type":"reset","id":"r","parentId":"f","timestamp":"T","firstKeptEntryId":"a1","extra":[1,2]}`, false,
			session.Entry{Type: "reset", ID: "r", ParentID: ptr("f"), Timestamp: "T", FirstKeptEntryID: "a1"}},
		{"numeric parentId is tolerated", `{"type":"message","id":"x","parentId":5,"timestamp":"T","message":{"role":"user","content":[]}}`, true,
			session.Entry{Type: "message", ID: "x", Timestamp: "T", Message: &session.Message{Role: "user", Content: session.Content{Blocks: []session.Block{}}}}},
		{"bad usage type is tolerated", `{"type":"message","id":"x","parentId":null,"timestamp":"T","message":{"role":"assistant","content":[],"usage":"lots","stopReason":"error"}}`, true,
			session.Entry{Type: "message", ID: "x", Timestamp: "T", Message: &session.Message{Role: "assistant", Content: session.Content{Blocks: []session.Block{}}, StopReason: "error"}}},
		{"content object kept raw", `{"type":"message","id":"x","parentId":null,"timestamp":"T","message":{"role":"user","content":{"weird":1}}}`, true,
			session.Entry{Type: "message", ID: "x", Timestamp: "T", Message: &session.Message{Role: "user"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := session.DecodeEntry([]byte(tc.line))
			if err != nil {
				t.Fatal(err)
			}
			if e.Known() != tc.known {
				t.Errorf("Known() = %v, want %v", e.Known(), tc.known)
			}
			if string(e.Raw) != tc.line {
				t.Errorf("Raw differs from the line")
			}
			tc.want.Raw = e.Raw
			ignore := cmpopts.IgnoreFields(session.Content{}, "Raw")
			ignoreBlk := cmpopts.IgnoreFields(session.Block{}, "Raw")
			if diff := cmp.Diff(&tc.want, e, ignore, ignoreBlk, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("entry (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeEntryErrors(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		notObject  bool
	}{
		{"torn", `{"type":"message"`, false},
		{"garbage", `hello`, false},
		{"empty", ``, false},
		{"null", `null`, true},
		{"number", `42`, true},
		{"array", `[1]`, true},
		{"string", `"x"`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := session.DecodeEntry([]byte(tc.line))
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, session.ErrNotObject) != tc.notObject {
				t.Errorf("err = %v, notObject want %v", err, tc.notObject)
			}
		})
	}
}

// TestBlockSpellings decodes every block shape of spec §2.6 and the legacy tool-call spellings
// of §4.1.
func TestBlockSpellings(t *testing.T) {
	for _, tc := range []struct {
		name, block    string
		toolCall, pair bool
		check          func(b session.Block) bool
	}{
		{"text", `{"type":"text","text":"hi","textSignature":"msg_1"}`, false, false, func(b session.Block) bool { return b.Text == "hi" && b.TextSignature == "msg_1" }},
		{"thinking", `{"type":"thinking","thinking":"hm","thinkingSignature":"c2ln","redacted":true}`, false, false, func(b session.Block) bool { return b.Thinking == "hm" && b.Redacted }},
		{"thinking signature spelling", `{"type":"thinking","thinking":"","signature":"s"}`, false, false, func(b session.Block) bool { return b.Signature == "s" && b.AnySignature() == "s" }},
		{"thinking thought_signature spelling", `{"type":"thinking","thinking":"","thought_signature":"ts"}`, false, false, func(b session.Block) bool { return b.AnySignature() == "ts" }},
		{"toolCall with call_id only", `{"type":"toolCall","call_id":" c9 ","name":"read","arguments":{}}`, true, false, func(b session.Block) bool { return b.AnyID() == "c9" }},
		{"redacted_thinking", `{"type":"redacted_thinking","data":"enc"}`, false, false, func(b session.Block) bool { return b.Data == "enc" }},
		{"image", `{"type":"image","data":"iVBOR","mimeType":"image/png"}`, false, false, func(b session.Block) bool { return b.MimeType == "image/png" }},
		{"toolCall", `{"type":"toolCall","id":"call_1|fc_2","name":"exec","arguments":{"cmd":"ls"},"thoughtSignature":"t"}`, true, true, func(b session.Block) bool { return string(b.Args()) == `{"cmd":"ls"}` && b.ThoughtSignature == "t" }},
		{"toolUse", `{"type":"toolUse","id":"c2","name":"read","input":{"path":"a"}}`, true, true, func(b session.Block) bool { return string(b.Args()) == `{"path":"a"}` }},
		{"functionCall", `{"type":"functionCall","id":"c3","name":"read","arguments":{}}`, true, true, nil},
		{"tool_use", `{"type":"tool_use","id":"c4","name":"read","input":{}}`, true, false, nil},
		{"tool_call", `{"type":"tool_call","id":"c5","name":"read","input":{}}`, true, false, nil},
		{"function_call", `{"type":"function_call","id":"c6","name":"read","arguments":"{}"}`, true, false, nil},
		{"toolCall without id", `{"type":"toolCall","name":"read","arguments":{}}`, true, false, nil},
		{"toolCall with blank id", `{"type":"toolCall","id":"  ","name":"read","arguments":{}}`, true, false, nil},
		{"partialJson", `{"type":"toolCall","id":"c7","name":"x","arguments":{},"partialJson":"{\"a\""}`, true, true, func(b session.Block) bool { return b.PartialJSON == `{"a"` }},
		{"bad field type", `{"type":"text","text":5}`, false, false, func(b session.Block) bool { return b.Text == "" && !b.HasStringText() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := `{"type":"message","id":"m","parentId":null,"timestamp":"T","message":{"role":"assistant","content":[` + tc.block + `]}}`
			e, err := session.DecodeEntry([]byte(line))
			if err != nil {
				t.Fatal(err)
			}
			blocks := e.Message.Content.Blocks
			if len(blocks) != 1 {
				t.Fatalf("%d blocks", len(blocks))
			}
			b := blocks[0]
			if string(b.Raw) != tc.block {
				t.Errorf("Raw = %s", b.Raw)
			}
			if b.IsToolCall() != tc.toolCall || b.IsPairingToolCall() != tc.pair {
				t.Errorf("IsToolCall %v IsPairingToolCall %v, want %v %v", b.IsToolCall(), b.IsPairingToolCall(), tc.toolCall, tc.pair)
			}
			if got := len(e.Message.ToolCalls()); got != map[bool]int{true: 1}[tc.toolCall] {
				t.Errorf("ToolCalls() = %d", got)
			}
			if tc.check != nil && !tc.check(b) {
				t.Errorf("decoded block %+v", b)
			}
			if out, _ := e.Message.Content.MarshalJSON(); string(out) != "["+tc.block+"]" {
				t.Errorf("re-encoded %s", out)
			}
		})
	}
}

func TestContentShapes(t *testing.T) {
	line := `{"type":"message","id":"m","parentId":null,"timestamp":"T","message":{"role":"user","content":["loose",{"type":"text","text":"a"},7]}}`
	e, err := session.DecodeEntry([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	c := e.Message.Content
	if !c.IsArray() || len(c.Blocks) != 3 || string(c.Blocks[0].Raw) != `"loose"` || c.Blocks[1].Text != "a" || string(c.Blocks[2].Raw) != "7" {
		t.Fatalf("content %+v", c)
	}
	if out, _ := c.MarshalJSON(); string(out) != `["loose",{"type":"text","text":"a"},7]` {
		t.Errorf("re-encoded %s", out)
	}
}

func TestMessageHelpers(t *testing.T) {
	msg := func(js string) *session.Message {
		t.Helper()
		e, err := session.DecodeEntry([]byte(`{"type":"message","id":"m","parentId":null,"timestamp":"T","message":` + js + `}`))
		if err != nil {
			t.Fatal(err)
		}
		return e.Message
	}
	for _, tc := range []struct {
		name, js          string
		emptyError, blank bool
		blankBlocks       int
		text              string
	}{
		{"assistant empty error", `{"role":"assistant","content":[],"stopReason":"error"}`, true, false, 0, ""},
		{"assistant empty stop (silent reply)", `{"role":"assistant","content":[],"stopReason":"stop"}`, false, false, 0, ""},
		{"assistant empty aborted", `{"role":"assistant","content":[],"stopReason":"aborted"}`, false, false, 0, ""},
		{"assistant null content error", `{"role":"assistant","content":null,"stopReason":"error"}`, false, false, 0, ""},
		{"assistant missing content error", `{"role":"assistant","stopReason":"error"}`, false, false, 0, ""},
		{"assistant with text error", `{"role":"assistant","content":[{"type":"text","text":"x"}],"stopReason":"error"}`, false, false, 0, "x"},
		{"user empty string", `{"role":"user","content":""}`, false, true, 0, ""},
		{"user spaces", `{"role":"user","content":"   "}`, false, true, 0, "   "},
		{"user BOM and NBSP are blank in JS", `{"role":"user","content":"\ufeff\u00a0\u2028"}`, false, true, 0, "\ufeff\u00a0\u2028"},
		{"user NEL is not blank in JS", `{"role":"user","content":"\u0085"}`, false, false, 0, "\u0085"},
		{"user blank text block", `{"role":"user","content":[{"type":"text","text":""}]}`, false, true, 1, ""},
		{"user blank text and image", `{"role":"user","content":[{"type":"text","text":" "},{"type":"image","data":"x","mimeType":"image/png"}]}`, false, false, 1, " "},
		{"user empty array", `{"role":"user","content":[]}`, false, true, 0, ""},
		{"user text with non-string text", `{"role":"user","content":[{"type":"text","text":5}]}`, false, false, 0, ""},
		{"user object content", `{"role":"user","content":{"a":1}}`, false, false, 0, ""},
		{"user missing content", `{"role":"user"}`, false, false, 0, ""},
		{"user two texts", `{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`, false, false, 0, "a b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := msg(tc.js)
			if got := m.IsEmptyErrorTurn(); got != tc.emptyError {
				t.Errorf("IsEmptyErrorTurn = %v", got)
			}
			if got := m.IsBlankUser(); got != tc.blank {
				t.Errorf("IsBlankUser = %v", got)
			}
			if got := m.BlankTextBlocks(); got != tc.blankBlocks {
				t.Errorf("BlankTextBlocks = %d", got)
			}
			if got := m.Text(); got != tc.text {
				t.Errorf("Text = %q", got)
			}
		})
	}
	if id := msg(`{"role":"toolResult","toolCallId":" ","tool_use_id":" t1 "}`).ResultID(); id != "t1" {
		t.Errorf("ResultID = %q, want t1", id)
	}
	if id := msg(`{"role":"toolResult","call_id":"c"}`).ResultID(); id != "c" {
		t.Errorf("ResultID = %q, want c", id)
	}
}

func TestHeader(t *testing.T) {
	h, ok, err := session.DecodeHeader([]byte(`{"type":"session","version":3,"id":"S","timestamp":"T","cwd":"/p","parentSession":"/x.jsonl"}`))
	if err != nil || !ok || h.ID != "S" || *h.Version != 3 || h.ParentSession != "/x.jsonl" {
		t.Fatalf("%+v %v %v", h, ok, err)
	}
	if v, ok := h.VersionNumber(); !ok || v != 3 {
		t.Errorf("VersionNumber = %v %v", v, ok)
	}
	h, ok, err = session.DecodeHeader([]byte(`{"type":"session","version":3.5,"id":"S","cwd":7}`))
	if err != nil || !ok || h.ID != "S" || h.Cwd != "" {
		t.Fatalf("tolerant header: %+v %v %v", h, ok, err)
	}
	if v, ok := h.VersionNumber(); !ok || v != 3.5 {
		t.Errorf("VersionNumber = %v %v", v, ok)
	}
	if _, ok, err := session.DecodeHeader([]byte(`{"type":"message","id":"x"}`)); ok || err != nil {
		t.Errorf("message line taken as header: %v %v", ok, err)
	}
}

func TestJSNumber(t *testing.T) {
	for f, want := range map[float64]string{
		0: "0", math.Copysign(0, -1): "0", 1: "1", -1.5: "-1.5", 1e21: "1e+21", 1e20: "100000000000000000000",
		123456789012345680000: "123456789012345680000", 0.000001: "0.000001", 1e-7: "1e-7", 1.5e-9: "1.5e-9",
		1777622401000: "1777622401000", math.NaN(): "null", math.Inf(1): "null",
	} {
		if got := session.JSNumber(f); got != want {
			t.Errorf("JSNumber(%v) = %s, want %s", f, got, want)
		}
	}
	a, b := 0.1, 0.2
	if got := session.JSNumber(a + b); got != "0.30000000000000004" {
		t.Errorf("JSNumber(0.1+0.2) = %s", got)
	}
}

func TestHeaderValidity(t *testing.T) {
	for _, tc := range []struct {
		name, line     string
		loader, repair bool
		strict         string
	}{
		{"good", `{"type":"session","version":3,"id":"S","timestamp":"2026-01-22T10:11:12.345Z","cwd":"/p"}`, true, true, ""},
		{"v7 from repair tests", `{"type":"session","version":7,"id":"S","timestamp":"2026-01-22T10:11:12.345Z","cwd":"/p"}`, true, true, "unsupported session version 7"},
		{"no version (v1)", `{"type":"session","id":"S","timestamp":"2026-01-22T10:11:12.345Z","cwd":"/p"}`, true, true, "missing session version"},
		{"empty id", `{"type":"session","version":3,"id":"","timestamp":"2026-01-22T10:11:12.345Z","cwd":"/p"}`, true, false, "missing session id"},
		{"numeric id", `{"type":"session","version":3,"id":5,"timestamp":"2026-01-22T10:11:12.345Z","cwd":"/p"}`, false, false, "missing session id"},
		{"old empty cwd", `{"type":"session","version":3,"id":"S","timestamp":"2026-01-22T10:11:12.345Z","cwd":""}`, true, true, "missing session cwd"},
		{"bad timestamp", `{"type":"session","version":3,"id":"S","timestamp":"yesterday","cwd":"/p"}`, true, true, "invalid session timestamp"},
		{"parentSession not a string", `{"type":"session","version":3,"id":"S","timestamp":"2026-01-22T10:11:12.345Z","cwd":"/p","parentSession":null}`, true, true, "parentSession is not a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, ok, err := session.DecodeHeader([]byte(tc.line))
			if err != nil || !ok {
				t.Fatalf("DecodeHeader: %v %v", ok, err)
			}
			if h.LoaderValid() != tc.loader || h.RepairValid() != tc.repair || h.StrictProblem() != tc.strict {
				t.Errorf("loader %v repair %v strict %q, want %v %v %q", h.LoaderValid(), h.RepairValid(), h.StrictProblem(), tc.loader, tc.repair, tc.strict)
			}
		})
	}
}

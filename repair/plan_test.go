package repair

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/openclaw"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

var testNow = time.Date(2026, 5, 5, 12, 0, 0, 0, time.UTC)

func testOpts() Options {
	n := 0
	return Options{Now: testNow, NewID: func() string { n++; return fmt.Sprintf("repair-test-%d", n) }}
}

// repairBytes plans and applies in memory.
func repairBytes(t testing.TB, in []byte, opts Options) ([]byte, *Plan) {
	t.Helper()
	p, err := PlanBytes(in, "s1.jsonl", opts)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	if !p.Changed() {
		return in, p
	}
	var out bytes.Buffer
	n, err := Apply(context.Background(), p, bytes.NewReader(in), &out)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if n != int64(out.Len()) || n != p.BytesAfter {
		t.Fatalf("apply wrote %d (buffer %d), plan said %d", n, out.Len(), p.BytesAfter)
	}
	return out.Bytes(), p
}

const (
	hdr   = `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}`
	u1    = `{"type":"message","id":"u1","parentId":null,"timestamp":"T","message":{"role":"user","content":"hello"}}`
	a1    = `{"type":"message","id":"a1","parentId":"u1","timestamp":"T","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"stopReason":"stop"}}`
	u2    = `{"type":"message","id":"u2","parentId":"a1","timestamp":"T","message":{"role":"user","content":"more"}}`
	fbA   = `[{"type":"text","text":"[assistant turn failed before producing content]"}]`
	fbU   = `[{"type":"text","text":"(continue)"}]`
	errA  = `{"type":"message","id":"a1","parentId":"u1","timestamp":"T","message":{"role":"assistant","content":[],"api":"bedrock-converse-stream","stopReason":"error","errorMessage":"x"}}`
	errAF = `{"type":"message","id":"a1","parentId":"u1","timestamp":"T","message":{"role":"assistant","content":` + fbA + `,"api":"bedrock-converse-stream","stopReason":"error","errorMessage":"x"}}`
)

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func userWith(content string) string {
	return `{"type":"message","id":"u1","parentId":null,"timestamp":"T","message":{"role":"user","content":` + content + `,"timestamp":1}}`
}

func asstWith(content, stop string) string {
	return `{"type":"message","id":"a1","parentId":"u1","timestamp":"T","message":{"role":"assistant","content":` + content + `,"stopReason":"` + stop + `"}}`
}

type ruleWant struct {
	out    string // "" means unchanged
	counts Counts
	skip   string // substring of Plan.Skip
	empty  bool
	notes  []string // substrings of notes, in order
}

type ruleCase struct {
	name string
	in   string
	opts func(*Options)
	want ruleWant
}

type want = ruleWant

// ruleCases are the rules of issue 3 and every edge case of transcript.md §3.7.
func ruleCases() []ruleCase {
	return []ruleCase{
		// OpenClaw parity (transcript.md §3.4 and the §3.7 edge-case table).
		{"clean file", lines(hdr, u1, a1), nil, want{}},
		{"zero bytes", "", nil, want{empty: true}},
		{"whitespace only", " \n\n\t\n", nil, want{empty: true}},
		{"only garbage", "garbage\n{\"type\"\n", nil, want{skip: "no valid entries (2 unparseable", counts: Counts{DroppedLines: 2}}},
		{"header and blank lines only", hdr + "\n\n  \n", nil, want{}},
		{"crlf only", hdr + "\r\n" + u1 + "\r\n", nil, want{}},
		{"blank lines between entries", lines(hdr, "", u1, "   ", a1), nil, want{}},
		{"truncated last line", lines(hdr, u1) + `{"type":"message"`, nil,
			want{out: lines(hdr, u1), counts: Counts{DroppedLines: 1}}},
		{"garbage mid-file", lines(hdr, u1, "not json at all", a1), nil,
			want{out: lines(hdr, u1, a1), counts: Counts{DroppedLines: 1}}},
		{"truncated header", lines(`{"type":"session","id":"s1"`, u1), nil,
			want{skip: "missing session header", counts: Counts{DroppedLines: 1}}},
		{"first line an entry", lines(u1, a1), nil, want{skip: "missing session header"}},
		{"header without id", lines(`{"type":"session","id":""}`, u1), nil, want{skip: "invalid session header"}},
		{"first line not an object", lines(`[1,2]`, u1), nil, want{skip: "not a session header"}},
		{"later non-objects kept", lines(hdr, "null", "42", `"x"`, "[1]", u1), nil, want{}},
		{"null message dropped", lines(hdr, u1, `{"type":"message","id":"x","parentId":"u1","message":null}`, a1), nil,
			want{out: lines(hdr, u1, a1), counts: Counts{DroppedLines: 1}}},
		{"message without role dropped", lines(hdr, u1, `{"type":"message","id":"x","parentId":"u1","message":{"content":"x"}}`), nil,
			want{out: lines(hdr, u1), counts: Counts{DroppedLines: 1}}},
		{"blank role dropped", lines(hdr, u1, `{"type":"message","id":"x","parentId":"u1","message":{"role":"  ","content":"x"}}`), nil,
			want{out: lines(hdr, u1), counts: Counts{DroppedLines: 1}}},
		{"numeric role dropped", lines(hdr, u1, `{"type":"message","id":"x","parentId":"u1","message":{"role":7}}`), nil,
			want{out: lines(hdr, u1), counts: Counts{DroppedLines: 1}}},
		{"empty assistant error", lines(hdr, u1, errA), nil,
			want{out: lines(hdr, u1, errAF), counts: Counts{RewrittenAssistantMessages: 1}}},
		{"empty assistant error with spaces", lines(hdr, u1, asstWith("[ ]", "error")), nil,
			want{out: lines(hdr, u1, asstWith(fbA, "error")), counts: Counts{RewrittenAssistantMessages: 1}}},
		{"empty assistant stop untouched", lines(hdr, u1, asstWith("[]", "stop")), nil, want{}},
		{"empty assistant aborted untouched", lines(hdr, u1, asstWith("[]", "aborted")), nil, want{}},
		{"assistant null content untouched", lines(hdr, u1, asstWith("null", "error")), nil, want{}},
		{"user empty string", lines(hdr, userWith(`""`)), nil,
			want{out: lines(hdr, userWith(`"(continue)"`)), counts: Counts{RewrittenUserMessages: 1}}},
		{"user spaces string", lines(hdr, userWith(`"  \n\t"`)), nil,
			want{out: lines(hdr, userWith(`"(continue)"`)), counts: Counts{RewrittenUserMessages: 1}}},
		{"user js-trim space (U+FEFF, NBSP)", lines(hdr, userWith(`"\ufeff\u00a0 "`)), nil,
			want{out: lines(hdr, userWith(`"(continue)"`)), counts: Counts{RewrittenUserMessages: 1}}},
		{"user blank text block", lines(hdr, userWith(`[{"type":"text","text":""}]`)), nil,
			want{out: lines(hdr, userWith(fbU)), counts: Counts{RewrittenUserMessages: 1}}},
		{"user empty array", lines(hdr, userWith(`[]`)), nil,
			want{out: lines(hdr, userWith(fbU)), counts: Counts{RewrittenUserMessages: 1}}},
		{"user blank text with image", lines(hdr, userWith(`[{"type":"text","text":" "},{"type":"image","data":"`+png+`","mimeType":"image/png"}]`)), nil,
			want{out: lines(hdr, userWith(`[{"type":"image","data":"`+png+`","mimeType":"image/png"}]`)), counts: Counts{RewrittenUserMessages: 1}}},
		{"user blank text and a corrupt image", lines(hdr, userWith(`[{"type":"text","text":" "},{"type":"image","data":"AAA","mimeType":"image/png"}]`)), nil,
			want{out: lines(hdr, userWith(`[`+badImg+`]`)), counts: Counts{RewrittenUserMessages: 1, RemovedCorruptImageBlocks: 1}}},
		{"user text block non-string text kept", lines(hdr, userWith(`[{"type":"text","text":5}]`)), nil, want{}},
		{"user content object kept", lines(hdr, userWith(`{"a":1}`)), nil, want{}},
		{"user content missing kept", lines(hdr, `{"type":"message","id":"u1","parentId":null,"message":{"role":"user"}}`), nil, want{}},
		{"already repaired is a no-op", lines(hdr, userWith(`"(continue)"`), errAF), nil, want{}},
		{"ends on assistant reply untouched", lines(hdr, u1, a1), nil, want{}},
		{"crlf file with a fix keeps crlf elsewhere", hdr + "\r\n" + userWith(`""`) + "\r\n" + a1 + "\r\n", nil,
			want{out: hdr + "\r\n" + userWith(`"(continue)"`) + "\r\n" + a1 + "\r\n", counts: Counts{RewrittenUserMessages: 1}}},
		{"lone CR endings are split", hdr + "\r" + u1 + "\r" + a1 + "\n", nil,
			want{out: lines(hdr, u1, a1), counts: Counts{SalvagedLines: 3}}},
		{"escaped type key", lines(hdr, `{"t\u0079pe":"message","id":"x","parentId":"u1","message":null}`), nil,
			want{out: lines(hdr), counts: Counts{DroppedLines: 1}}},

		// Salvage: better than OpenClaw.
		{"bom before header", "\xef\xbb\xbf" + lines(hdr, u1), nil,
			want{out: lines(hdr, u1), counts: Counts{SalvagedLines: 1}}},
		{"nul run between lines", hdr + "\n" + strings.Repeat("\x00", 64) + u1 + "\n" + a1 + "\n", nil,
			want{out: lines(hdr, u1, a1), counts: Counts{SalvagedLines: 1}}},
		{"nul-only line", hdr + "\n" + strings.Repeat("\x00", 10) + "\n" + u1 + "\n", nil,
			want{out: lines(hdr, u1), counts: Counts{DroppedLines: 1}}},
		{"nul inside a line", lines(hdr, u1[:20]+"\x00\x00"+u1[20:]), nil,
			want{out: lines(hdr, u1), counts: Counts{SalvagedLines: 1}}},
		{"glued objects", lines(hdr, u1+a1, u2), nil,
			want{out: lines(hdr, u1, a1, u2), counts: Counts{SalvagedLines: 2}}},
		{"glued header and entry", lines(hdr+u1, a1), nil,
			want{out: lines(hdr, u1, a1), counts: Counts{SalvagedLines: 2}}},
		{"torn then complete", lines(hdr, u1, `{"type":"message","id":"a0","message":{"role":"assi`+a1, u2), nil,
			want{out: lines(hdr, u1, a1, u2), counts: Counts{DroppedLines: 1, SalvagedLines: 1}}},
		{"torn inside a string then complete", lines(hdr, u1, `{"type":"message","text":"ab{`+a1), nil,
			want{out: lines(hdr, u1, a1), counts: Counts{DroppedLines: 1, SalvagedLines: 1}}},
		{"torn line ending with a nested block is not promoted", lines(hdr, u1) + `{"type":"message","id":"a1","parentId":"u1","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"x","arguments":{}}`, nil,
			want{out: lines(hdr, u1), counts: Counts{DroppedLines: 1}}},
		{"trailing garbage after an entry", lines(hdr, u1+` xyz`), nil,
			want{out: lines(hdr, u1), counts: Counts{DroppedLines: 1, SalvagedLines: 1}}},
		{"invalid utf-8 in a string is kept", lines(hdr, `{"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":"caf`+"\xe9"+`"}}`), nil,
			want{notes: []string{"invalid UTF-8"}}},
		{"missing final newline added", hdr + "\n" + u1, nil, want{out: lines(hdr, u1)}},
		{"second header mid-file is reported", lines(hdr, u1, hdr, a1), nil, want{notes: []string{"second session header"}}},
		{"dangling parent reported", lines(hdr, u1, `{"type":"message","id":"a1","parentId":"zzz","timestamp":"T","message":{"role":"assistant","content":[],"stopReason":"stop"}}`), nil,
			want{notes: []string{"dangling"}}},
		{"dangling parent relinked", lines(hdr, u1, `{"type":"message","id":"a1","parentId":"zzz","timestamp":"T","message":{"role":"assistant","content":[],"stopReason":"stop"}}`),
			func(o *Options) { o.Relink = true },
			want{out: lines(hdr, u1, `{"type":"message","id":"a1","parentId":"u1","timestamp":"T","message":{"role":"assistant","content":[],"stopReason":"stop"}}`), counts: Counts{RelinkedParents: 1}}},
		{"first entry dangling relinked to null", lines(hdr, `{"type":"message","id":"u1","parentId":"gone","message":{"role":"user","content":"x"}}`),
			func(o *Options) { o.Relink = true },
			want{out: lines(hdr, `{"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":"x"}}`), counts: Counts{RelinkedParents: 1}}},
		{"parent later in file is not dangling", lines(hdr, `{"type":"message","id":"u1","parentId":"a9","message":{"role":"user","content":"x"}}`, `{"type":"custom","id":"a9","parentId":null}`), nil, want{}},
		{"missing header synthesized", lines(u1, a1), func(o *Options) { o.SynthesizeHeader = true },
			want{out: lines(`{"type":"session","version":3,"id":"s1","timestamp":"T","cwd":""}`, u1, a1), counts: Counts{SynthesizedHeaders: 1}}},

		// FR-v6 code-mode missing tool results (§3.5).
		{"code-mode missing result inserted", lines(hdr, u1, codeMode("stop", "call_1", "exec"), u2), nil,
			want{out: lines(hdr, u1, codeMode("stop", "call_1", "exec"), synth("a1", "call_1", "exec", 1), u2), counts: Counts{InsertedToolResults: 1}}},
		{"code-mode result present later", lines(hdr, u1, codeMode("toolUse", "call_1", "exec"), u2, result("call_1")), nil, want{}},
		{"code-mode result present earlier via call_id", lines(hdr, u1, `{"type":"message","id":"r0","parentId":"u1","message":{"role":"toolResult","call_id":" call_1 "}}`, codeMode("toolUse", "call_1", "exec")), nil, want{}},
		{"code-mode error turn skipped", lines(hdr, u1, codeMode("error", "call_1", "exec")), nil, want{}},
		{"code-mode aborted turn skipped", lines(hdr, u1, codeMode("aborted", "call_1", "exec")), nil, want{}},
		{"code-mode tool name fallback", lines(hdr, u1, codeMode("stop", "call_2", "")), nil,
			want{out: lines(hdr, u1, codeMode("stop", "call_2", ""), synth("a1", "call_2", "unknown", 1)), counts: Counts{InsertedToolResults: 1}}},
		{"other provider not a candidate", lines(hdr, u1, strings.Replace(codeMode("stop", "call_1", "exec"), `"provider":"openai"`, `"provider":"azure"`, 1)), nil, want{}},
		{"code-mode call id is not trimmed", lines(hdr, u1, codeMode("stop", " call_1", "exec"), result("call_1")), nil,
			want{out: lines(hdr, u1, codeMode("stop", " call_1", "exec"), synth("a1", " call_1", "exec", 1), result("call_1")), counts: Counts{InsertedToolResults: 1}}},
		{"code-mode empty tool name kept", lines(hdr, u1, strings.Replace(codeMode("stop", "call_2", "x"), `"name":"x"`, `"name":""`, 1)), nil,
			want{out: lines(hdr, u1, strings.Replace(codeMode("stop", "call_2", "x"), `"name":"x"`, `"name":""`, 1), synth("a1", "call_2", "", 1)), counts: Counts{InsertedToolResults: 1}}},
		{"code-mode repeated call id answered once", lines(hdr, u1, codeMode("stop", "call_1", "exec"), strings.Replace(codeMode("stop", "call_1", "exec"), `"id":"a1"`, `"id":"a2"`, 1)), nil,
			want{out: lines(hdr, u1, codeMode("stop", "call_1", "exec"), synth("a1", "call_1", "exec", 1), strings.Replace(codeMode("stop", "call_1", "exec"), `"id":"a1"`, `"id":"a2"`, 1)), counts: Counts{InsertedToolResults: 1}}},
		{"only toolResult messages answer a call", lines(hdr, u1, codeMode("stop", "call_1", "exec"), `{"type":"message","id":"x","parentId":"a1","message":{"role":"user","toolCallId":"call_1","content":"x"}}`), nil,
			want{out: lines(hdr, u1, codeMode("stop", "call_1", "exec"), synth("a1", "call_1", "exec", 1), `{"type":"message","id":"x","parentId":"a1","message":{"role":"user","toolCallId":"call_1","content":"x"}}`), counts: Counts{InsertedToolResults: 1}}},
		{"the first usable result id counts", lines(hdr, u1, codeMode("stop", "call_1", "exec"), `{"type":"message","id":"r","parentId":"a1","message":{"role":"toolResult","toolCallId":"other","toolUseId":"call_1"}}`), nil,
			want{out: lines(hdr, u1, codeMode("stop", "call_1", "exec"), synth("a1", "call_1", "exec", 1), `{"type":"message","id":"r","parentId":"a1","message":{"role":"toolResult","toolCallId":"other","toolUseId":"call_1"}}`), counts: Counts{InsertedToolResults: 1}}},
		{"synthetic result without a parent id", lines(hdr, u1, strings.Replace(codeMode("stop", "call_1", "exec"), `"id":"a1",`, ``, 1)), nil,
			want{out: lines(hdr, u1, strings.Replace(codeMode("stop", "call_1", "exec"), `"id":"a1",`, ``, 1), strings.Replace(synth("a1", "call_1", "exec", 1), `"parentId":"a1",`, ``, 1)), counts: Counts{InsertedToolResults: 1}}},

		// 2026.6.11: message tool calls of an OpenAI Responses turn before a delivery mirror.
		{"padded call id: the synthetic result answers it on the next repair", lines(hdr, u1, codeMode("stop", " call_p ", "exec")), nil,
			want{out: lines(hdr, u1, codeMode("stop", " call_p ", "exec"), synth("a1", " call_p ", "exec", 1)), counts: Counts{InsertedToolResults: 1}}},
		{"code-mode provider spelled with an escape", lines(hdr, u1, strings.Replace(codeMode("stop", "call_e", "exec"), `"provider":"openai"`, `"provider":"\u006fpenai"`, 1)), nil,
			want{out: lines(hdr, u1, strings.Replace(codeMode("stop", "call_e", "exec"), `"provider":"openai"`, `"provider":"\u006fpenai"`, 1), synth("a1", "call_e", "exec", 1)), counts: Counts{InsertedToolResults: 1}}},
		{"code-mode provider padded: not OpenAI", lines(hdr, u1, strings.Replace(codeMode("stop", "call_e", "exec"), `"provider":"openai"`, `"provider":" openai"`, 1)), nil, want{}},
		{"delivery mirror after message tool call", lines(hdr, u1, responses("toolUse", "call_m", "message"), mirrorTurn("delivery-mirror")), nil,
			want{out: lines(hdr, u1, responses("toolUse", "call_m", "message"), synth("a1", "call_m", "message", 1), mirrorTurn("delivery-mirror")), counts: Counts{InsertedToolResults: 1}}},
		{"gateway-injected mirror, padded names", lines(hdr, u1, responses("stop", "call_m", " Message "), `{"type":"custom","id":"c1","parentId":"a1"}`, strings.Replace(mirrorTurn("gateway-injected"), `"openclaw"`, `" openclaw "`, 1)), nil,
			want{out: lines(hdr, u1, responses("stop", "call_m", " Message "), synth("a1", "call_m", " Message ", 1), `{"type":"custom","id":"c1","parentId":"a1"}`, strings.Replace(mirrorTurn("gateway-injected"), `"openclaw"`, `" openclaw "`, 1)), counts: Counts{InsertedToolResults: 1}}},
		{"no mirror next: nothing inserted", lines(hdr, u1, responses("toolUse", "call_m", "message"), u2, mirrorTurn("delivery-mirror")), nil, want{}},
		{"other tool before a mirror: nothing inserted", lines(hdr, u1, responses("toolUse", "call_m", "exec"), mirrorTurn("delivery-mirror")), nil, want{}},
		{"answered message tool call: nothing inserted", lines(hdr, u1, responses("toolUse", "call_m", "message"), mirrorTurn("delivery-mirror"), result("call_m")), nil, want{}},
		{"mirror rule not in 2026.4.24", lines(hdr, u1, responses("toolUse", "call_m", "message"), mirrorTurn("delivery-mirror")), release("2026.4.24"), want{}},

		// 2026.6.11: image blocks with corrupt base64 become a text block.
		{"corrupt image in a tool result", lines(hdr, toolResultWith(`[{"type":"text","text":"shot"},{"type":"image","data":"not base64!","mimeType":"image/png"}]`)), nil,
			want{out: lines(hdr, toolResultWith(`[{"type":"text","text":"shot"},`+badImg+`]`)), counts: Counts{RemovedCorruptImageBlocks: 1}}},
		{"non-ascii base64", lines(hdr, toolResultWith(`[{"type":"image","data":"iVBOR\u00e9w0KGgo=","media_type":"image/png"}]`)), nil,
			want{out: lines(hdr, toolResultWith(`[`+badImg+`]`)), counts: Counts{RemovedCorruptImageBlocks: 1}}},
		{"valid base64 that is no image", lines(hdr, toolResultWith(`[{"type":"image","data":"aGVsbG8gd29ybGQ=","mediaType":" IMAGE/png "}]`)), nil,
			want{out: lines(hdr, toolResultWith(`[`+badImg+`]`)), counts: Counts{RemovedCorruptImageBlocks: 1}}},
		// payloads read where they stand (no escape) and decoded (escapes): the same verdicts
		{"raw byte that is not UTF-8 in base64", lines(hdr, toolResultWith(`[{"type":"image","data":"iVBOR`+"\xff"+`w0KGgo=","mimeType":"image/png"}]`)), nil,
			want{out: lines(hdr, toolResultWith(`[`+badImg+`]`)), counts: Counts{RemovedCorruptImageBlocks: 1}, notes: []string{"invalid UTF-8"}}},
		{"good image with escaped slashes kept", lines(hdr, toolResultWith(`[{"type":"image","data":"`+strings.ReplaceAll(png, "/", `\/`)+`","mimeType":"image/png"}]`)), nil, want{}},
		{"good image kept, spaces and line breaks allowed", lines(hdr, toolResultWith(`[{"type":"image","data":" `+png[:40]+`\r\n`+png[40:]+`","mimeType":"image/png"}]`)), nil, want{}},
		{"image without an image mime kept", lines(hdr, toolResultWith(`[{"type":"image","data":"not base64!","mimeType":"text/plain"}]`)), nil, want{}},
		{"image rule not in 2026.4.24", lines(hdr, toolResultWith(`[{"type":"image","data":"not base64!","mimeType":"image/png"}]`)), release("2026.4.24"), want{}},
		// 2026.7.35's canonicalizeBase64 pads an unpadded payload, and refuses padding that
		// leaves set bits in the last character (openclaw.UnpaddedBase64).
		{"unpadded image replaced by 2026.6.11", lines(hdr, toolResultWith(`[{"type":"image","data":"`+pngUnpadded+`","mimeType":"image/png"}]`)), release("2026.6.11"),
			want{out: lines(hdr, toolResultWith(`[`+badImg+`]`)), counts: Counts{RemovedCorruptImageBlocks: 1}}},
		{"unpadded image kept by 2026.7.35", lines(hdr, toolResultWith(`[{"type":"image","data":"`+pngUnpadded+`","mimeType":"image/png"}]`)), release("2026.7.35"), want{}},
		{"set pad bits kept by 2026.6.11", lines(hdr, toolResultWith(`[{"type":"image","data":"`+pngPadBits+`","mimeType":"image/png"}]`)), release("2026.6.11"), want{}},
		{"set pad bits replaced by 2026.7.35", lines(hdr, toolResultWith(`[{"type":"image","data":"`+pngPadBits+`","mimeType":"image/png"}]`)), release("2026.7.35"),
			want{out: lines(hdr, toolResultWith(`[`+badImg+`]`)), counts: Counts{RemovedCorruptImageBlocks: 1}}},

		// The header check looks at the first entry OpenClaw keeps.
		{"header after a dropped role-less entry", lines(`{"type":"message","id":"x","parentId":null,"message":{}}`, hdr, u1), nil,
			want{out: lines(hdr, u1), counts: Counts{DroppedLines: 1}}},
		{"2026.4.24 keeps role-less entries", lines(hdr, u1, `{"type":"message","id":"x","parentId":"u1","message":null}`), release("2026.4.24"), want{}},
		{"2026.4.24 keeps blank turns", lines(hdr, u1, errA, userWith(`""`)), release("2026.3.13"), want{}},
		{"BOM before a line that is no header: dropped, the next header counts", "\ufeff" + u1 + "\n" + lines(hdr, u2), nil,
			want{out: lines(hdr, u2), counts: Counts{DroppedLines: 1}, notes: []string{"dangling"}}},
		{"glued entries before the header: dropped as OpenClaw does", lines(u1+"\r"+u2, hdr, a1), nil,
			want{out: lines(hdr, a1), counts: Counts{DroppedLines: 1}, notes: []string{"dangling"}}},
		{"glued entries before the header kept with --synthesize-header", lines(u1+u2, a1), func(o *Options) { o.SynthesizeHeader = true },
			want{out: lines(`{"type":"session","version":3,"id":"s1","timestamp":"T","cwd":""}`, u1, u2, a1), counts: Counts{SynthesizedHeaders: 1, SalvagedLines: 2}}},
		// Deliberate differences (docs/conformance.md): OpenClaw rewrites every line with
		// JSON.stringify and drops blank lines when it repairs; we keep them.
		{"a fix keeps the other lines' bytes", lines(hdr, `{"type": "message", "id": "u1", "parentId": null, "message": {"role": "user", "content": "caf\u00e9", "n": 1.0}}`, "not json", a1), nil,
			want{out: lines(hdr, `{"type": "message", "id": "u1", "parentId": null, "message": {"role": "user", "content": "caf\u00e9", "n": 1.0}}`, a1), counts: Counts{DroppedLines: 1}}},
		{"a fix keeps blank lines", lines(hdr, "", u1, "  ", "not json", a1), nil,
			want{out: lines(hdr, "", u1, "  ", a1), counts: Counts{DroppedLines: 1}}},
		{"JavaScript white space is a blank line", lines(hdr, "\u00a0\ufeff", u1), nil, want{}},
	}
}

// png is a real 1×1 PNG.
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

// pngUnpadded is png without its "==": 2026.7.35 pads it; pngPadBits ends "gh==", whose "h"
// sets bits the padding leaves unused (its canonical form is "gg==").
const (
	pngUnpadded = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg"
	pngPadBits  = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggh=="
)

const badImg = `{"type":"text","text":"[image omitted: corrupted base64 payload]"}`

func toolResultWith(content string) string {
	return `{"type":"message","id":"r1","parentId":null,"timestamp":"T","message":{"role":"toolResult","toolCallId":"c1","toolName":"browser","content":` + content + `,"isError":false}}`
}

func responses(stop, callID, name string) string {
	return `{"type":"message","id":"a1","parentId":"u1","timestamp":"T","message":{"role":"assistant","content":[{"type":"toolCall","id":"` + callID + `","name":"` + name + `","arguments":{}}],"api":"openai-responses","provider":"openai","model":"gpt-5","stopReason":"` + stop + `"}}`
}

func mirrorTurn(model string) string {
	return `{"type":"message","id":"m1","parentId":"a1","timestamp":"T","message":{"role":"assistant","content":[{"type":"text","text":"sent"}],"api":"openai-responses","provider":"openclaw","model":"` + model + `","stopReason":"stop"}}`
}

func release(v string) func(*Options) {
	return func(o *Options) { o.Release = openclaw.MustParse(v) }
}

func TestPlanRules(t *testing.T) {
	for _, tc := range ruleCases() {
		t.Run(tc.name, func(t *testing.T) {
			opts := testOpts()
			if tc.opts != nil {
				tc.opts(&opts)
			}
			out, p := repairBytes(t, []byte(tc.in), opts)
			wantOut := tc.want.out
			if wantOut == "" {
				wantOut = tc.in
			}
			if tc.want.skip != "" {
				if !strings.Contains(p.Skip, tc.want.skip) {
					t.Errorf("skip = %q, want it to contain %q", p.Skip, tc.want.skip)
				}
			} else if p.Skip != "" {
				t.Errorf("unexpected skip %q", p.Skip)
			} else if diff := cmp.Diff(wantOut, string(out)); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want.counts, p.Counts); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
			if tc.want.empty != (p.Empty != "") {
				t.Errorf("empty = %q, want %v", p.Empty, tc.want.empty)
			}
			var notes []string
			for _, n := range p.Notes {
				notes = append(notes, n.What)
			}
			if len(notes) != len(tc.want.notes) {
				t.Errorf("notes = %q, want %q", notes, tc.want.notes)
			} else {
				for i, w := range tc.want.notes {
					if !strings.Contains(notes[i], w) {
						t.Errorf("note %d = %q, want it to contain %q", i, notes[i], w)
					}
				}
			}
			// Idempotence: repairing the repaired output changes nothing.
			if p.Skip == "" {
				again, p2 := repairBytes(t, out, opts)
				if p2.Changed() || !bytes.Equal(again, out) {
					t.Errorf("second repair changed the output: %+v", p2.Changes)
				}
			}
		})
	}
}

func codeMode(stop, callID, name string) string {
	nameField := ""
	if name != "" {
		nameField = `,"name":"` + name + `"`
	}
	return `{"type":"message","id":"a1","parentId":"u1","timestamp":"T","message":{"role":"assistant","content":[{"type":"toolCall","id":"` + callID + `"` + nameField + `,"arguments":{}}],"api":"openai-chatgpt-responses","provider":"openai","model":"gpt-5","stopReason":"` + stop + `"}}`
}

func result(callID string) string {
	return `{"type":"message","id":"r1","parentId":"a1","timestamp":"T","message":{"role":"toolResult","toolCallId":"` + callID + `","content":[]}}`
}

func synth(parent, callID, name string, n int) string {
	return fmt.Sprintf(`{"type":"message","id":"repair-test-%d","parentId":"%s","timestamp":"2026-05-05T12:00:00.000Z","message":{"role":"toolResult","toolCallId":"%s","toolName":"%s","content":[{"type":"text","text":"aborted"}],"details":{"openclawSyntheticMissingToolResult":true},"isError":true,"timestamp":%d}}`,
		n, parent, callID, name, testNow.UnixMilli())
}

// TestPlanRulesGolden renders the plan of every rule case (changes, notes, verdict, output)
// into one golden file, so a change of wording or bytes shows up in review.
func TestPlanRulesGolden(t *testing.T) {
	var b bytes.Buffer
	for _, tc := range ruleCases() {
		opts := testOpts()
		if tc.opts != nil {
			tc.opts(&opts)
		}
		out, p := repairBytes(t, []byte(tc.in), opts)
		fmt.Fprintf(&b, "=== %s\n", tc.name)
		switch {
		case p.Skip != "":
			fmt.Fprintf(&b, "skip: %s\n", p.Skip)
		case p.Empty != "":
			fmt.Fprintf(&b, "clean: %s\n", p.Empty)
		case !p.Changed():
			b.WriteString("clean\n")
		}
		for _, c := range p.Changes {
			fmt.Fprintf(&b, "line %d: %s: %s\n", c.Line, c.Action, c.Reason)
		}
		for _, n := range p.Notes {
			fmt.Fprintf(&b, "line %d: note: %s\n", n.Line, n.What)
		}
		if p.Changed() {
			fmt.Fprintf(&b, "output:\n%s", out)
		}
	}
	golden(t, b.Bytes())
}

// TestOutputParses checks on the rule inputs that every repaired line is valid JSON.
func TestOutputParses(t *testing.T) {
	in := "\xef\xbb\xbf" + lines(hdr, u1+a1, "garbage", `{"type":"message","id":"x"`+u2, strings.Repeat("\x00", 9)+userWith(`""`))
	out, p := repairBytes(t, []byte(in), testOpts())
	if !p.Changed() {
		t.Fatal("expected changes")
	}
	for i, l := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if !json.Valid([]byte(l)) {
			t.Errorf("line %d not valid JSON: %q", i+1, l)
		}
	}
}

// TestPlanGolden renders the plan (changes and notes) of the salvage fixtures to golden files.
func TestPlanGolden(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"salvage_mix", "\xef\xbb\xbf" + lines(hdr, u1+a1, "garbage", `{"type":"message","id":"x"`+u2, strings.Repeat("\x00", 9)+userWith(`""`), errA, hdr)},
		{"parity_mix", lines(hdr, u1, `{"type":"message","id":"x","parentId":"u1","message":null}`, errA, userWith(`[{"type":"text","text":" "},{"type":"image","data":"AAA"}]`)) + `{"type":"mess`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, p := repairBytes(t, []byte(tc.in), testOpts())
			var b bytes.Buffer
			fmt.Fprintf(&b, "counts: %+v\nbytes: %d -> %d\n", p.Counts, p.BytesBefore, p.BytesAfter)
			for _, c := range p.Changes {
				fmt.Fprintf(&b, "line %d: %s: %s\n", c.Line, c.Action, c.Reason)
			}
			for _, n := range p.Notes {
				fmt.Fprintf(&b, "line %d: note: %s\n", n.Line, n.What)
			}
			b.WriteString("-- output --\n")
			b.Write(out)
			golden(t, b.Bytes())
		})
	}
}

func golden(t *testing.T, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", strings.ReplaceAll(t.Name(), "/", "_")+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (run go test -update)", path, err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs (-want +got):\n%s", path, cmp.Diff(string(want), string(got)))
	}
}

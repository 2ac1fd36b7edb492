package repair

import (
	"bytes"
	"testing"
)

// TestInvalidUTF8CallIDAsNodeReadsIt: a code-mode tool call whose id is a byte that is not
// UTF-8 ("\xbe") gets one synthetic result, whose toolCallId is that id as Node reads it
// ("\ufffd"), and the repaired file needs nothing more. The real OpenClaw 2026.7.35
// (repairSessionFileIfNeeded through internal/conformance/oracle/repair.mjs, run 2026-12-06)
// answered both files so: one result inserted with toolCallId "\ufffd", then repaired: false.
// Before, ids were compared as raw bytes and every repair added another result (FuzzRepair,
// corpus entry d9e642c521f53724).
func TestInvalidUTF8CallIDAsNodeReadsIt(t *testing.T) {
	in := []byte(`{"type":"session","id":"0"}` + "\n" + `{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","id":"` + "\xbe" + `"}],"api":"openai-chatgpt-responses","provider":"openai"}}` + "\n")
	out, p := repairBytes(t, in, testOpts())
	if p.Counts.InsertedToolResults != 1 || !bytes.Contains(out, []byte(`"toolCallId":"`+"\ufffd"+`"`)) {
		t.Fatalf("first repair: %d results inserted; output %q", p.Counts.InsertedToolResults, out)
	}
	again, p2 := repairBytes(t, out, testOpts())
	if p2.Changed() || !bytes.Equal(again, out) {
		t.Fatalf("second repair changes the file: %+v", p2.Changes)
	}
}

// TestLoneSurrogateIDsAsJavaScriptComparesThem: escaped lone surrogates are code units of their
// own in JavaScript, so a call "\ud800" is not answered by a result "\ud801" or "\ufffd". The
// want column is what the real OpenClaw 2026.7.35 answered for each transcript
// (repairSessionFileIfNeeded through internal/conformance/oracle/repair.mjs, run 2026-12-06):
// insertedToolResults, and the synthetic result's toolCallId written as the call's escape.
// encoding/json, which strValue used before, decodes every lone surrogate to U+FFFD and so
// inserted nothing in four of these.
func TestLoneSurrogateIDsAsJavaScriptComparesThem(t *testing.T) {
	call := func(id string) string {
		return `{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","id":"` + id + `"}],"api":"openai-chatgpt-responses","provider":"openai"}}` + "\n"
	}
	result := func(id string) string {
		return `{"type":"message","message":{"role":"toolResult","toolCallId":"` + id + `","content":[]}}` + "\n"
	}
	for _, tc := range []struct {
		name, call, result string
		inserted           int
		written            string // the synthetic result's toolCallId, as JSON.stringify writes it
	}{
		{"two lone high surrogates", `\ud800`, `\ud801`, 1, `\ud800`},
		{"lone surrogate and escaped U+FFFD", `\ud800`, `\ufffd`, 1, `\ud800`},
		{"the same lone surrogate", `\ud800`, `\ud800`, 0, ""},
		{"no result", `\ud800`, "", 1, `\ud800`},
		{"lone surrogate and raw U+FFFD", `\ud800`, "\ufffd", 1, `\ud800`},
		{"lone low surrogates inside text", `a\udc00b`, `a\udc01b`, 1, `a\udc00b`},
		{"an escaped pair and the raw character", `\ud800\udc00`, "\U00010000", 0, ""},
		{"a lone high before a pair", `\ud800\ud800\udc00`, `\ud800` + "\U00010000", 0, ""},
		{"a lone high before a pair, the other lone", `\ud800\ud800\udc00`, `\ud801` + "\U00010000", 1, `\ud800` + "\U00010000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := `{"type":"session","id":"0"}` + "\n" + call(tc.call)
			if tc.result != "" {
				in += result(tc.result)
			}
			out, p := repairBytes(t, []byte(in), testOpts())
			if p.Counts.InsertedToolResults != tc.inserted {
				t.Fatalf("%d results inserted, want %d; output:\n%s", p.Counts.InsertedToolResults, tc.inserted, out)
			}
			if tc.inserted > 0 && !bytes.Contains(out, []byte(`"toolCallId":"`+tc.written+`","toolName":"unknown"`)) {
				t.Fatalf("synthetic result does not name the call as written:\n%s", out)
			}
			again, p2 := repairBytes(t, out, testOpts())
			if p2.Changed() || !bytes.Equal(again, out) {
				t.Fatalf("second repair changes the file: %+v", p2.Changes)
			}
		})
	}
}

// TestRelinkReadsEscapedIDs: a parentId spelled with escapes names the entry whose id is the
// same string ("\u0075\u0031" is "u1" to JSON.parse, and to OpenClaw's tree), so --relink
// leaves it; a lone surrogate names no entry whose id is U+FFFD. Ids were compared as raw
// tokens before, and the first parent was relinked to the entry before it.
func TestRelinkReadsEscapedIDs(t *testing.T) {
	entry := func(id, parent string) string {
		return `{"type":"message","id":"` + id + `","parentId":` + parent + `,"message":{"role":"user","content":"x"}}` + "\n"
	}
	for _, tc := range []struct {
		name, ids string
		relinked  int
	}{
		{"escaped ASCII", entry("u1", "null") + entry("u2", `"\u0075\u0031"`), 0},
		{"escaped id, plain parent", entry(`\u0075\u0031`, "null") + entry("u2", `"u1"`), 0},
		{"escaped pair, raw character", entry(`\ud83d\ude00`, "null") + entry("u2", "\"\U0001F600\""), 0},
		{"lone surrogate is not U+FFFD", entry("\ufffd", "null") + entry("u2", `"\ud800"`), 1},
		{"two lone surrogates", entry(`\ud801`, "null") + entry("u2", `"\ud800"`), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := testOpts()
			opts.Relink = true
			in := `{"type":"session","id":"0"}` + "\n" + tc.ids
			out, p := repairBytes(t, []byte(in), opts)
			if p.Counts.RelinkedParents != tc.relinked {
				t.Fatalf("%d parents relinked, want %d; output:\n%s", p.Counts.RelinkedParents, tc.relinked, out)
			}
		})
	}
}

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

package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/compaction"
	"github.com/clawdoctor/clawdoctor/internal/replay"
)

// FuzzReplay runs arbitrary transcripts through the whole replay (context, hygiene for three
// providers, compaction with both boundaries): no panic and the result encodes. (Provider
// invariants are not asserted: OpenClaw itself lets some violations through, e.g. a reused
// tool-call id leaves a call unpaired; internal/conformance/replaycheck checks equality with it.)
func FuzzReplay(f *testing.F) {
	f.Add([]byte(example))
	f.Add(synthetic(60))
	f.Add([]byte(`{"type":"message","id":"a","parentId":"a","message":{"role":"assistant","content":[{"type":"toolCall","id":"x","name":"r","arguments":{}}]}}
{"type":"compaction","id":"c","parentId":"a","summary":7,"firstKeptEntryId":"zz"}
{"type":"custom_message","id":"m","parentId":"c","content":[{"type":"image"}],"customType":null}
{"type":"branch_summary","id":"b","parentId":"m","summary":"s","fromId":"root"}
{"type":"message","id":"t","parentId":"b","message":{"role":"toolResult","toolCallId":"x"}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 1<<14 {
			return
		}
		for _, tg := range []target{targets[0], targets[1], targets[2]} {
			for _, b := range []compaction.Boundary{compaction.BoundaryPi058, compaction.BoundaryLate} {
				o := options(tg)
				o.Compaction = compaction.Settings{ContextWindow: 2000, KeepRecentTokens: 50, Boundary: b}
				res, err := replay.Run(context.Background(), bytes.NewReader(in), "f.jsonl", o)
				if err != nil {
					t.Fatalf("%s: %v", tg.name, err)
				}
				if _, err := json.Marshal(res); err != nil {
					t.Fatalf("%s: result does not encode: %v", tg.name, err)
				}
			}
		}
	})
}

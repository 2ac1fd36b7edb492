package report_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/replay"
	"github.com/clawdoctor/clawdoctor/report"
)

// replaySample is the worked example of transcript.md §11 behind a compaction, replayed for
// Anthropic.
const replaySample = `{"type":"session","version":3,"id":"s","timestamp":"2026-05-01T08:00:00.000Z","cwd":"/w"}
{"type":"message","id":"u0","parentId":null,"timestamp":"2026-05-01T08:00:00.500Z","message":{"role":"user","content":"old question","timestamp":1777622400500}}
{"type":"compaction","id":"c1","parentId":"u0","timestamp":"2026-05-01T08:00:00.700Z","summary":"## Goal\nlist files","firstKeptEntryId":"u0","tokensBefore":100}
{"type":"message","id":"u1","parentId":"c1","timestamp":"2026-05-01T08:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"list files"}],"timestamp":1777622401000}}
{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-05-01T08:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":" "},{"type":"toolCall","id":"call-1","name":"exec ","arguments":{"cmd":"ls"}}],"stopReason":"toolUse","api":"anthropic-messages","provider":"anthropic","model":"claude-x","usage":{"input":10,"output":5},"timestamp":1777622402000}}
{"type":"message","id":"u2","parentId":"a1","timestamp":"2026-05-01T08:00:03.000Z","message":{"role":"user","content":[{"type":"text","text":"hurry"}],"timestamp":1777622403000}}
{"type":"message","id":"r1","parentId":"u2","timestamp":"2026-05-01T08:00:04.000Z","message":{"role":"toolResult","toolCallId":"call-1","toolName":"exec","content":[{"type":"text","text":"a b"}],"details":{"exitCode":0},"isError":false,"timestamp":1777622404000}}
{"type":"message","id":"u3","parentId":"r1","timestamp":"2026-05-01T08:00:05.000Z","message":{"role":"user","content":[{"type":"text","text":"thanks"}],"timestamp":1777622405000}}
`

func TestReplayFormats(t *testing.T) {
	res, err := replay.Run(context.Background(), strings.NewReader(replaySample), "s.jsonl", replay.Options{
		Provider: "anthropic", Model: "claude-x", API: "anthropic-messages", NowMs: 1777982400000, Recheck: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []report.Format{report.Text, report.JSON} {
		var b bytes.Buffer
		if err := report.Replay(&b, res, f); err != nil {
			t.Fatal(err)
		}
		golden(t, "replay_"+string(f)+".golden", b.Bytes())
	}
}

package replay_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/replay"
)

// synthetic writes a linear transcript of n entries: user, assistant with a tool call, tool
// result, assistant answer, with a compaction every 2000 entries.
func synthetic(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"session","version":3,"id":"s","timestamp":"2026-05-01T08:00:00.000Z","cwd":"/w"}` + "\n")
	parent := "null"
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%08x", i+1)
		ts := fmt.Sprintf("2026-05-01T08:%02d:%02d.000Z", (i/60)%60, i%60)
		switch {
		case i%2000 == 1999:
			fmt.Fprintf(&b, `{"type":"compaction","id":"%s","parentId":%s,"timestamp":"%s","summary":"## Goal\nkeep going","firstKeptEntryId":"%08x","tokensBefore":150000}`+"\n", id, parent, ts, i-40)
		case i%4 == 0:
			fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"%s","message":{"role":"user","content":[{"type":"text","text":"please look at file number %d and tell me what is in it"}],"timestamp":%d}}`+"\n", id, parent, ts, i, 1777622400000+i)
		case i%4 == 1:
			fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"%s","message":{"role":"assistant","content":[{"type":"thinking","thinking":"I should read it.","thinkingSignature":"QUJD"},{"type":"toolCall","id":"call_%d|fc_%d","name":"read","arguments":{"path":"/w/f%d.txt"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":%d,"output":40,"cacheRead":0,"cacheWrite":0,"totalTokens":%d},"stopReason":"toolUse","timestamp":%d}}`+"\n", id, parent, ts, i, i, i, 1000+i%5000, 1040+i%5000, 1777622400000+i)
		case i%4 == 2:
			fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"%s","message":{"role":"toolResult","toolCallId":"call_%d|fc_%d","toolName":"read","content":[{"type":"text","text":"line one\nline two\nline three of file %d"}],"details":{"bytes":42},"isError":false,"timestamp":%d}}`+"\n", id, parent, ts, i-1, i-1, i, 1777622400000+i)
		default:
			fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"%s","message":{"role":"assistant","content":[{"type":"text","text":"The file holds three lines."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":%d,"output":10,"cacheRead":0,"cacheWrite":0,"totalTokens":%d},"stopReason":"stop","timestamp":%d}}`+"\n", id, parent, ts, 1100+i%5000, 1110+i%5000, 1777622400000+i)
		}
		parent = `"` + id + `"`
	}
	return b.Bytes()
}

func BenchmarkReplay(b *testing.B) {
	for _, tg := range []target{targets[0], targets[2], targets[3]} {
		for _, n := range []int{10000} {
			data := synthetic(n)
			b.Run(fmt.Sprintf("%s/%d", tg.name, n), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := replay.Run(context.Background(), bytes.NewReader(data), "bench.jsonl", options(tg)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestSyntheticReplay checks the benchmark input replays as expected, so the benchmark
// measures real work: the last compaction keeps 41 entries and tool ids are sanitized.
func TestSyntheticReplay(t *testing.T) {
	res, err := replay.Run(context.Background(), bytes.NewReader(synthetic(5000)), "s.jsonl", options(targets[0]))
	if err != nil {
		t.Fatal(err)
	}
	if res.Context.Compaction != fmt.Sprintf("%08x", 4000) || !res.Context.FirstKeptFound {
		t.Fatalf("context = %+v", res.Context)
	}
	if got := len(res.Messages); got != 1+40+1000 {
		t.Errorf("messages sent = %d, want summary + 40 kept + 1000 after", got)
	}
}

package replaycheck

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/hygiene"
)

// Reused tool-call ids: Kimi (moonshot) numbers its calls functions.<name>:<n> per turn, so a
// later assistant turn reuses an id an earlier turn already used. Whether a release keeps the
// later real result depends on its id sanitizer (occurrence-aware from 2026.4.24, when the
// provider's policy sanitizes ids) and on its pairing (which drops a result whose id was
// already answered). ReusedInputs are the probes; ReusedVerdict reads the outcome.

// reusedTranscript is a session where turn 2 reuses turn 1's tool-call id.
func reusedTranscript(id1, id2 string) []byte {
	lines := []string{
		`{"type":"session","version":3,"id":"reused-ids","timestamp":"2026-05-04T10:00:00.000Z","cwd":"/w"}`,
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-05-04T10:00:01.000Z","message":{"role":"user","content":"read a","timestamp":1777888801000}}`,
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-05-04T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"` + id1 + `","name":"read","arguments":{"path":"a"}}],"api":"openai-completions","provider":"moonshot","model":"kimi-k2.5","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15},"stopReason":"toolUse","timestamp":1777888802000}}`,
		`{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-05-04T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"` + id1 + `","toolName":"read","content":[{"type":"text","text":"FIRST RESULT"}],"isError":false,"timestamp":1777888803000}}`,
		`{"type":"message","id":"a2","parentId":"r1","timestamp":"2026-05-04T10:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"a read"}],"api":"openai-completions","provider":"moonshot","model":"kimi-k2.5","usage":{"input":20,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":25},"stopReason":"stop","timestamp":1777888804000}}`,
		`{"type":"message","id":"u2","parentId":"a2","timestamp":"2026-05-04T10:00:05.000Z","message":{"role":"user","content":"read b","timestamp":1777888805000}}`,
		`{"type":"message","id":"a3","parentId":"u2","timestamp":"2026-05-04T10:00:06.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"` + id2 + `","name":"read","arguments":{"path":"b"}}],"api":"openai-completions","provider":"moonshot","model":"kimi-k2.5","usage":{"input":30,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":35},"stopReason":"toolUse","timestamp":1777888806000}}`,
		`{"type":"message","id":"r3","parentId":"a3","timestamp":"2026-05-04T10:00:07.000Z","message":{"role":"toolResult","toolCallId":"` + id2 + `","toolName":"read","content":[{"type":"text","text":"SECOND RESULT"}],"isError":false,"timestamp":1777888807000}}`,
		`{"type":"message","id":"a4","parentId":"r3","timestamp":"2026-05-04T10:00:08.000Z","message":{"role":"assistant","content":[{"type":"text","text":"b read"}],"api":"openai-completions","provider":"moonshot","model":"kimi-k2.5","usage":{"input":40,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":45},"stopReason":"stop","timestamp":1777888808000}}`,
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

// ReusedInputs are the reused-id probes: a Kimi-style id used again by a later turn, and a
// plain call_ id used again.
func ReusedInputs() []Input {
	return []Input{
		{Key: "reused/kimi", Data: reusedTranscript("functions.read:0", "functions.read:0")},
		{Key: "reused/call", Data: reusedTranscript("call_1", "call_1")},
	}
}

// Outcomes of a reused tool-call id.
const (
	ReusedPaired = "pairs-by-occurrence" // both real results reach the model, each after its call
	ReusedLost   = "loses-later-result"  // the later real result is dropped
	ReusedOdd    = "other"               // anything else (see the sent messages)
)

// ReusedVerdict reads what happened to the later result in sent messages (pi format).
func ReusedVerdict(msgs []hygiene.Message) string {
	second := -1
	for i, m := range msgs {
		if hygiene.Role(m) == "toolResult" && strings.Contains(hygiene.TextOf(m), "SECOND RESULT") {
			second = i
		}
	}
	if second < 0 {
		return ReusedLost
	}
	if second == 0 {
		return ReusedOdd
	}
	id := hygiene.ResultID(msgs[second])
	for _, c := range hygiene.ToolCalls(msgs[second-1]) {
		if c.ID == id {
			return ReusedPaired
		}
	}
	return ReusedOdd
}

// ReusedThrows is the outcome when the pipeline refuses the transcript (2026.6.11's OpenAI
// Responses invariant: the run fails).
const ReusedThrows = "throws"

// ourReusedVerdict replays the probe in for t with our engine, as release rel.
func ourReusedVerdict(ctx context.Context, in Input, t Target, rel string) (string, error) {
	res, err := runOurs(ctx, in, ReplayOptions(t, rel, NowMs))
	if err != nil {
		return "", err
	}
	if res.Error != "" {
		return ReusedThrows, nil
	}
	return ReusedVerdict(res.Messages), nil
}

// ReusedLine is one recorded outcome: "<release> <input> <target> <verdict>".
func ReusedLine(release, input, target, verdict string) string {
	return fmt.Sprintf("%s %s %s %s", release, input, target, verdict)
}

// ReusedGoldenPath is testdata/reused-call-id.golden.
func ReusedGoldenPath() string {
	return filepath.Join(repoDir(), "internal", "conformance", "replaycheck", "testdata", "reused-call-id.golden")
}

// reusedAnswerVerdict reads the verdict from an oracle answer.
func reusedAnswerVerdict(raw json.RawMessage) (string, error) {
	var a ReplayAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", err
	}
	if a.Error != "" {
		return ReusedThrows, nil
	}
	var msgs []hygiene.Message
	for _, b := range splitArray(a.Validated) {
		m, err := hygiene.Decode(b)
		if err != nil {
			return "", err
		}
		msgs = append(msgs, m)
	}
	return ReusedVerdict(msgs), nil
}

func splitArray(raw json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
	_ = json.Unmarshal(raw, &out)
	return out
}

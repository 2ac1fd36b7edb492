package forensics_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/forensics"
)

// Synthetic lines in the formats of context-and-forensics.md §5.3, §6.2 and §6.3.
const journal = `2026-05-17T16:09:44.525+08:00 [agent] tmux.run.complete sessionName=openclaw-claude-ab12cd34ef56 aliveAtEnd=true sawStop=true transcriptEmitted=false launchMode=resume durationMs=405257
2026-05-17T16:09:44.526+08:00 [agent] tmux.empty-output.retry runId=r1 sessionName=openclaw-claude-ab12cd34ef56 launchMode=resume reason=envelope-without-transcript transcriptPath=/tmp/openclaw/claude-tmux/x/claude-config/projects/-home-u-ws/3f0c2a9e.jsonl paneTailSize=37559 retryAttempt=0
2026-05-17T16:10:15.000+08:00 [agent] tmux pane: Error: Session ID 3f0c2a9e is already in use.
2026-05-17T16:10:15.100+08:00 [model-fallback/decision] model fallback decision: decision=candidate_failed requested=claude-cli/sonnet candidate=claude-cli/sonnet reason=session_expired next=openai/gpt-5.5 detail=CLI tmux session reported session-id conflict; not waiting for timeout. (2 duplicates suppressed in last 60s)
16:11:00 [gateway] something unrelated happened
`

const fileLog = `{"0":"{\"subsystem\":\"agent/embedded\"}","1":"embedded run start: runId=7c1e sessionId=5d1c provider=anthropic model=claude-sonnet-4-6 thinking=off messageChannel=telegram","_meta":{"name":"{\"subsystem\":\"agent/embedded\"}","date":"2026-05-01T08:00:01.000Z","logLevelName":"INFO"},"time":"2026-05-01T10:00:01.000+02:00"}
{"0":"{\"subsystem\":\"model-fallback/decision\"}","1":{"event":"model_fallback_decision","tags":["error_handling","model_fallback","candidate_failed"],"decision":"candidate_failed","requestedProvider":"openai","requestedModel":"gpt-5.4","candidateProvider":"openai","candidateModel":"gpt-5.4","reason":"timeout","nextCandidateProvider":"anthropic","nextCandidateModel":"claude-sonnet-4-6","sessionId":"5d1c"},"2":"model fallback decision","_meta":{"name":"{\"subsystem\":\"model-fallback/decision\"}","logLevelId":4,"logLevelName":"WARN","date":"2026-05-01T08:05:00.000Z"}}
{"0":"{\"subsystem\":\"gateway/channels/telegram\"}","1":{"messageId":"9801","chatId":"42"},"2":"message sent","time":"2026-05-01T10:05:30.000+02:00"}
not a log line at all
`

func parse(t *testing.T, in string) []forensics.Event {
	t.Helper()
	var out []forensics.Event
	err := forensics.Parse(context.Background(), strings.NewReader(in), "gw.log", func(e forensics.Event) error {
		out = append(out, e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type brief struct {
	Kind forensics.Kind
	Line int64
	Time string
	Sub  string
	F    map[string]string
}

func briefs(evs []forensics.Event, keys ...string) []brief {
	var out []brief
	for _, e := range evs {
		b := brief{Kind: e.Kind, Line: e.Line, Sub: e.Subsystem, F: map[string]string{}}
		if !e.Time.IsZero() {
			b.Time = e.Time.UTC().Format(time.RFC3339Nano)
		}
		for _, k := range keys {
			if v, ok := e.Fields[k]; ok {
				b.F[k] = v
			}
		}
		out = append(out, b)
	}
	return out
}

func TestParseJournal(t *testing.T) {
	got := briefs(parse(t, journal), "launchMode", "reason", "sessionId", "decision", "candidate", "next", "detail")
	want := []brief{
		{forensics.RunComplete, 1, "2026-05-17T08:09:44.525Z", "agent", map[string]string{"launchMode": "resume"}},
		{forensics.EmptyRetry, 2, "2026-05-17T08:09:44.526Z", "agent", map[string]string{"launchMode": "resume", "reason": "envelope-without-transcript"}},
		{forensics.Conflict, 3, "2026-05-17T08:10:15Z", "agent", map[string]string{"sessionId": "3f0c2a9e"}},
		{forensics.Fallback, 4, "2026-05-17T08:10:15.1Z", "model-fallback/decision", map[string]string{"decision": "candidate_failed", "candidate": "claude-cli/sonnet",
			"next": "openai/gpt-5.5", "reason": "session_expired", "detail": "CLI tmux session reported session-id conflict; not waiting for timeout."}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestParseFileRecords(t *testing.T) {
	got := briefs(parse(t, fileLog), "sessionId", "decision", "requested", "candidate", "next", "reason", "messageId")
	want := []brief{
		{forensics.RunStart, 1, "2026-05-01T08:00:01Z", "agent/embedded", map[string]string{"sessionId": "5d1c"}},
		{forensics.Fallback, 2, "2026-05-01T08:05:00Z", "model-fallback/decision", map[string]string{"sessionId": "5d1c", "decision": "candidate_failed",
			"requested": "openai/gpt-5.4", "candidate": "openai/gpt-5.4", "next": "anthropic/claude-sonnet-4-6", "reason": "timeout"}},
		{forensics.Delivery, 3, "2026-05-01T08:05:30Z", "gateway/channels/telegram", map[string]string{"messageId": "9801"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range strings.Split(journal+fileLog, "\n") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		_ = forensics.Parse(context.Background(), strings.NewReader(line), "f", func(forensics.Event) error { return nil })
	})
}

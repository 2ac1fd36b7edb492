package audit_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/audit"
)

// The #83011 sequence (context-and-forensics.md §5.3), synthetic.
const conflictLog = `2026-05-17T16:09:44.525+08:00 [agent] tmux.run.complete sessionName=openclaw-claude-ab12 aliveAtEnd=true sawStop=true transcriptEmitted=false launchMode=resume durationMs=405257
2026-05-17T16:09:44.526+08:00 [agent] tmux.empty-output.retry runId=r1 sessionName=openclaw-claude-ab12 launchMode=resume reason=envelope-without-transcript transcriptPath=/tmp/openclaw/claude-tmux/x/claude-config/projects/-home-u-ws/3f0c2a9e-0000-4000-8000-000000000001.jsonl paneTailSize=37559 retryAttempt=0
2026-05-17T16:10:15.000+08:00 [agent] pane tail: Error: Session ID 3f0c2a9e-0000-4000-8000-000000000001 is already in use.
2026-05-17T16:10:15.100+08:00 [model-fallback/decision] model fallback decision: decision=candidate_failed requested=claude-cli/sonnet candidate=claude-cli/sonnet reason=REASON next=openai/gpt-5.5 detail=DETAIL
`

func writeLog(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "openclaw-2026-05-17.log")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSessionIDConflict(t *testing.T) {
	for _, tc := range []struct {
		name, reason, detail string
		misread              bool
	}{
		{"classified session_expired", "session_expired", "CLI tmux session reported session-id conflict; not waiting for timeout.", false},
		{"misread as timeout", "timeout", "CLI exceeded timeout (300s) in tmux session.", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := strings.NewReplacer("REASON", tc.reason, "DETAIL", tc.detail).Replace(conflictLog)
			fs, _, err := audit.CheckLog(context.Background(), writeLog(t, log))
			if err != nil {
				t.Fatal(err)
			}
			var conflicts []audit.Finding
			for _, f := range fs {
				if f.Rule == "cli.session-id-conflict" {
					conflicts = append(conflicts, f)
				}
			}
			if len(conflicts) != 1 {
				t.Fatalf("want 1 conflict incident, got %d: %v", len(conflicts), fs)
			}
			f := conflicts[0]
			if f.Line != 3 || f.Evidence["cliSessionId"] != "3f0c2a9e-0000-4000-8000-000000000001" {
				t.Errorf("finding %+v", f)
			}
			retry, _ := f.Evidence["retry"].(map[string]any)
			fb, _ := f.Evidence["fallback"].(map[string]any)
			if retry["line"] != int64(2) || retry["reason"] != "envelope-without-transcript" || fb["to"] != "openai/gpt-5.5" || fb["reason"] != tc.reason {
				t.Errorf("evidence %v", f.Evidence)
			}
			if f.Evidence["misreadAsTimeout"] != tc.misread {
				t.Errorf("misreadAsTimeout %v, want %v", f.Evidence["misreadAsTimeout"], tc.misread)
			}
		})
	}
}

func TestPlainFallbackIsNoConflict(t *testing.T) {
	log := `2026-05-04T17:48:04.457+02:00 [model-fallback/decision] model fallback decision: decision=candidate_failed requested=openai/gpt-5.4 candidate=openai/gpt-5.4 reason=timeout next=anthropic/claude-sonnet-4-6 detail=LLM request timed out.` + "\n"
	fs, _, err := audit.CheckLog(context.Background(), writeLog(t, log))
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Rule != "fallback.chain" || fs[0].Evidence["from"] != "openai/gpt-5.4" || fs[0].Evidence["to"] != "anthropic/claude-sonnet-4-6" {
		t.Fatalf("findings %v, want one fallback.chain", fs)
	}
}

func TestLogsConfirmBatching(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(tr, []byte(batchedTurn()), 0o644); err != nil {
		t.Fatal(err)
	}
	// the channel delivered all three at 08:03:31, after the turn ended at 08:03:30
	var log strings.Builder
	for _, id := range []string{"9801", "9802", "9803"} {
		log.WriteString(`{"0":"{\"subsystem\":\"gateway/channels/telegram\"}","1":{"messageId":"` + id + `"},"2":"message sent","time":"2026-05-01T08:03:31.000Z"}` + "\n")
	}
	res, err := audit.Run(context.Background(), []string{tr}, audit.Options{Logs: []string{writeLog(t, log.String())}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := byRule(res, "delivery.message-batched")
	if len(got) != 1 || got[0].Evidence["status"] != "confirmed" || got[0].Evidence["deliverySource"] != "gateway log" {
		t.Fatalf("findings %v", res.Findings)
	}
}

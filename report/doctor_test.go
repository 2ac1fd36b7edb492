package report_test

import (
	"bytes"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/doctor"
	"github.com/clawdoctor/clawdoctor/report"
)

func doctorResult() *doctor.Result {
	return &doctor.Result{
		StateDir: "/home/u/.openclaw", ConfigPath: "/home/u/.openclaw/openclaw.json", Fix: true,
		BackupDir: "/home/u/.openclaw/clawdoctor-backups/20260505T120000Z",
		Agents:    []doctor.AgentSummary{{ID: "main", SessionsDir: "/home/u/.openclaw/agents/main/sessions", Entries: 3, Transcripts: 4, Problems: 2, Fixable: 1, Fixed: 1}},
		Problems: []doctor.Problem{
			{Check: "config.legacy-key", Severity: "warning", Path: "/home/u/.openclaw/openclaw.json",
				Message: "session.parentForkMaxTokens was removed", Fix: "remove session.parentForkMaxTokens",
				Gate: doctor.GateFix, Status: doctor.StatusFixed, Backup: "/home/u/.openclaw/clawdoctor-backups/20260505T120000Z/openclaw.json"},
			{Check: "store.orphan-transcript", Severity: "warning", Agent: "main", Path: "/home/u/.openclaw/agents/main/sessions/x.jsonl",
				Message: "no sessions.json entry references this transcript", Fix: "rename to x.jsonl.deleted.2026-05-05T12-00-00.000Z",
				Gate: doctor.GateYes, Status: doctor.StatusWouldFix, Bytes: 125},
			{Check: "lock.live", Severity: "warning", Agent: "main", Path: "/home/u/.openclaw/agents/main/sessions/y.jsonl.lock",
				Message: "held by a live process (pid 4242)", Gate: doctor.GateNone, Status: doctor.StatusFound},
		},
		Next: []string{"clawdoctor doctor --fix --yes --state-dir /home/u/.openclaw", "backups of everything changed are in /home/u/.openclaw/clawdoctor-backups/20260505T120000Z"},
	}
}

func TestDoctorFormats(t *testing.T) {
	for _, tc := range []struct {
		name   string
		format report.Format
	}{{"doctor_text.golden", report.Text}, {"doctor_json.golden", report.JSON}} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := report.Doctor(&buf, doctorResult(), tc.format); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, buf.Bytes())
			if bytes.Contains(buf.Bytes(), []byte("\x1b[")) {
				t.Error("colour codes written to a non-terminal")
			}
		})
	}
}

package commands

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepairExitCodes checks the exit status of clawdoctor repair (issue 3, point 5): 0 nothing
// to do, 1 repaired or would repair, 2 usage, 3 some file skipped, 4 I/O error.
func TestRepairExitCodes(t *testing.T) {
	dir := t.TempDir()
	hdr := `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}` + "\n"
	files := map[string]string{
		"clean.jsonl":    hdr,
		"torn.jsonl":     hdr + `{"type":"mess`,
		"headless.jsonl": `{"type":"message","id":"u","parentId":null,"message":{"role":"user","content":"x"}}` + "\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"clean", []string{"repair", p("clean.jsonl")}, exitClean},
		{"dry run needs repair", []string{"repair", "-n", p("torn.jsonl")}, exitFindings},
		{"skipped header", []string{"repair", p("headless.jsonl")}, exitPartial},
		{"missing file", []string{"repair", p("nope.jsonl")}, exitIO},
		{"late flag", []string{"repair", p("torn.jsonl"), "--dry-run"}, exitUsage},
		{"repaired", []string{"repair", p("torn.jsonl")}, exitFindings},
		{"then clean", []string{"repair", p("torn.jsonl")}, exitClean},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout %s\nstderr %s", code, tc.code, stdout, stderr)
			}
		})
	}
	// --json is valid JSON with the field names.
	_, stdout, _ := run(t, "--json", "repair", "-n", p("headless.jsonl"))
	var res struct {
		Files []map[string]any `json:"files"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || len(res.Files) != 1 {
		t.Fatalf("json: %v\n%s", err, stdout)
	}
	for _, k := range []string{"path", "status", "reason", "droppedLines", "salvagedLines", "rewrittenAssistantMessages",
		"rewrittenUserMessages", "insertedToolResults", "bytesBefore", "bytesAfter"} {
		if _, ok := res.Files[0][k]; !ok {
			t.Errorf("json file object lacks %q: %v", k, res.Files[0])
		}
	}
	if !strings.Contains(res.Files[0]["reason"].(string), "header") {
		t.Errorf("reason %v", res.Files[0]["reason"])
	}
}

//go:build conformance

package conformance

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/migration"
)

var updateImport = flag.Bool("update-import", false, "rewrite internal/migration/testdata/oracle/import.jsonl from the live releases")

// importReleases are the SQLite-era releases whose import is the oracle.
var importReleases = []string{"2026.8.1", "2026.9.6"}

// ImportRecord is one line of the recorded import oracle.
type importRecord struct {
	Release string `json:"release"`
	Name    string `json:"name"`
	SHA256  string `json:"sha256"`
	Events  int64  `json:"events"` // events the real import stored, -1 when it stored none
}

// TestLiveImportPrediction (issue 29, scope 1) puts every ImportInput into one state dir, one
// store row each, runs the real `openclaw doctor --session-sqlite import` of 2026.8.1 and
// 2026.9.6 on copies, and holds the events each stored against migration.Predict; the answers
// are recorded for the offline migration.TestPredictMatchesImport (-update-import rewrites).
func TestLiveImportPrediction(t *testing.T) {
	ref := reference(t)
	ctx := context.Background()
	inputs, err := ImportInputs(ctx, os.Getenv("CLAWDOCTOR_IMPORT_CORPUS"))
	if err != nil {
		t.Fatal(err)
	}
	var records []importRecord
	for _, rel := range importReleases {
		state := filepath.Join(t.TempDir(), "state")
		sessions := filepath.Join(state, "agents", "main", "sessions")
		os.MkdirAll(sessions, 0o755)
		rows := map[string]any{}
		ids := make([]string, len(inputs))
		for i, in := range inputs {
			ids[i] = fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
			if err := os.WriteFile(filepath.Join(sessions, ids[i]+".jsonl"), in.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			rows[fmt.Sprintf("agent:main:direct:n%d", i)] = map[string]any{"sessionId": ids[i], "sessionFile": ids[i] + ".jsonl", "updatedAt": 1777600000000 + i}
		}
		b, _ := json.Marshal(rows)
		os.WriteFile(filepath.Join(sessions, "sessions.json"), b, 0o644)
		cctx, cancel := context.WithTimeout(ctx, 20*time.Minute)
		cmd := exec.CommandContext(cctx, ref, "doctor", "--session-sqlite", "import", "--json")
		cmd.Env = append(os.Environ(), "OPENCLAW_REF_VERSION="+rel, "OPENCLAW_STATE_DIR="+state, "OPENCLAW_REF_NOW=2026-05-02 08:00:00")
		out, err := cmd.CombinedOutput()
		cancel()
		dbPath := filepath.Join(state, "agents", "main", "agent", agentdb.FileName)
		if _, serr := os.Stat(dbPath); serr != nil {
			t.Fatalf("%s: the import made no database (%v): %s", rel, err, out[:min(len(out), 2000)])
		}
		db, err := agentdb.Open(ctx, dbPath)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		ss, err := db.Sessions(ctx)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ss {
			got[s.ID] = s.Events
		}
		imported, differ := 0, 0
		for i, in := range inputs {
			sum := sha256.Sum256(in.Data)
			events, ok := got[ids[i]]
			if !ok {
				events = -1
			} else {
				imported++
			}
			records = append(records, importRecord{Release: rel, Name: in.Name, SHA256: hex.EncodeToString(sum[:]), Events: events})
			p, err := migration.Predict(ctx, strings.NewReader(string(in.Data)))
			if err != nil {
				t.Fatal(err)
			}
			if max(events, 0) != p.Kept { // a session the import stored nothing of has no events

				differ++
				if differ <= 20 {
					t.Errorf("%s %s: the import stored %d events, the prediction says %d (stop %d: %s)", rel, in.Name, events, p.Kept, p.Stop, p.Reason)
				}
			}
		}
		t.Logf("%s: %d inputs, %d imported, %d differ from the prediction", rel, len(inputs), imported, differ)
		if imported < len(inputs)/2 {
			t.Errorf("%s: only %d of %d inputs were imported: the comparison checks little", rel, imported, len(inputs))
		}
	}
	path := filepath.Join("..", "migration", "testdata", "oracle", "import.jsonl")
	var b strings.Builder
	for _, r := range records {
		line, _ := json.Marshal(r)
		b.Write(append(line, '\n'))
	}
	if *updateImport {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (record it with -update-import)", err)
	}
	if string(want) != b.String() {
		t.Errorf("the live imports differ from the recorded %s: re-record with -update-import", path)
	}
}

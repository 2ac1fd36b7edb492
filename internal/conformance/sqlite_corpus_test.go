//go:build conformance

package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/audit"
	"github.com/clawdoctor/clawdoctor/internal/export"
	"github.com/clawdoctor/clawdoctor/internal/migration"
)

// TestSQLiteCorpusImport imports a temp copy of every corpus state dir with the real 2026.9.6
// (personal data: only in temp dirs, nothing recorded) and checks on the databases it made:
// every session the import kept verbatim is exported byte for byte and audits exactly as the
// original; the migration check's verdicts agree with a direct comparison.
func TestSQLiteCorpusImport(t *testing.T) {
	ref := reference(t)
	root := filepath.Join("..", "..", "..", "shared", "corpus")
	if p := os.Getenv("CLAWDOCTOR_CORPUS"); p != "" {
		root = p
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "*", "agents"))
	if len(dirs) == 0 {
		t.Skipf("no corpus at %s", root)
	}
	total := map[migration.State]int{}
	for _, agents := range dirs {
		name := filepath.Base(filepath.Dir(agents))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			state := filepath.Join(t.TempDir(), "state")
			if err := os.CopyFS(filepath.Join(state, "agents"), os.DirFS(agents)); err != nil {
				t.Fatal(err)
			}
			out, err := refRun(t, ref, state, "doctor", "--session-sqlite", "import", "--session-sqlite-all-agents", "--json")
			ids, _ := filepath.Glob(filepath.Join(state, "agents", "*", "agent", agentdb.FileName))
			if len(ids) == 0 {
				t.Skipf("the import made no database (%v): %.300s", err, out)
			}
			for _, dbPath := range ids {
				agentDir := filepath.Dir(filepath.Dir(dbPath))
				sessions := filepath.Join(agentDir, "sessions")
				rep, err := migration.Check(context.Background(), state, sessions)
				if err != nil {
					t.Fatal(err)
				}
				exp := filepath.Join(t.TempDir(), "export")
				if _, err := export.Run(context.Background(), export.Options{SessionsDir: sessions, StateDir: state, Out: exp}, nil); err != nil {
					t.Fatal(err)
				}
				dbRes, err := audit.Run(context.Background(), []string{dbPath}, audit.Options{Now: Now}, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range rep.Verdicts {
					total[v.State]++
					if v.State != migration.Identical {
						continue
					}
					orig, _ := os.ReadFile(v.File)
					got, err := os.ReadFile(filepath.Join(exp, v.Session+".jsonl"))
					if err != nil || !bytes.Equal(orig, got) {
						t.Errorf("%s: identical by the migration check, but its export differs (%v)", v.File, err)
						continue
					}
					fileRes, err := audit.Run(context.Background(), []string{v.File}, audit.Options{Now: Now}, nil)
					if err != nil {
						t.Fatal(err)
					}
					want := corpusFindings(fileRes.Findings, v.File)
					have := corpusFindings(dbFindingsFor(dbRes.Findings, agentdb.Ref(dbPath, v.Session)), agentdb.Ref(dbPath, v.Session))
					if want != have {
						t.Errorf("%s: audit of the database differs from the audit of the original:\n%s\nvs\n%s", v.File, have, want)
					}
				}
			}
		})
	}
	t.Cleanup(func() { t.Logf("corpus verdicts: %v", total) })
}

func dbFindingsFor(fs []audit.Finding, ref string) []audit.Finding {
	var out []audit.Finding
	for _, f := range fs {
		if f.Path == ref {
			out = append(out, f)
		}
	}
	return out
}

// corpusFindings renders findings without where they were found (path, SQLite note).
func corpusFindings(fs []audit.Finding, name string) string {
	var lines []string
	for _, f := range fs {
		msg := strings.ReplaceAll(f.Message, name, "FILE")
		msg, _, _ = strings.Cut(msg, " (This session lives in the agent database")
		ev, _ := json.Marshal(f.Evidence)
		lines = append(lines, fmt.Sprintf("%s %s %d %s %s %s", f.Rule, f.Severity, f.Line, f.EntryID, ev, msg))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

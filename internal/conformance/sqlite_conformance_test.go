//go:build conformance

package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/fixtures"
)

var record = flag.Bool("record", false, "rewrite testdata/sqlite (cases and the real 2026.9.6's answers)")

// refRun runs the reference release on state at Now (faketime) and returns its stdout.
func refRun(t *testing.T, ref, state string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, ref, args...)
	cmd.Env = append(os.Environ(), "OPENCLAW_REF_VERSION="+SQLiteRelease, "OPENCLAW_STATE_DIR="+state,
		"OPENCLAW_CONFIG_PATH="+filepath.Join(state, "openclaw.json"), "TZ=UTC", "OPENCLAW_REF_NOW="+Now.Format("2006-01-02 15:04:05"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("%v: %s", err, errb.String())
	}
	return out.Bytes(), err
}

// buildSQLiteCase makes the case's state dir in dir: generated JSONL, imported by the real
// release, then the cleanup config written (2026.9's import rewrites openclaw.json).
func buildSQLiteCase(t *testing.T, ref, dir string, sc SQLiteScenario) {
	if err := PrepareSQLiteSource(dir, sc); err != nil {
		t.Fatal(err)
	}
	out, err := refRun(t, ref, dir, "doctor", "--session-sqlite", "import", "--json")
	if _, serr := os.Stat(filepath.Join(dir, "agents", "main", "agent", "openclaw-agent.sqlite")); serr != nil {
		t.Fatalf("import made no database (%v): %s", err, out)
	}
	total, err := PhysicalTotal(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.MarshalIndent(sc.SQLiteConfig(total), "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// oracleSQLite runs the real `openclaw sessions cleanup --dry-run --json --store <db>` on a
// copy of state and returns its JSON summary with the store path replaced by <db>.
func oracleSQLite(t *testing.T, ref, state string, sc SQLiteScenario) []byte {
	db := filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")
	args := []string{"sessions", "cleanup", "--dry-run", "--json", "--store", db}
	if sc.ActiveKey != "" {
		args = append(args, "--active-key", sc.ActiveKey)
	}
	out, err := refRun(t, ref, state, args...)
	if i := bytes.IndexByte(out, '{'); i > 0 {
		out = out[i:]
	}
	if err != nil && !json.Valid(out) {
		t.Fatalf("reference cleanup: %v: %s", err, out)
	}
	return normalizeSummary(t, out, db)
}

// keepCase keeps what the planner reads: the agent's database and sessions dir, and the
// config (not the shared state database or the import archive).
func keepCase(rel string) bool {
	return rel == "openclaw.json" || strings.HasPrefix(rel, "agents/main/agent/openclaw-agent.sqlite") || strings.HasPrefix(rel, "agents/main/sessions/")
}

// TestSQLiteCleanup compares the SQLite-era cleanup plan with the real 2026.9.6 on freshly
// generated and imported databases. With -record it also rewrites testdata/sqlite: the
// cases (as imported) and the real release's answers, for the offline test.
func TestSQLiteCleanup(t *testing.T) {
	ref := reference(t)
	cases := SQLiteScenarios(32)
	work := t.TempDir()
	var mu sync.Mutex
	goldens := map[string][]byte{}
	t.Run("cases", func(t *testing.T) {
		for _, sc := range cases {
			t.Run(sc.Name, func(t *testing.T) {
				t.Parallel()
				src := filepath.Join(work, "src", sc.Name)
				buildSQLiteCase(t, ref, src, sc)
				var tarball bytes.Buffer
				if err := fixtures.WriteTarZst(&tarball, src, keepCase); err != nil {
					t.Fatal(err)
				}
				// The oracle and ours read the same extracted copy (mtimes included).
				run := filepath.Join(work, "run", sc.Name)
				if err := fixtures.ExtractTarZst(bytes.NewReader(tarball.Bytes()), run, ""); err != nil {
					t.Fatal(err)
				}
				if err := fixtures.ExtractTarZst(bytes.NewReader(tarball.Bytes()), filepath.Join(work, "cases", sc.Name), ""); err != nil {
					t.Fatal(err)
				}
				want := oracleSQLite(t, ref, run, sc)
				mu.Lock()
				goldens[sc.Name] = want
				mu.Unlock()
				got := oursJSON(t, filepath.Join(work, "cases", sc.Name), sc)
				t.Logf("openclaw %s: %s", SQLiteRelease, bytes.Join(bytes.Fields(want), nil))
				if diff := cmp.Diff(string(want), string(got)); diff != "" {
					t.Errorf("summary differs (-openclaw %s +clawdoctor):\n%s", SQLiteRelease, diff)
				}
			})
		}
	})
	if !*record {
		return
	}
	if len(goldens) != len(cases) {
		t.Fatalf("%d of %d cases ran; not recording", len(goldens), len(cases))
	}
	if err := os.MkdirAll(filepath.Join("testdata", "sqlite"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join("testdata", "sqlite", "cases.tar.zst"))
	if err != nil {
		t.Fatal(err)
	}
	if err := fixtures.WriteTarZst(f, filepath.Join(work, "cases"), nil); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for name, g := range goldens {
		if err := os.WriteFile(filepath.Join("testdata", "sqlite", name+".golden.json"), g, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

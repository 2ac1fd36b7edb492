package conformance

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/fixtures"
)

// normalizeSummary re-indents a cleanup summary and replaces its store path by <db>.
func normalizeSummary(t *testing.T, raw []byte, db string) []byte {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("summary: %v: %s", err, raw)
	}
	if sp, ok := v["storePath"].(string); ok && sp != "" {
		v["storePath"] = "<db>"
	}
	out, _ := json.MarshalIndent(v, "", "  ")
	return out
}

// oursJSON is clawdoctor's plan of the case in state, as normalized summary JSON.
func oursJSON(t *testing.T, state string, sc SQLiteScenario) []byte {
	t.Helper()
	p, err := OursSQLite(state, Now, sc.ActiveKey)
	if err != nil {
		return []byte(`{"ok": false, "error": ` + jsonString(err.Error()) + `}`)
	}
	raw, _ := json.Marshal(p.Summary)
	return normalizeSummary(t, raw, p.Summary.StorePath)
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestSQLiteCleanupGoldens: on the databases the real 2026.9.6 import made from the
// generated cases (testdata/sqlite/cases.tar.zst), clawdoctor's dry-run summary equals what
// the real 2026.9.6 `openclaw sessions cleanup --dry-run --json --store <db>` printed on the
// same files at the same time (recorded by `go test -tags conformance -record`).
func TestSQLiteCleanupGoldens(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "sqlite", "cases.tar.zst"))
	if err != nil {
		t.Skipf("no recorded cases: %v", err)
	}
	defer f.Close()
	dir := t.TempDir()
	if err := fixtures.ExtractTarZst(f, dir, ""); err != nil {
		t.Fatal(err)
	}
	cases := SQLiteScenarios(32)
	seen := 0
	for _, sc := range cases {
		want, err := os.ReadFile(filepath.Join("testdata", "sqlite", sc.Name+".golden.json"))
		if err != nil {
			continue
		}
		seen++
		t.Run(sc.Name, func(t *testing.T) {
			got := oursJSON(t, filepath.Join(dir, sc.Name), sc)
			if diff := cmp.Diff(string(bytes.TrimSpace(want)), string(got)); diff != "" {
				t.Errorf("summary differs (-openclaw %s +clawdoctor):\n%s", SQLiteRelease, diff)
			}
		})
	}
	if seen < 30 {
		t.Errorf("%d recorded cases, want at least 30", seen)
	}
}

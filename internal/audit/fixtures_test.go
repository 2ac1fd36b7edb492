package audit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/audit"
)

// TestGeneratedFaults: a generated state dir with every fault kind injected. Every injected
// fault is found (same rule, file and line), and nothing else is reported at error level.
func TestGeneratedFaults(t *testing.T) {
	dir := t.TempDir()
	faults, err := fixtures.ParseFaults("all")
	if err != nil {
		t.Fatal(err)
	}
	man, err := fixtures.Generate(context.Background(), dir, fixtures.Options{
		Agents: 2, Sessions: 6, Seed: 7, Faults: faults, LongLine: 2 << 20, GatewayLog: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	res := checkManifest(t, dir, man)
	if len(man.Faults) < len(fixtures.Kinds) {
		t.Errorf("manifest lists %d faults, want at least %d", len(man.Faults), len(fixtures.Kinds))
	}
	t.Logf("%d faults injected; %d findings (%d errors, %d warnings, %d info) over %d files",
		len(man.Faults), len(res.Findings), res.Summary.Errors, res.Summary.Warnings, res.Summary.Infos, res.Summary.Files)
}

// TestDemoFaults: the shipped demo state dir (read in place: audit never writes) has its
// manifest's faults found and no other error.
func TestDemoFaults(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "demo")
	data, err := os.ReadFile(filepath.Join(dir, fixtures.ManifestName))
	if err != nil {
		t.Skipf("no demo manifest: %v", err)
	}
	var man fixtures.Manifest
	if err := json.Unmarshal(data, &man); err != nil {
		t.Fatal(err)
	}
	if len(man.Faults) == 0 {
		t.Skip("the demo has no faults")
	}
	checkManifest(t, dir, man)
}

// checkManifest audits dir and checks that every fault of man is found (same rule, file and
// line or entry) and that every error-level finding is one of them.
func checkManifest(t *testing.T, dir string, man fixtures.Manifest) *audit.Result {
	t.Helper()
	var logs []string
	if man.GatewayLog != "" {
		logs = append(logs, filepath.Join(dir, filepath.FromSlash(man.GatewayLog)))
	}
	res, err := audit.Run(context.Background(), []string{dir}, audit.Options{MaxLine: 1 << 20, Logs: logs}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rel := func(p string) string {
		r, err := filepath.Rel(dir, p)
		if err != nil {
			return p
		}
		return filepath.ToSlash(r)
	}
	type key struct {
		rule, file string
	}
	found := map[key][]audit.Finding{}
	for _, f := range res.Findings {
		k := key{f.Rule, rel(f.Path)}
		found[k] = append(found[k], f)
	}
	injected := map[key]bool{}
	for _, fl := range man.Faults {
		k := key{fl.Rule, fl.File}
		injected[k] = true
		ok := false
		for _, f := range found[k] {
			if fl.Line == 0 || f.Line == fl.Line || (fl.EntryID != "" && f.EntryID == fl.EntryID) {
				ok = true
			}
		}
		if !ok {
			var near []string
			for _, f := range res.Findings {
				if rel(f.Path) == fl.File {
					near = append(near, fmt.Sprintf("%s:%d", f.Rule, f.Line))
				}
			}
			t.Errorf("injected %s (%s) at %s:%d entry %q not found; findings in that file: %s",
				fl.Kind, fl.Rule, fl.File, fl.Line, fl.EntryID, strings.Join(near, " "))
		}
	}
	for _, f := range res.Findings {
		if f.Severity == audit.Error && !injected[key{f.Rule, rel(f.Path)}] {
			t.Errorf("error not injected: %s %s:%d %s", f.Rule, rel(f.Path), f.Line, f.Message)
		}
	}
	return res
}

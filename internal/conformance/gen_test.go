package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/config"
	"github.com/clawdoctor/clawdoctor/internal/retention"
)

func listing(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		info, _ := e.Info()
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		out[e.Name()] = info.ModTime().UTC().String() + " " + string(data)
	}
	return out
}

// TestGenerateDeterministic: the same scenario gives the same bytes, names and mtimes.
func TestGenerateDeterministic(t *testing.T) {
	sc := Scenarios(10)[9]
	a, b := t.TempDir(), t.TempDir()
	ta, err := Generate(a, sc)
	if err != nil {
		t.Fatal(err)
	}
	tb, _ := Generate(b, sc)
	if ta != tb {
		t.Errorf("totals %d != %d", ta, tb)
	}
	la, lb := listing(t, a), listing(t, b)
	for k, v := range la {
		if k != "sessions.json" && lb[k] != v {
			t.Errorf("%s differs", k)
		}
	}
	if len(la) != len(lb) {
		t.Errorf("%d files vs %d", len(la), len(lb))
	}
}

// TestScenariosCoverEveryRule runs our planner over the 60 generated scenarios (as the
// conformance suite does) and checks that together they exercise every rule and budget tier,
// so the suite compares something in each.
func TestScenariosCoverEveryRule(t *testing.T) {
	seen := map[string]int{}
	for _, sc := range Scenarios(60) {
		dir := filepath.Join(t.TempDir(), "agents", "main", "sessions")
		total, err := Generate(dir, sc)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(sc.Config(total))
		c, err := config.Parse(bytesReader(raw), "openclaw.json")
		if err != nil {
			t.Fatal(err)
		}
		st, err := retention.Resolve(c.Session.Maintenance, c.Cron, retention.Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		l, err := retention.Gather(context.Background(), filepath.Join(dir, "sessions.json"), "main")
		if err != nil {
			t.Fatal(err)
		}
		p := retention.Make(&l.Input, retention.Options{Settings: st, Now: Now, DryRun: true, FixMissing: sc.FixMissing, ActiveKey: sc.ActiveKey})
		s := p.Summary
		if s.BeforeCount != sc.Entries {
			t.Errorf("%s: %d entries, generated %d", sc.Name, s.BeforeCount, sc.Entries)
		}
		count := func(name string, ok bool) {
			if ok {
				seen[name]++
			}
		}
		count("pruned", s.Pruned > 0)
		count("capped", s.Capped > 0)
		count("missing", s.Missing > 0)
		count("swept", s.UnreferencedArtifacts.RemovedFiles > 0)
		count("budget-under", s.DiskBudget != nil && !s.DiskBudget.OverBudget)
		count("budget-tier2", s.DiskBudget != nil && s.DiskBudget.RemovedFiles > 0 && s.DiskBudget.RemovedEntries == 0)
		count("budget-tier3", s.DiskBudget != nil && s.DiskBudget.RemovedEntries > 0)
		count("hundreds", s.BeforeCount >= 150)
	}
	// (warn mode only changes an apply: OpenClaw's preview enforces the budget in any mode)
	want := []string{"budget-tier2", "budget-tier3", "budget-under", "capped", "hundreds", "missing", "pruned", "swept"}
	var got []string
	for _, k := range want {
		if seen[k] > 0 {
			got = append(got, k)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rules never exercised (-want +got)\n%s\ncounts %v", diff, seen)
	}
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

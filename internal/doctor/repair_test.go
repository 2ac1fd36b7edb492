package doctor

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/repair"
)

// demoCopy copies fixtures/demo (the README's quick start) into a temp state dir.
func demoCopy(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "demo")
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "..", "fixtures", "demo"))); err != nil {
		t.Fatal(err)
	}
	return root
}

// fullPlan is what repair's own dry run over each agent's sessions dir would change (the
// reference for doctor's plan, which reads again only the files the audit flagged).
func fullPlan(t *testing.T, root string) []string {
	t.Helper()
	res, err := repair.Run(context.Background(), repair.Target{StateDir: root, AllAgents: true}, repair.Options{DryRun: true, Relink: true, SynthesizeHeader: true, Now: now}, nil) // doctor plans header synthesis too
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range res.Files {
		if f.Status == repair.StatusRepaired && f.Kind == "transcript" {
			out = append(out, f.Path)
		}
	}
	slices.Sort(out)
	return out
}

func planned(res *Result) []string {
	var out []string
	for _, p := range res.Problems {
		if p.Check == "repair.needed" {
			out = append(out, p.Path)
		}
	}
	slices.Sort(out)
	return out
}

// TestRepairCandidatesMatchFullPlan: planning only the transcripts the audit flagged finds
// every file repair's full dry run would change, on the demo and on a generated state dir
// with every fault kind.
func TestRepairCandidatesMatchFullPlan(t *testing.T) {
	gen := filepath.Join(t.TempDir(), "gen")
	all, err := fixtures.ParseFaults("all")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fixtures.Generate(context.Background(), gen, fixtures.Options{Agents: 2, Sessions: 60, Seed: 11, Faults: all, Now: now}); err != nil {
		t.Fatal(err)
	}
	for name, root := range map[string]string{"demo": demoCopy(t), "generated": gen} {
		t.Run(name, func(t *testing.T) {
			want := fullPlan(t, root)
			if len(want) == 0 {
				t.Fatal("the full plan changes nothing: the test checks nothing")
			}
			if diff := cmp.Diff(want, planned(run(t, root, false, false))); diff != "" {
				t.Errorf("doctor's repair plan (-repair dry run +doctor):\n%s", diff)
			}
		})
	}
}

// TestDemoFixYesTwice: after doctor --fix --yes twice on the shipped demo nothing a command
// fixes is left: no repair plan, no fixable problem, and none of the audit rules repair fixes.
// The repaired transcripts' originals are in the backup dir.
func TestDemoFixYesTwice(t *testing.T) {
	root := demoCopy(t)
	before := snapshot(t, root)
	first := run(t, root, true, true)
	fixed := 0
	for _, p := range first.Problems {
		if p.Check != "repair.needed" {
			continue
		}
		if p.Status != StatusFixed {
			t.Errorf("%s: %s %s", p.Path, p.Status, p.Error)
			continue
		}
		fixed++
		if got, err := os.ReadFile(p.Backup); err != nil || string(got) != string(before[p.Path]) {
			t.Errorf("%s: backup %s does not hold the original (%v)", p.Path, p.Backup, err)
		}
	}
	if fixed == 0 {
		t.Fatal("no transcript was repaired: the demo has damaged ones")
	}
	run(t, root, true, true)
	last := run(t, root, false, false)
	for _, p := range last.Problems {
		rule := strings.TrimPrefix(p.Check, "audit.")
		switch {
		case p.Status == StatusWouldFix:
			t.Errorf("still fixable after two runs: %s %s", p.Check, p.Path)
		case p.Check == "repair.needed":
			t.Errorf("repair still planned: %s (%s)", p.Path, p.Message)
		case repairRules[rule] && rule != "tool.unpaired-call":
			t.Errorf("a finding repair fixes is left: %s: %s", p.Check, p.Message)
		}
	}
}

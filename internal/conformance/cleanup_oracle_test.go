package conformance

// The cleanup differential's shared half: how clawdoctor's plan is made for a run, and the
// real OpenClaw's summaries recorded for the generated scenarios, so that `go test ./...`
// checks the budget figures offline (issue 30). The live half is conformance_test.go
// (build tag conformance); scripts/conformance-record.sh cleanup records again.

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/config"
	"github.com/clawdoctor/clawdoctor/internal/openclaw"
	"github.com/clawdoctor/clawdoctor/internal/retention"
)

type run struct {
	name       string
	store      string
	configPath string
	fixMissing bool
	activeKey  string
	release    string // the OpenClaw release compared with; "" is the reference's default, 2026.6.11
}

// outcome is what a run compares: OpenClaw's summary and, beside it from 2026.7.35, the
// model-run probes its cleanup pruned first (modelRunPruned, a field of its JSON).
type outcome struct {
	retention.Summary
	ModelRunPruned int `json:"modelRunPruned"`
}

// refRelease is the release the live reference runs (OPENCLAW_REF_VERSION, else its default).
func refRelease() string {
	if v := os.Getenv("OPENCLAW_REF_VERSION"); v != "" {
		return v
	}
	return "2026.6.11"
}

func (r run) args() []string {
	a := []string{"sessions", "cleanup", "--dry-run", "--json", "--store", r.store}
	if r.fixMissing {
		a = append(a, "--fix-missing")
	}
	if r.activeKey != "" {
		a = append(a, "--active-key", r.activeKey)
	}
	return a
}

func runOurs(r run) (outcome, *retention.Plan, error) {
	cfg, err := config.Load(r.configPath)
	if err != nil {
		return outcome{}, nil, err
	}
	st, err := retention.Resolve(cfg.Session.Maintenance, cfg.Cron, retention.Overrides{})
	if err != nil {
		return outcome{}, nil, err
	}
	l, err := retention.Gather(context.Background(), r.store, "main")
	if err != nil {
		return outcome{}, nil, err
	}
	rel := openclaw.MustParse("2026.6.11")
	if r.release != "" {
		rel = openclaw.MustParse(r.release)
	}
	// as the cleanup command chooses (commands/cleanup.go)
	p := retention.Make(&l.Input, retention.Options{Settings: st, Now: Now, DryRun: true,
		FixMissing: r.fixMissing, ActiveKey: r.activeKey, ModelRuns: rel.Has(openclaw.CleanupPrunesModelRuns)})
	if p.OpenClaw != nil {
		// clawdoctor keeps what OpenClaw would lose (kept rows' transcripts, orphans the sweep
		// archives): the comparison is with OpenClaw's own plan, which Make keeps beside ours,
		// but for the disk budget (issue 30): ours must end where OpenClaw's does, unless a
		// kept row's transcript is protected.
		s := *p.OpenClaw
		if len(p.Relocated) == 0 {
			s.DiskBudget = p.Summary.DiskBudget
		}
		return outcome{s, p.ModelRunPruned}, p, nil
	}
	return outcome{p.Summary, p.ModelRunPruned}, p, nil
}

func writeConfig(t *testing.T, dir string, cfg map[string]any) string {
	t.Helper()
	p := filepath.Join(dir, "openclaw.json")
	data, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// cleanupRootLen is the length of the state dir path of every recorded run: the generated
// stores hold absolute sessionFile paths, so their sizes, and with them the budget's
// figures, depend on it.
const cleanupRootLen = 120

// cleanupReleases are the releases whose summaries of the generated scenarios are recorded,
// each in cleanupGolden(release).
var cleanupReleases = []string{"2026.6.11", "2026.7.35"}

// cleanupGolden holds the real OpenClaw release's summary of each generated scenario.
func cleanupGolden(release string) string {
	return filepath.Join("testdata", "cleanup", "oracle-"+release+".jsonl")
}

type cleanupRecord struct {
	Name           string            `json:"name"`
	Summary        retention.Summary `json:"summary"`
	ModelRunPruned int               `json:"modelRunPruned,omitempty"`
}

// fixedRoot returns a new state dir whose path is cleanupRootLen bytes long, removed after
// the test; it skips where the temp dir's own path is too long, or where paths are written
// with backslashes (Windows: JSON doubles them, so the sizes differ).
func fixedRoot(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the recorded stores hold POSIX paths")
	}
	base, err := os.MkdirTemp("", "cdco")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real // macOS: /var is /private/var
	}
	pad := cleanupRootLen - len(base) - 1
	if pad < 1 {
		t.Skipf("temp dir %s is too long for the recorded runs' %d-byte state dir", base, cleanupRootLen)
	}
	root := filepath.Join(base, strings.Repeat("p", pad))
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// generatedRun writes sc's state dir under root and returns its run.
func generatedRun(t *testing.T, root string, sc Scenario) run {
	t.Helper()
	sessions := filepath.Join(root, "agents", "main", "sessions")
	total, err := Generate(sessions, sc)
	if err != nil {
		t.Fatal(err)
	}
	return run{name: sc.Name, store: filepath.Join(sessions, "sessions.json"),
		configPath: writeConfig(t, root, sc.Config(total)), fixMissing: sc.FixMissing, activeKey: sc.ActiveKey}
}

// TestCleanupRecordedOracle compares clawdoctor's plan of every generated scenario (60: each
// budget tier, warn mode, caps, fix-missing, model-run probes) with the real OpenClaw's recorded
// summary, per recorded release, the disk budget's figures included.
func TestCleanupRecordedOracle(t *testing.T) {
	for _, rel := range cleanupReleases {
		t.Run(rel, func(t *testing.T) { testCleanupRecorded(t, rel) })
	}
}

func testCleanupRecorded(t *testing.T, rel string) {
	golden := cleanupGolden(rel)
	f, err := os.Open(golden)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]outcome{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r cleanupRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", golden, err)
		}
		want[r.Name] = outcome{r.Summary, r.ModelRunPruned}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	scenarios := Scenarios(60)
	if len(want) != len(scenarios) {
		t.Fatalf("%s holds %d runs, the scenarios are %d: record again (scripts/conformance-record.sh cleanup)", golden, len(want), len(scenarios))
	}
	budgets, modelRuns := 0, 0
	for _, s := range scenarios {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			w, ok := want[s.Name]
			if !ok {
				t.Fatalf("no recorded run for %s", s.Name)
			}
			r := generatedRun(t, fixedRoot(t), s)
			r.release = rel
			got, _, err := runOurs(r)
			if err != nil {
				t.Fatal(err)
			}
			got.StorePath, w.StorePath = "", ""
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("summary differs from OpenClaw %s's recorded one (-openclaw +clawdoctor)\n%s", rel, diff)
			}
		})
		if want[s.Name].DiskBudget != nil {
			budgets++
		}
		if want[s.Name].ModelRunPruned > 0 {
			modelRuns++
		}
	}
	if budgets < 20 {
		t.Errorf("only %d recorded runs have a disk budget", budgets)
	}
	if openclaw.MustParse(rel).Has(openclaw.CleanupPrunesModelRuns) && modelRuns < 5 {
		t.Errorf("only %d recorded runs of %s prune model-run probes", modelRuns, rel)
	}
}

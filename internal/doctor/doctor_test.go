package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/fixtures"
)

var now = time.Date(2026, 5, 5, 12, 0, 0, 0, time.UTC)

func write(t *testing.T, path, data string, mtime time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if !mtime.IsZero() {
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
}

func header(id string) string {
	return fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-04-01T10:00:00.000Z","cwd":"/w"}`+"\n", id) +
		`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-04-01T10:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}` + "\n"
}

const sidA = "11111111-1111-4111-8111-111111111111"
const sidB = "22222222-2222-4222-8222-222222222222"
const sidC = "33333333-3333-4333-8333-333333333333"
const sidD = "44444444-4444-4444-8444-444444444444"
const sidO = "99999999-9999-4999-8999-999999999999"

// brokenState builds a state dir with every problem doctor fixes, and one SQLite-era agent.
func brokenState(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	old := now.Add(-30 * 24 * time.Hour)
	write(t, filepath.Join(root, "openclaw.json"), `// my config
{
  agents: { list: [{ id: "main" }] },
  session: {
    idleMinutes: 45, // reset after lunch
    maintenance: {
      rotateBytes: "10mb",
      pruneAfter: "30d",
    },
    parentForkMaxTokens: 20000,
  },
}
`, time.Time{})
	sd := filepath.Join(root, "agents", "main", "sessions")
	for _, id := range []string{sidA, sidB, sidC, sidD} {
		write(t, filepath.Join(sd, id+".jsonl"), header(id), time.Time{})
	}
	write(t, filepath.Join(sd, sidO+".jsonl"), header(sidO), old)
	big := strings.Repeat("x", 300<<10)
	entries := map[string]any{
		"agent:main:main": map[string]any{"sessionId": sidA, "updatedAt": 1746000000000, "sessionStartedAt": 1745000000000,
			"sessionFile":        sidA + ".jsonl", // relative
			"cliSessionBindings": map[string]any{"claude-cli": map[string]any{"sessionId": "cli-1"}},
			"cliSessionIds":      map[string]any{"claude-cli": "cli-OLD"}},
		"agent:main:telegram:direct:1": map[string]any{"sessionId": sidB, "updatedAt": 1746000000001,
			"sessionFile":   `C:\Users\u\.openclaw\agents\main\sessions\` + sidB + ".jsonl", // Windows, no sessionStartedAt
			"cliSessionIds": map[string]any{"claude-cli": "cli-shared"}},
		"agent:main:telegram:direct:2": map[string]any{"sessionId": sidC, "updatedAt": 1746000000002, "sessionStartedAt": 1,
			"sessionFile":   filepath.Join(sd, sidD+".jsonl"), // stale generated name: another id's file
			"cliSessionIds": map[string]any{"claude-cli": "cli-shared"}},
		"agent:main:cron:x": map[string]any{"sessionId": sidD, "updatedAt": 1746000000003, "sessionStartedAt": 1,
			"skillsSnapshot": map[string]any{"prompt": big}},
	}
	// Keep a stable key order in the file.
	keys := []string{"agent:main:main", "agent:main:telegram:direct:1", "agent:main:telegram:direct:2", "agent:main:cron:x"}
	var b strings.Builder
	b.WriteString("{\n")
	for i, k := range keys {
		v, _ := json.MarshalIndent(entries[k], "  ", "  ")
		fmt.Fprintf(&b, "  %q: %s", k, v)
		if i < len(keys)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}")
	write(t, filepath.Join(sd, "sessions.json"), b.String(), time.Time{})
	// A stale lock (dead pid, old) and leftovers.
	write(t, filepath.Join(sd, sidA+".jsonl.lock"), `{"pid": 999999999, "createdAt": "2026-05-01T00:00:00.000Z"}`, old)
	write(t, filepath.Join(sd, "sessions.json.bak.1700000000000"), "{}", old)
	write(t, filepath.Join(sd, "sessions.json.123.0b8e7c2d-1111-4111-8111-111111111111.tmp"), "{", old)
	write(t, filepath.Join(sd, sidA+".jsonl.bak-123-1700000000000"), header(sidA), old)

	// A SQLite-era agent (a real 2026.9.6 database) with two JSONL transcripts it never imported.
	sq := filepath.Join(root, "agents", "ops", "sessions")
	write(t, filepath.Join(sq, sidA+".jsonl"), header(sidA), time.Time{})
	write(t, filepath.Join(sq, sidB+".jsonl"), header(sidB), time.Time{})
	write(t, filepath.Join(sq, "sessions.json"), `{}`, time.Time{})
	write(t, filepath.Join(sq, sidB+".jsonl.lock"), `{"pid": 999999999, "createdAt": "2026-05-01T00:00:00.000Z"}`, old)
	if err := fixtures.WriteAgentDB(fixtures.SQLite96, filepath.Join(root, "agents", "ops", "agent")); err != nil {
		t.Fatal(err)
	}
	return root
}

// snapshot reads every file under root.
func snapshot(t *testing.T, root string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		files[p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func run(t *testing.T, root string, fix, yes bool) *Result {
	t.Helper()
	res, err := Run(context.Background(), Options{StateDir: root, Fix: fix, Yes: yes, Now: now,
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func checksByStatus(res *Result) map[string][]string {
	out := map[string][]string{}
	for _, p := range res.Problems {
		out[string(p.Status)] = append(out[string(p.Status)], p.Agent+"/"+p.Check)
	}
	for _, v := range out {
		sort.Strings(v)
	}
	return out
}

func TestDryRunFindsEveryProblemAndWritesNothing(t *testing.T) {
	root := brokenState(t)
	before := snapshot(t, root)
	res := run(t, root, false, false)
	got := checksByStatus(res)
	want := []string{
		"/config.legacy-key", "/config.legacy-key", "/config.legacy-key",
		"main/cli.binding-mismatch", "main/cli.shared-session-id", "main/lock.stale",
		"main/store.leftover", "main/store.leftover", "main/store.leftover",
		"main/store.legacy-session-file", "main/store.legacy-session-file",
		"main/store.missing-started-at", "main/store.orphan-transcript", "main/store.oversized-entry",
		"main/store.stale-session-file",
	}
	sort.Strings(want)
	if strings.Join(got["would-fix"], "\n") != strings.Join(want, "\n") {
		t.Errorf("would-fix:\n%s\nwant:\n%s", strings.Join(got["would-fix"], "\n"), strings.Join(want, "\n"))
	}
	// The SQLite-era agent's old lock blocks nothing: reported, never refused (exit 3 on a
	// healthy state would be wrong).
	if r := got["refused"]; len(r) != 0 {
		t.Errorf("refused = %v, want nothing", r)
	}
	found := strings.Join(got["found"], " ")
	for _, c := range []string{"ops/store.sqlite-era", "ops/store.sqlite-missing", "ops/lock.stale"} {
		if !strings.Contains(found, c) {
			t.Errorf("found %q lacks %s", found, c)
		}
	}
	after := snapshot(t, root)
	if len(after) != len(before) {
		t.Fatalf("dry run changed the file set: %d → %d files", len(before), len(after))
	}
	for p, b := range before {
		if string(after[p]) != string(b) {
			t.Errorf("dry run changed %s", p)
		}
	}
}

func TestFixTwiceAndBackupsRestore(t *testing.T) {
	root := brokenState(t)
	before := snapshot(t, root)

	// --fix alone applies only the non-destructive fixes.
	res := run(t, root, true, false)
	for _, p := range res.Problems {
		if p.Gate == GateFix && p.refused == "" && p.Status != StatusFixed {
			t.Errorf("--fix left %s %s: %s %s", p.Check, p.Path, p.Status, p.Error)
		}
		if p.Gate == GateYes && p.Status == StatusFixed {
			t.Errorf("--fix without --yes applied %s on %s", p.Check, p.Path)
		}
	}
	checkBackups(t, res, before)

	res = run(t, root, true, true)
	for _, p := range res.Problems {
		if p.apply != nil && p.refused == "" && p.Status != StatusFixed {
			t.Errorf("--fix --yes left %s %s: %s %s", p.Check, p.Path, p.Status, p.Error)
		}
	}
	checkBackups(t, res, before)

	// The second --fix --yes run has nothing left to fix.
	res = run(t, root, true, true)
	for _, p := range res.Problems {
		if p.Status == StatusFixed || p.Status == StatusWouldFix {
			t.Errorf("second run still fixes %s on %s (%s)", p.Check, p.Path, p.Message)
		}
	}

	// The config kept its comments and the user's layout; the legacy keys are gone.
	cfg, _ := os.ReadFile(filepath.Join(root, "openclaw.json"))
	for _, want := range []string{"// my config", "// reset after lunch", `reset: { mode: "idle", idleMinutes: 45 }`, "maintenance: {"} {
		if !strings.Contains(string(cfg), want) {
			t.Errorf("config lost %q:\n%s", want, cfg)
		}
	}
	for _, gone := range []string{"rotateBytes", "parentForkMaxTokens", "idleMinutes: 45,"} {
		if strings.Contains(string(cfg), gone) {
			t.Errorf("config still has %q:\n%s", gone, cfg)
		}
	}
	// The SQLite-era agent was not touched at all.
	for p, b := range before {
		if strings.Contains(p, "/agents/ops/") {
			if got, err := os.ReadFile(p); err != nil || string(got) != string(b) {
				t.Errorf("SQLite-era file %s changed (%v)", p, err)
			}
		}
	}
}

// checkBackups proves each fixed problem kept the original bytes of what it changed.
func checkBackups(t *testing.T, res *Result, before map[string][]byte) {
	t.Helper()
	for _, p := range res.Problems {
		if p.Status != StatusFixed {
			continue
		}
		if p.Backup == "" {
			if p.Check == "store.orphan-transcript" && p.edits != nil {
				continue // re-attached: the transcript itself was not changed
			}
			t.Errorf("%s on %s fixed without a backup", p.Check, p.Path)
			continue
		}
		orig, ok := before[p.Path]
		if !ok {
			continue // the file was created or changed by an earlier run of this test
		}
		got, err := os.ReadFile(p.Backup)
		if err != nil {
			t.Errorf("%s: backup %s: %v", p.Check, p.Backup, err)
			continue
		}
		if p.Path == p.Backup {
			continue
		}
		if string(got) != string(orig) && !isLaterBackup(p, res) {
			t.Errorf("%s: backup %s does not hold the original bytes of %s", p.Check, p.Backup, p.Path)
		}
	}
}

// isLaterBackup: a file changed by an earlier run of the test is backed up as it was then.
func isLaterBackup(p Problem, res *Result) bool { return res.Yes && (p.edits != nil || p.editsConfig) }

func TestLiveLockRefusesWrites(t *testing.T) {
	root := brokenState(t)
	sd := filepath.Join(root, "agents", "main", "sessions")
	live := fmt.Sprintf(`{"pid": %d, "createdAt": %q}`, os.Getpid(), now.Add(-time.Minute).Format(time.RFC3339Nano))
	write(t, filepath.Join(sd, sidB+".jsonl.lock"), live, time.Time{})
	storeBefore, _ := os.ReadFile(filepath.Join(sd, "sessions.json"))
	res := run(t, root, true, true)
	var sawLive bool
	for _, p := range res.Problems {
		if p.Check == "lock.live" {
			sawLive = true
		}
		if p.Agent == "main" && p.Status == StatusFixed && p.Check != "lock.stale" {
			t.Errorf("%s applied while a live lock is held", p.Check)
		}
	}
	if !sawLive {
		t.Error("the live lock was not reported")
	}
	if got, _ := os.ReadFile(filepath.Join(sd, "sessions.json")); string(got) != string(storeBefore) {
		t.Error("sessions.json written while a live lock is held")
	}
	if _, err := os.Stat(filepath.Join(sd, sidB+".jsonl.lock")); err != nil {
		t.Errorf("the live lock was touched: %v", err)
	}
	if _, _, bad, _ := res.Counts(); bad == 0 {
		t.Error("refused fixes are not counted (exit 3)")
	}
}

func TestCorpusFixTwice(t *testing.T) {
	corpus := filepath.Join("..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("corpus not found at %s", corpus)
	}
	var stateDirs []string
	filepath.Walk(corpus, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.IsDir() && info.Name() == "agents" {
			stateDirs = append(stateDirs, filepath.Dir(p))
			return filepath.SkipDir
		}
		return nil
	})
	if len(stateDirs) < 20 {
		t.Fatalf("found only %d state dirs in the corpus", len(stateDirs))
	}
	for _, sd := range stateDirs {
		rel, _ := filepath.Rel(corpus, sd)
		t.Run(rel, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "state")
			if err := os.CopyFS(root, os.DirFS(sd)); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, root)
			res := run(t, root, true, true)
			checkBackups(t, res, before)
			res = run(t, root, true, true)
			for _, p := range res.Problems {
				if p.Status == StatusFixed || p.Status == StatusWouldFix {
					t.Errorf("second run still fixes %s on %s: %s", p.Check, p.Path, p.Message)
				}
			}
		})
	}
}

// TestBackupsRestoreOriginal undoes every fix of one --fix --yes run from its backup and
// checks the state dir is byte-for-byte what it was.
func TestBackupsRestoreOriginal(t *testing.T) {
	root := brokenState(t)
	before := snapshot(t, root)
	res := run(t, root, true, true)
	restored := map[string]bool{}
	for _, p := range res.Problems {
		if p.Status != StatusFixed || restored[p.Path] {
			continue
		}
		restored[p.Path] = true
		b, err := os.ReadFile(p.Backup)
		if err != nil {
			t.Fatalf("%s: backup %q: %v", p.Check, p.Backup, err)
		}
		if err := os.WriteFile(p.Path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if p.Backup != p.Path && !strings.Contains(p.Backup, "clawdoctor-backups") {
			os.Remove(p.Backup) // an archive made by renaming (orphan → .deleted.<ts>)
		}
	}
	if err := os.RemoveAll(filepath.Join(root, "clawdoctor-backups")); err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, root)
	for p, b := range before {
		if string(after[p]) != string(b) {
			t.Errorf("%s not restored from its backup", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s left over after restoring", p)
		}
	}
}

// TestConfirmGatesHistoryFixes: without --yes, history-changing fixes run only when the
// terminal prompt says yes, and it is asked once per kind of fix.
func TestConfirmGatesHistoryFixes(t *testing.T) {
	for _, answer := range []bool{false, true} {
		root := brokenState(t)
		asked := map[string]int{}
		res, err := Run(context.Background(), Options{StateDir: root, Fix: true, Now: now,
			Getenv:  func(string) string { return "" },
			Confirm: func(q string) bool { asked[q]++; return answer }})
		if err != nil {
			t.Fatal(err)
		}
		for q, n := range asked {
			if n != 1 {
				t.Errorf("asked %d times: %s", n, q)
			}
		}
		if len(asked) == 0 {
			t.Fatal("never asked")
		}
		for _, p := range res.Problems {
			if p.Gate == GateYes && p.refused == "" && (p.Status == StatusFixed) != answer {
				t.Errorf("answer %v: %s is %s", answer, p.Check, p.Status)
			}
		}
	}
}

func TestCountsIgnoreInformationalFindings(t *testing.T) {
	r := &Result{Problems: []Problem{
		{Check: "audit.fallback.chain", Severity: "info", Status: StatusFound},
		{Check: "cleanup.would-remove", Severity: "info", Status: StatusFound},
	}}
	if open, _, _, _ := r.Counts(); open != 0 {
		t.Errorf("info-only result has %d open problems, want 0", open)
	}
	r.Problems = append(r.Problems,
		Problem{Check: "store.leftover", Severity: "info", Status: StatusWouldFix},
		Problem{Check: "audit.tool.unpaired-call", Severity: "error", Status: StatusFound})
	if open, fixable, _, _ := r.Counts(); open != 2 || fixable != 1 {
		t.Errorf("open %d fixable %d, want 2 and 1", open, fixable)
	}
}

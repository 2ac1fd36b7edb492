package migration_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/migration"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

func realState(t *testing.T, name string) (state, sessions string) {
	t.Helper()
	state = filepath.Join(t.TempDir(), "state")
	if err := fixtures.WriteRealState(name, state); err != nil {
		t.Fatal(err)
	}
	return state, filepath.Join(state, "agents", "main", "sessions")
}

func verdictOf(t *testing.T, rep *migration.Report, suffix string) migration.Verdict {
	t.Helper()
	for _, v := range rep.Verdicts {
		if strings.HasSuffix(v.File, suffix) {
			return v
		}
	}
	t.Fatalf("no verdict for %s in %+v", suffix, rep.Verdicts)
	return migration.Verdict{}
}

// TestCheckRealImport: after the real 2026.9.6 import every original is identical to the
// database and matches its manifest's sha256; edits made afterwards are told apart.
func TestCheckRealImport(t *testing.T) {
	state, sessions := realState(t, fixtures.SQLite96)
	ctx := context.Background()
	rep, err := migration.Check(ctx, state, sessions)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Runs != 1 || len(rep.Verdicts) != 8 || rep.Count(migration.Identical) != 8 || len(rep.Changed) != 0 {
		t.Fatalf("runs %d, verdicts %+v, changed %+v", rep.Runs, rep.Verdicts, rep.Changed)
	}
	archive := filepath.Join(state, "agents", "main", store.ImportArchiveDir)
	find := func(part string) string {
		m, _ := filepath.Glob(filepath.Join(archive, "*"+part+"*.jsonl.imported-*"))
		if len(m) != 1 {
			t.Fatalf("%s: %v", part, m)
		}
		return m[0]
	}
	main, slack, cron := find("agent_main_main."), find("slack_channel_c07690"), find("cron_daily")
	data, _ := os.ReadFile(main)
	os.WriteFile(main, append(data, `{"type":"custom","id":"x"}`+"\n"...), 0o600) // a line the database lacks
	data, _ = os.ReadFile(slack)
	cut := strings.LastIndex(strings.TrimSuffix(string(data), "\n"), "\n") + 1
	os.WriteFile(slack, data[:cut], 0o600) // the last line dropped: the database holds all of it
	data, _ = os.ReadFile(cron)
	lines := strings.SplitAfter(string(data), "\n")
	lines[5] = strings.Replace(lines[5], `"`, `'`, 1)
	os.WriteFile(cron, []byte(strings.Join(lines, "")), 0o600)
	// Half-migrated leftovers in sessions/: an identical copy and one the database never saw.
	os.WriteFile(filepath.Join(sessions, "25240bfc-c18e-42f2-a79a-130255bd05a9.jsonl"), data[:0:0], 0o600)
	orig, _ := os.ReadFile(find("subagent_16e48a15"))
	os.WriteFile(filepath.Join(sessions, "a89c473a-d69a-476b-a388-cbeb1610e58e.jsonl"), orig, 0o600)
	os.WriteFile(filepath.Join(sessions, "11111111-1111-4111-8111-111111111111.jsonl"), []byte(`{"type":"session","version":3,"id":"11111111-1111-4111-8111-111111111111","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/"}`+"\n"), 0o600)
	rep, err = migration.Check(ctx, state, sessions)
	if err != nil {
		t.Fatal(err)
	}
	if v := verdictOf(t, rep, filepath.Base(main)); v.State != migration.Divergent || v.FirstDiff != v.DBEvents || v.FileLines != v.DBEvents+1 {
		t.Errorf("appended: %+v", v)
	}
	if v := verdictOf(t, rep, filepath.Base(slack)); v.State != migration.Prefix || v.FileLines != v.DBEvents-1 {
		t.Errorf("cut: %+v", v)
	}
	if v := verdictOf(t, rep, filepath.Base(cron)); v.State != migration.Divergent || v.FirstDiff != 5 || !strings.Contains(v.Detail, "first differing seq 5 (line 6") {
		t.Errorf("edited: %+v", v)
	}
	if v := verdictOf(t, rep, "sessions/a89c473a-d69a-476b-a388-cbeb1610e58e.jsonl"); v.State != migration.Identical || v.Where != "sessions" {
		t.Errorf("leftover copy: %+v", v)
	}
	if v := verdictOf(t, rep, "sessions/11111111-1111-4111-8111-111111111111.jsonl"); v.State != migration.NotInDB {
		t.Errorf("never imported: %+v", v)
	}
	// An empty leftover is a prefix of anything.
	if v := verdictOf(t, rep, "sessions/25240bfc-c18e-42f2-a79a-130255bd05a9.jsonl"); v.State != migration.Prefix || v.FileLines != 0 {
		t.Errorf("empty leftover: %+v", v)
	}
	if len(rep.Changed) != 3 {
		t.Errorf("changed since import: %+v, want the 3 edited originals", rep.Changed)
	}
}

// TestCheckRealHalfImport: the real 2026.9.6 import of damaged transcripts kept prefixes or
// rewrote events; the originals it left in sessions/ are named for what they are.
func TestCheckRealHalfImport(t *testing.T) {
	state, sessions := realState(t, fixtures.Half96)
	rep, err := migration.Check(context.Background(), state, sessions)
	if err != nil {
		t.Fatal(err)
	}
	var longer, rewritten int
	for _, v := range rep.Verdicts {
		switch {
		case v.State == migration.Divergent && strings.Contains(v.Detail, "goes on after"):
			longer++ // the import kept the readable prefix
		case v.State == migration.Divergent:
			rewritten++
		}
	}
	if rep.Count(migration.Identical) != 1 || longer != 2 || rewritten != 3 || len(rep.Verdicts) != 6 {
		t.Errorf("verdicts %+v", rep.Verdicts)
	}
	if rep.Runs != 1 {
		t.Errorf("runs %d (the failure report is not a manifest)", rep.Runs)
	}
	// FileLines is the file's own count, also where it differs from the database in the
	// middle (it counted the common prefix twice: "file 84 lines" for a file of 45)
	for _, v := range rep.Verdicts {
		data, err := os.ReadFile(v.File)
		if err != nil {
			t.Fatal(err)
		}
		want := int64(strings.Count(string(data), "\n"))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			want++
		}
		if v.FileLines != want {
			t.Errorf("%s (%s at seq %d): %d lines, the file has %d", filepath.Base(v.File), v.State, v.FirstDiff, v.FileLines, want)
		}
	}
}

package doctor

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
)

func realState(t *testing.T, name string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "state")
	if err := fixtures.WriteRealState(name, root); err != nil {
		t.Fatal(err)
	}
	return root
}

func checkCounts(res *Result) map[string]int {
	out := map[string]int{}
	for _, p := range res.Problems {
		out[p.Check]++
	}
	return out
}

// TestMigrationCheck: doctor on real SQLite-era state dirs compares the originals with the
// database, names what to keep and what is safe to retire, and --fix --yes writes nothing.
func TestMigrationCheck(t *testing.T) {
	t.Run("half-migrated", func(t *testing.T) {
		root := realState(t, fixtures.Half96)
		before, _ := fixtures.Tree(root)
		res, err := Run(context.Background(), Options{StateDir: root, Fix: true, Yes: true, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		c := checkCounts(res)
		// five originals differ from the database: four it holds whole (rewritten: BOM, CRLF,
		// a second header; a torn last line), one cut short at a garbled line (issue 29)
		if c["migration.divergent"] != 4 || c["migration.import-lost"] != 1 || c["migration.imported"] != 1 || c["store.half-migrated"] != 1 || c["store.sqlite-era"] != 1 {
			t.Errorf("checks %v", c)
		}
		for _, p := range res.Problems {
			if p.Check == "migration.divergent" && (!strings.Contains(p.Message, "first differing seq ") || p.Severity != "info" || !strings.Contains(p.Message, "nothing was lost")) {
				t.Errorf("no first differing seq, or not said to be whole: %s %s", p.Severity, p.Message)
			}
			if p.Check == "migration.import-lost" && (p.Severity != "error" || !strings.Contains(p.Message, "the import stopped at line 27 of 29") || !strings.Contains(p.Evidence["run"].(string), "clawdoctor recover")) {
				t.Errorf("import-lost: %s %s", p.Severity, p.Message)
			}
			if p.Status == StatusFixed || p.Status == StatusRefused {
				t.Errorf("%s %s on a SQLite-era agent", p.Check, p.Status)
			}
		}
		if a := res.Agents[0]; a.Era != "sqlite (half-migrated)" || a.DBSessions != 6 || a.DBEvents != 181 || a.Entries != 6 {
			t.Errorf("summary %+v: want both eras side by side", a)
		}
		if after, _ := fixtures.Tree(root); !maps.Equal(before, after) {
			t.Error("doctor --fix --yes wrote into a SQLite-era state dir")
		}
	})
	t.Run("edited original", func(t *testing.T) {
		root := realState(t, fixtures.SQLite96)
		m, _ := filepath.Glob(filepath.Join(root, "agents/main/session-sqlite-import-archive/agent_main_main.*.jsonl.imported-*"))
		data, _ := os.ReadFile(m[0])
		os.WriteFile(m[0], append(data, "{}\n"...), 0o600)
		res, err := Run(context.Background(), Options{StateDir: root, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		if c := checkCounts(res); c["migration.changed"] != 1 || c["migration.divergent"] != 1 {
			t.Errorf("checks %v", c)
		}
	})
	t.Run("damaged database", func(t *testing.T) {
		root := realState(t, fixtures.SQLite96)
		db := filepath.Join(root, "agents/main/agent/openclaw-agent.sqlite")
		data, _ := os.ReadFile(db)
		for i := 4096; i < len(data); i += 4096 {
			copy(data[i:], "\xff\xff\xff\xff\xff\xff\xff\xff")
		}
		os.WriteFile(db, data, 0o600)
		before, _ := fixtures.Tree(root)
		res, err := Run(context.Background(), Options{StateDir: root, Fix: true, Yes: true, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, bad, _ := res.Counts(); bad == 0 {
			t.Errorf("a database that cannot be read is not a failed check: %v", checkCounts(res))
		}
		found := false
		for _, p := range res.Problems {
			found = found || (p.Status == StatusFailed && strings.Contains(p.Error, db))
		}
		if !found {
			t.Error("no failed problem names the database")
		}
		if after, _ := fixtures.Tree(root); !maps.Equal(before, after) {
			t.Error("doctor wrote something")
		}
	})
}

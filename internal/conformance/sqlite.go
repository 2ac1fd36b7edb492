package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/config"
	"github.com/clawdoctor/clawdoctor/internal/retention"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

// SQLiteRelease is the OpenClaw release whose SQLite-era cleanup is the oracle.
const SQLiteRelease = "2026.9.6"

// SQLiteScenario is one SQLite-era cleanup case: a generated file-era state dir (Scenario)
// with SQLite-era rows added (dashboards, pins, locks, running rows), imported by the real
// 2026.9.6 `openclaw doctor --session-sqlite import`, then cleaned with SQLite-era settings.
type SQLiteScenario struct {
	Scenario
	// Maintenance2 is session.maintenance for the cleanup (2026.9 keys included); the
	// budget is set from the imported dir's size by Config.
	Maintenance2 map[string]any
	budgetFrac   float64
}

// SQLiteScenarios returns n deterministic cases cycling through the SQLite-era settings:
// defaults, prune ages, caps (with and without protected rows), dashboards, preserveRecent,
// budgets under and over the physical total, warn mode and an active key.
func SQLiteScenarios(n int) []SQLiteScenario {
	base := Scenarios(n)
	var out []SQLiteScenario
	for i := 0; i < n; i++ {
		r := rand.New(rand.NewPCG(uint64(i)+1, 2026))
		sc := SQLiteScenario{Scenario: base[i], Maintenance2: map[string]any{}}
		sc.Entries = 6 + r.IntN(40) // the import takes ~1 s per 10 rows under faketime
		sc.FixMissing, sc.ActiveKey, sc.budgetFrac = false, "", 0
		m := sc.Maintenance2
		name := ""
		switch i % 8 {
		case 0:
			name = "defaults"
		case 1:
			m["pruneAfter"] = []string{"7d", "12h", "45d", "20"}[r.IntN(4)]
			name = "prune-after"
		case 2:
			m["maxEntries"] = 1 + r.IntN(max(2, sc.Entries/2))
			m["pruneAfter"] = "400d"
			name = "cap"
		case 3:
			m["archiveDashboardAfter"] = []any{"2d", "30d", false, 0}[r.IntN(4)]
			m["pruneAfter"] = "60d"
			name = "dashboard"
		case 4:
			m["preserveRecent"] = []string{"10d", "45d"}[r.IntN(2)]
			m["maxEntries"] = 2 + r.IntN(8)
			name = "preserve-recent"
		case 5:
			sc.budgetFrac = []float64{0.5, 0.9, 1.5}[r.IntN(3)]
			name = "budget"
		case 6:
			m["mode"] = "warn"
			m["maxEntries"] = 3
			sc.budgetFrac = 0.5
			name = "warn"
		case 7:
			sc.ActiveKey = "agent:main:main"
			m["pruneAfter"] = "10d"
			m["maxEntries"] = 4 + r.IntN(10)
			name = "active-key"
		}
		sc.Name = fmt.Sprintf("sqlite%02d-%s", i, name)
		out = append(out, sc)
	}
	return out
}

// PrepareSQLiteSource writes the file-era state dir the import turns into the case's
// database: Generate's sessions dir without legacy unscoped keys (2026.9 refuses to maintain
// them), plus dashboard sessions and pinned, model-locked, running and recently active rows.
func PrepareSQLiteSource(state string, sc SQLiteScenario) error {
	dir := filepath.Join(state, "agents", "main", "sessions")
	if _, err := Generate(dir, sc.Scenario); err != nil {
		return err
	}
	st, err := store.Load(filepath.Join(dir, store.StoreFile))
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(sc.Seed, 7))
	out := store.New()
	for i, e := range st.Entries() {
		key := e.Key
		if !strings.HasPrefix(key, "agent:") {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal(e.Raw, &v); err != nil {
			return err
		}
		if strings.Contains(key, ":explicit:note") && r.IntN(2) == 0 {
			key = "agent:main:dashboard:" + uuid(r)
		}
		switch r.IntN(14) {
		case 0:
			v["pinnedAt"] = Now.Add(-40 * day).UnixMilli()
		case 1:
			v["modelSelectionLocked"] = true
		case 2:
			v["status"] = "running"
		case 3:
			v["lastInteractionAt"] = Now.Add(-time.Duration(1+r.IntN(20)) * day).UnixMilli()
		case 4:
			v["sessionStartedAt"] = Now.Add(-time.Duration(1+r.IntN(60)) * day).UnixMilli()
		}
		if i == 0 && sc.ActiveKey != "" {
			key = sc.ActiveKey
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if err := out.Set(key, store.Entry{Key: key, Raw: raw}); err != nil {
			return err
		}
	}
	data, err := out.Marshal()
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, store.StoreFile), data, 0o644)
}

// SQLiteConfig is the openclaw.json of the case's cleanup, given the imported state's
// physical total (database, WAL and sessions dir files).
func (sc SQLiteScenario) SQLiteConfig(total int64) map[string]any {
	m := map[string]any{}
	for k, v := range sc.Maintenance2 {
		m[k] = v
	}
	if sc.budgetFrac > 0 {
		m["maxDiskBytes"] = fmt.Sprint(int64(float64(total) * sc.budgetFrac))
	}
	return map[string]any{"session": map[string]any{"maintenance": m}}
}

// OursSQLite plans the cleanup of the SQLite-era state dir as clawdoctor does: the config at
// state/openclaw.json, the agent main, the clock now.
func OursSQLite(state string, now time.Time, activeKey string) (*retention.SQLitePlan, error) {
	cfg, err := config.Load(filepath.Join(state, "openclaw.json"))
	if err != nil {
		return nil, err
	}
	in, err := retention.GatherSQLite(context.Background(), filepath.Join(state, "agents", "main", "sessions"), "main")
	if err != nil {
		return nil, err
	}
	return retention.PlanSQLite(in, retention.SQLiteOptions{Settings: retention.ResolveSQLite(cfg.Session.Maintenance), Now: now, ActiveKey: activeKey}), nil
}

// PhysicalTotal is what 2026.9's disk budget measures for the state dir's agent main.
func PhysicalTotal(state string) (int64, error) {
	in, err := retention.GatherSQLite(context.Background(), filepath.Join(state, "agents", "main", "sessions"), "main")
	if err != nil {
		return 0, err
	}
	s := retention.PlanSQLite(in, retention.SQLiteOptions{Settings: retention.SQLiteSettings{MaxDiskBytes: ptr(1), HighWaterBytes: ptr(1)}, Now: Now})
	return s.Summary.DiskBudget.TotalBytesBefore, nil
}

func ptr(v int64) *int64 { return &v }

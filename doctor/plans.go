package doctor

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/clawdoctor/clawdoctor/audit"
	"github.com/clawdoctor/clawdoctor/config"
	"github.com/clawdoctor/clawdoctor/repair"
	"github.com/clawdoctor/clawdoctor/retention"
)

// coveredRules are audit rules that doctor reports itself with a fix, so the audit summary
// does not count them twice.
var coveredRules = map[string]bool{
	"lock.stale": true, "lock.live": true, "store.orphan-transcript": true,
	"store.missing-transcript": true, "store.oversized-entry": true, "store.sqlite-era": true,
	"store.corrupt": true, "cli.binding-mismatch": true, "cli.shared-session-id": true,
}

// checkAudit runs every audit rule over each agent's sessions dir and reports one problem
// per rule with its count; the details are one `clawdoctor audit` away.
func checkAudit(ctx context.Context, st *state) ([]Problem, error) {
	var out []Problem
	for _, a := range st.agents {
		if len(a.files) == 0 {
			continue
		}
		res, err := audit.Run(ctx, []string{a.dir}, audit.Options{Now: st.opts.Now, Release: st.opts.Release}, nil)
		if err != nil {
			return nil, fmt.Errorf("audit %s: %w", a.dir, err)
		}
		type agg struct {
			sev   audit.Severity
			n     int
			files map[string]bool
			first string
		}
		byRule := map[string]*agg{}
		for _, f := range res.Findings {
			if coveredRules[f.Rule] {
				continue
			}
			g := byRule[f.Rule]
			if g == nil {
				g = &agg{sev: f.Severity, files: map[string]bool{}, first: f.Message}
				byRule[f.Rule] = g
			}
			g.n++
			g.files[f.Path] = true
		}
		for _, r := range slices.Sorted(maps.Keys(byRule)) {
			g := byRule[r]
			msg := fmt.Sprintf("%d finding(s) in %d file(s); first: %s", g.n, len(g.files), g.first)
			out = append(out, Problem{Check: "audit." + r, Severity: g.sev.String(), Agent: a.id, Path: a.dir, Gate: GateNone,
				Message:  msg,
				Evidence: map[string]any{"rule": r, "count": g.n, "run": "clawdoctor audit " + quote(a.dir)}})
		}
	}
	return out, nil
}

// checkRepairPlan runs repair as a dry run and reports the files it would change.
func checkRepairPlan(ctx context.Context, st *state) ([]Problem, error) {
	var out []Problem
	for _, a := range st.agents {
		if a.sqlite != "" || len(a.files) == 0 {
			continue
		}
		res, err := repair.Run(ctx, repair.Target{Paths: []string{a.dir}}, repair.Options{DryRun: true, Now: st.opts.Now, Release: st.opts.Release}, nil)
		if err != nil {
			return nil, fmt.Errorf("repair plan %s: %w", a.dir, err)
		}
		var names []string
		for _, f := range res.Files {
			if f.Status == repair.StatusRepaired {
				names = append(names, shortName(f.Path))
			}
		}
		if len(names) == 0 {
			continue
		}
		out = append(out, Problem{Check: "repair.needed", Severity: "warning", Agent: a.id, Path: a.dir, Gate: GateNone,
			Message:  fmt.Sprintf("repair would change %d file(s): %s", len(names), strings.Join(firstN(names, 3), ", ")),
			Evidence: map[string]any{"files": names, "run": "clawdoctor repair --dry-run " + quote(a.dir)}})
	}
	return out, nil
}

func shortName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// checkCleanupPlan runs OpenClaw's maintenance pipeline as a dry run with the configured
// settings and reports what a real cleanup would remove.
func checkCleanupPlan(ctx context.Context, st *state) ([]Problem, error) {
	var out []Problem
	cfg := &config.Config{}
	if st.configPath != "" {
		if c, err := config.Load(st.configPath); err == nil {
			cfg = c
		}
	}
	settings, err := retention.Resolve(cfg.Session.Maintenance, cfg.Cron, retention.Overrides{})
	if err != nil {
		return nil, err
	}
	for _, a := range st.agents {
		if a.sqlite != "" || a.store == nil {
			continue
		}
		l, err := retention.Gather(ctx, a.storePath, a.id)
		if err != nil {
			continue // a corrupt store is reported by checkStore
		}
		plan := retention.Make(&l.Input, retention.Options{Settings: settings, Now: st.opts.Now, DryRun: true})
		if !plan.Changes() {
			continue
		}
		s := plan.Summary
		var parts []string
		if n := len(plan.RemovedKeys()); n > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d entries (pruned %d, capped %d, missing %d)", n, s.BeforeCount, s.Pruned, s.Capped, s.Missing))
		}
		if n := len(plan.Files); n > 0 {
			parts = append(parts, fmt.Sprintf("%d file(s)", n))
		}
		out = append(out, Problem{Check: "cleanup.would-remove", Severity: "info", Agent: a.id, Path: a.storePath, Gate: GateNone,
			Message:  "OpenClaw's maintenance (mode " + s.Mode + ") would remove " + strings.Join(parts, " and "),
			Evidence: map[string]any{"run": "clawdoctor cleanup --dry-run --explain --state-dir " + quote(st.opts.StateDir) + " --agent " + a.id}})
	}
	return out, nil
}

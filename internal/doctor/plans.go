package doctor

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/audit"
	"github.com/clawdoctor/clawdoctor/internal/config"
	"github.com/clawdoctor/clawdoctor/internal/openclaw"
	"github.com/clawdoctor/clawdoctor/internal/retention"
	"github.com/clawdoctor/clawdoctor/internal/store"
	"github.com/clawdoctor/clawdoctor/repair"
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
		if len(a.files) == 0 && a.sqlite == "" {
			continue
		}
		// A SQLite-era agent's sessions dir is audited with its database (audit reads it).
		// The rules doctor reports itself are skipped, with the work only they need.
		opts := audit.Options{Now: st.opts.Now, Release: st.opts.Release, Skip: coveredRules}
		if a.store != nil {
			// the store doctor parsed in inspect: the audit takes its rows, not a second parse
			opts.Stores = map[string]*store.Store{a.dir: a.store}
		}
		res, err := audit.Run(ctx, []string{a.dir}, opts, nil)
		if err != nil {
			return nil, fmt.Errorf("audit %s: %w", a.dir, err)
		}
		// the repair plan reads again only the transcripts the audit found something repair
		// changes in (TestRepairCandidatesMatchFullPlan keeps that set complete)
		a.repairCandidates, a.importCandidates = map[string]bool{}, map[string]bool{}
		for _, f := range res.Findings {
			// only files `clawdoctor repair DIR` repairs: not repair backups and other leftovers
			if repairRules[f.Rule] && repair.IsTranscriptName(filepath.Base(f.Path)) {
				a.repairCandidates[f.Path] = true
			}
			// the live transcripts the import reads, with lines it may stop at or rewrite
			if importRules[f.Rule] && store.Classify(filepath.Base(f.Path)).Kind.IsPrimary() {
				a.importCandidates[f.Path] = true
			}
		}
		type agg struct {
			sev   audit.Severity
			n     int
			files map[string]bool
			first string
		}
		if len(res.Unreadable) > 0 {
			why := strings.Join(firstN(res.Unreadable, 3), "; ")
			out = append(out, Problem{Check: "audit.unreadable", Severity: "error", Agent: a.id, Path: a.dir, Gate: GateNone,
				Message: fmt.Sprintf("%d input(s) could not be read, so their audit is incomplete: %s", len(res.Unreadable), why), failed: why,
				Evidence: map[string]any{"inputs": res.Unreadable}})
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
				Evidence: map[string]any{"rule": r, "count": g.n, "run": "clawdoctor audit " + quote(auditTarget(a))}})
		}
	}
	return out, nil
}

// auditTarget is what `clawdoctor audit` should be pointed at for the agent: its database in
// the SQLite era (only the JSONL files are left when half-migrated: the dir covers both).
func auditTarget(a *agentState) string {
	if a.sqlite != "" && !a.era.HalfMigrated {
		return a.sqlite
	}
	return a.dir
}

// repairRules are the audit rules whose findings repair changes the file for.
var repairRules = map[string]bool{
	"jsonl.malformed-line": true, "jsonl.bom": true, "jsonl.nul-bytes": true, "jsonl.concatenated": true,
	"jsonl.crlf": true, "jsonl.missing-final-newline": true, "message.null-role": true,
	"message.empty-error-assistant": true, "message.blank-user": true, "tool.unpaired-call": true,
	"tree.dangling-parent": true, // --relink: behind --yes like every history change
	"header.missing":       true, // --synthesize-header: behind --yes
	"image.corrupt":        true,
}

// checkRepairPlan plans the repair of every transcript the audit found damage in, as a dry run
// through repair's own planner, and turns each file repair would change into a fix: the same
// crash-safe repair as `clawdoctor repair` (backup first, atomic replace), with the backup in
// the run's backup dir. A file whose repair keeps every entry (a BOM stripped, NULs removed,
// glued entries split, a final newline added, a torn fragment salvaged) is fixed by --fix; one
// whose repair drops lines, rewrites messages, inserts results or relinks a dangling parent to
// the previous entry (repair --relink) changes history and needs --yes.
func checkRepairPlan(ctx context.Context, st *state) ([]Problem, error) {
	var out []Problem
	for _, a := range st.agents {
		if a.sqliteEra() || len(a.repairCandidates) == 0 {
			continue
		}
		for _, path := range slices.Sorted(maps.Keys(a.repairCandidates)) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			dry := repair.Options{DryRun: true, Relink: true, Now: st.opts.Now, Release: st.opts.Release,
				Force: st.opts.Force, LockWait: st.opts.LockWait, LockStale: store.LockStaleAfter(st.opts.Getenv, st.staleMs)}
			r := repair.RepairFile(ctx, a.dir, path, dry, nil)
			synth := false
			if r.Status == repair.StatusSkipped && strings.HasPrefix(r.Reason, "missing session header") {
				// repair --synthesize-header gives it a header (id from the file name): a history
				// change, behind --yes like the others (issue 30: only what no command fixes stays)
				dry.SynthesizeHeader = true
				if r2 := repair.RepairFile(ctx, a.dir, path, dry, nil); r2.Status == repair.StatusRepaired {
					r, synth = r2, true
				}
			}
			if r.Status == repair.StatusSkipped {
				// the audit found damage here: a plan that could not be made is said, never
				// dropped (issue 31: a brief live lock left the file unrepaired and unnamed)
				out = append(out, skippedRepair(a, path, r))
				continue
			}
			if r.Status != repair.StatusRepaired {
				continue
			}
			c := r.Counts
			gate := GateFix
			if c.DroppedLines+c.RewrittenAssistantMessages+c.RewrittenUserMessages+c.InsertedToolResults+c.RelinkedParents+c.SynthesizedHeaders > 0 {
				gate = GateYes
			}
			var what []string
			for _, ch := range r.Changes {
				what = append(what, fmt.Sprintf("line %d: %s (%s)", ch.Line, ch.Action, ch.Reason))
				if len(what) == 3 {
					break
				}
			}
			if more := len(r.Changes) + r.MoreChanges - len(what); more > 0 {
				what = append(what, fmt.Sprintf("%d more", more))
			}
			p := Problem{Check: "repair.needed", Severity: "warning", Agent: a.id, Path: path, Gate: gate,
				Message:  "repair would change this transcript: " + strings.Join(what, "; "),
				Fix:      repairFixText(c),
				Evidence: map[string]any{"counts": c, "run": "clawdoctor repair --dry-run " + quote(path)},
			}
			dir, file := a.dir, path
			p.apply = func(b *Backups) (string, error) {
				dst, err := b.target(file) // a free name under the run's backup dir
				if err != nil {
					return "", err
				}
				done := repair.RepairFile(ctx, dir, file, repair.Options{Now: st.opts.Now, Relink: true, SynthesizeHeader: synth, BackupDir: filepath.Dir(dst), Force: st.opts.Force, Release: st.opts.Release,
					LockStale: store.LockStaleAfter(st.opts.Getenv, st.staleMs), LockWait: st.opts.LockWait, Temps: st.temps}, nil)
				switch {
				case done.Status == repair.StatusRepaired:
					return done.BackupPath, nil
				case done.Status == repair.StatusClean:
					return "", nil
				case done.Busy:
					return "", &busyError{file + ": " + done.Reason}
				}
				return done.BackupPath, fmt.Errorf("%s: %s", done.Status, done.Reason)
			}
			guard(st, a, &p)
			out = append(out, p)
		}
	}
	return out, nil
}

// busyError is a fix not applied because a live writer held the file's lock past the wait.
type busyError struct{ why string }

func (e *busyError) Error() string { return e.why }

// skippedRepair is the problem of a damaged transcript whose repair could not be planned: a
// live writer's lock (refused, exit 3, the holder named) or a file repair leaves alone (its
// reason, e.g. no valid header without --synthesize-header).
func skippedRepair(a *agentState, path string, r repair.FileResult) Problem {
	p := Problem{Check: "repair.needed", Severity: "warning", Agent: a.id, Path: path, Gate: GateNone,
		Message:  "the audit found damage, but repair skips this transcript: " + r.Reason,
		Evidence: map[string]any{"run": "clawdoctor repair --dry-run " + quote(path)}}
	if r.Busy {
		p.Message = "the audit found damage, but a live writer holds the transcript's lock: " + r.Reason
		p.Gate = GateFix
		p.refused = "not planned: " + r.Reason
		p.apply = func(*Backups) (string, error) { return "", &busyError{r.Reason} }
	}
	return p
}

// repairFixText says what applying a repair plan does, from its counters.
func repairFixText(c repair.Counts) string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(c.DroppedLines, "unreadable line(s) dropped")
	add(c.SalvagedLines, "line(s) salvaged")
	add(c.RewrittenAssistantMessages+c.RewrittenUserMessages, "message(s) given OpenClaw's placeholder text")
	add(c.InsertedToolResults, "missing tool result(s) inserted")
	add(c.RelinkedParents, "dangling parent link(s) pointed at the previous entry")
	if len(parts) == 0 {
		parts = append(parts, "byte-level fixes only (BOM, NULs, glued lines, final newline)")
	}
	return "repair the transcript as clawdoctor repair does (" + strings.Join(parts, ", ") + "; the original is kept in the backup dir)"
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
		if a.sqliteEra() || a.store == nil {
			continue
		}
		l, err := retention.GatherStore(ctx, a.storePath, a.id, a.store, retention.GatherOptions{FixMissing: true, Listing: a.listing})
		if err != nil {
			continue // a corrupt store is reported by checkStore
		}
		plan := retention.Make(&l.Input, retention.Options{Settings: settings, Now: st.opts.Now, DryRun: true,
			ModelRuns: st.opts.Release.Has(openclaw.CleanupPrunesModelRuns)})
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

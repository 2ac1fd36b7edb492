package doctor

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/migration"
	"github.com/clawdoctor/clawdoctor/internal/recovery"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

// checkSQLite reports each agent's era and, for a SQLite-era agent, the migration check: every
// original in the import archive and every .jsonl left in sessions/ compared with the
// database event by event, and the originals whose sha256 changed since the run manifest
// recorded them. Nothing of a SQLite-era agent is ever written.
func checkSQLite(ctx context.Context, st *state) ([]Problem, error) {
	var out []Problem
	for _, a := range st.agents {
		if a.era.Unknown != "" {
			out = append(out, Problem{Check: "store.era-unknown", Severity: "warning", Agent: a.id, Path: a.era.DB, Gate: GateNone,
				Message: "the agent database could not be read, so clawdoctor cannot tell whether this agent's sessions are in SQLite and writes nothing for it: " + a.era.Unknown,
				failed:  a.era.Unknown})
			continue
		}
		if a.sqlite == "" {
			continue
		}
		if a.era.HalfMigrated {
			out = append(out, Problem{Check: "store.half-migrated", Severity: "warning", Agent: a.id, Path: a.dir, Gate: GateNone,
				Message: fmt.Sprintf("half-migrated: %s still in sessions/ beside the SQLite database; OpenClaw 2026.8+ reads only the database. Run %s",
					strings.Join(firstN(a.era.Legacy, 5), ", "), store.HalfMigratedHint),
				Evidence: map[string]any{"files": a.era.Legacy}})
		}
		p := Problem{Check: "store.sqlite-era", Severity: "info", Agent: a.id, Path: a.sqlite, Gate: GateNone,
			Message: fmt.Sprintf("this agent's sessions live in SQLite (schema %d%s): clawdoctor reads the database and never writes it, its JSONL files or sessions.json", a.era.UserVersion, appVersion(a.era))}
		rep, err := migration.Check(ctx, st.opts.StateDir, a.dir)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			p.Severity, p.failed = "error", err.Error()
			p.Message += "; the migration check could not read it: " + err.Error()
			out = append(out, p)
			continue
		}
		a.dbSessions, a.dbEvents = rep.Sessions, rep.Events
		p.Message += fmt.Sprintf("; database: %d sessions, %d events", rep.Sessions, rep.Events)
		p.Evidence = map[string]any{"identical": rep.Count(migration.Identical), "runs": rep.Runs, "dbSessions": rep.Sessions, "dbEvents": rep.Events}
		if rep.Runs > 0 || len(rep.Verdicts) > 0 {
			p.Message += fmt.Sprintf("; migration: %d run manifest(s), %d original(s) compared: %d identical, %d already imported (prefix), %d divergent, %d not in the database",
				rep.Runs, len(rep.Verdicts), rep.Count(migration.Identical), rep.Count(migration.Prefix), rep.Count(migration.Divergent), rep.Count(migration.NotInDB))
		}
		out = append(out, p)
		// safe to touch now? (issue 29, scope 5): WAL, locks, file system
		h := store.Health(a.sqlite)
		out = append(out, Problem{Check: "sqlite.safe-to-touch", Severity: h.Severity, Agent: a.id, Path: a.sqlite, Gate: GateNone, Message: h.Verdict,
			Evidence: map[string]any{"canRun": h.CanRun, "walBytes": h.WAL.Bytes, "walFrames": h.WAL.Frames, "fileSystem": h.FS.Type, "journal": h.FS.Policy}})
		assessed, err := recovery.Assess(ctx, rep)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			out = append(out, Problem{Check: "migration.unreadable", Severity: "error", Agent: a.id, Path: rep.DB, Gate: GateNone, failed: err.Error(),
				Message: "the originals could not be compared entry by entry with the database: " + err.Error()})
		}
		out = append(out, verdictProblems(st, a, rep, assessed)...)
	}
	return out, nil
}

func appVersion(e store.Era) string {
	if e.AppVersion != "" {
		return ", OpenClaw " + e.AppVersion
	}
	return ""
}

// verdictProblems turns the migration check into problems: what to keep, what is safe to
// retire, and what changed since import. None has an automatic fix.
func verdictProblems(st *state, a *agentState, rep *migration.Report, assessed []recovery.Session) []Problem {
	var out []Problem
	byFile := map[string]recovery.Session{}
	for _, s := range assessed {
		byFile[s.Original] = s
	}
	recoverCmd := "clawdoctor recover --state-dir " + quote(st.opts.StateDir) + " --agent " + a.id + " --out DIR   # then follow its steps"
	rel := func(p string) string {
		if r, err := filepath.Rel(st.opts.StateDir, p); err == nil {
			return r
		}
		return p
	}
	var retire []string
	for _, v := range rep.Verdicts {
		ev := map[string]any{"state": v.State, "session": v.Session, "fileLines": v.FileLines, "dbEvents": v.DBEvents, "where": v.Where}
		as, ok := byFile[v.File]
		switch {
		case ok && as.State == recovery.Lost:
			ev["firstLostLine"], ev["importKept"], ev["run"] = as.FirstLost, as.ImportKept, recoverCmd
			out = append(out, Problem{Check: "migration.import-lost", Severity: "error", Agent: a.id, Path: v.File, Gate: GateNone, Evidence: ev,
				Message: fmt.Sprintf("%s holds history the database of session %s lacks: %s. Keep it; clawdoctor recover writes the session back whole for OpenClaw's doctor --session-sqlite recover to import",
					rel(v.File), v.Session, as.Reason)})
			continue
		case ok && as.State == recovery.Complete && v.State == migration.Divergent:
			ev["firstDiffSeq"] = v.FirstDiff
			out = append(out, Problem{Check: "migration.divergent", Severity: "info", Agent: a.id, Path: v.File, Gate: GateNone, Evidence: ev,
				Message: fmt.Sprintf("%s differs from session %s in the database byte for byte (%s), but %s: nothing was lost. Keep it as the original of the import",
					rel(v.File), v.Session, v.Detail, as.Reason)})
			continue
		case ok && as.State == recovery.Incomplete:
			ev["recover"] = as.Reason
		}
		switch v.State {
		case migration.Divergent:
			ev["firstDiffSeq"] = v.FirstDiff
			out = append(out, Problem{Check: "migration.divergent", Severity: "warning", Agent: a.id, Path: v.File, Gate: GateNone, Evidence: ev,
				Message: fmt.Sprintf("%s differs from session %s in the database: %s (file %d lines, database %d events). Keep it: it holds history the database does not have as it is; compare with `clawdoctor export --session %s` or run openclaw doctor --session-sqlite validate",
					rel(v.File), v.Session, v.Detail, v.FileLines, v.DBEvents, v.Session)})
		case migration.NotInDB:
			out = append(out, Problem{Check: "store.sqlite-missing", Severity: "warning", Agent: a.id, Path: v.File, Gate: GateNone, Evidence: ev,
				Message: fmt.Sprintf("%s is not in the database (no events for session %s): keep it until openclaw doctor --session-sqlite import has taken it", rel(v.File), v.Session)})
		case migration.Prefix, migration.Identical:
			if v.Where == "sessions" {
				retire = append(retire, filepath.Base(v.File))
			}
		}
	}
	if len(retire) > 0 {
		out = append(out, Problem{Check: "migration.imported", Severity: "info", Agent: a.id, Path: a.dir, Gate: GateNone,
			Evidence: map[string]any{"files": retire},
			Message: fmt.Sprintf("%d JSONL transcript(s) left in sessions/ are already in the database (identical or a prefix of it): %s; safe to retire (openclaw doctor --session-sqlite import archives them)",
				len(retire), strings.Join(firstN(retire, 5), ", "))})
	}
	for _, u := range rep.Unreadable {
		out = append(out, Problem{Check: "migration.unreadable", Severity: "error", Agent: a.id, Path: a.dir, Gate: GateNone, failed: u,
			Message: "an original could not be compared with the database: " + u})
	}
	for _, c := range rep.Changed {
		msg := fmt.Sprintf("%s changed since the migration run recorded it (sha256 %s…, now %s…, %s)", rel(c.File), c.Recorded[:12], short(c.Now), rel(c.Run))
		if c.Missing {
			msg = fmt.Sprintf("%s, recorded by %s, is missing from the import archive", rel(c.File), rel(c.Run))
		}
		out = append(out, Problem{Check: "migration.changed", Severity: "warning", Agent: a.id, Path: c.File, Gate: GateNone,
			Message:  msg + ": it is no longer the original OpenClaw imported; keep it, and restore the original from a backup if you need the proof",
			Evidence: map[string]any{"recorded": c.Recorded, "now": c.Now, "run": c.Run}})
	}
	return out
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

package doctor

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/migration"
	"github.com/clawdoctor/clawdoctor/internal/store"
	"github.com/clawdoctor/clawdoctor/repair"
)

// importRules are the audit rules of lines OpenClaw's SQLite import may stop at or rewrite: the
// transcripts with one of them are read again as the import reads them (migration.Predict).
// A transcript without one holds only lines that parse as JSON in valid UTF-8: the import keeps
// it whole.
var importRules = map[string]bool{
	"jsonl.malformed-line": true, "jsonl.invalid-utf8": true, "jsonl.nul-bytes": true,
	"jsonl.line-too-long": true, "jsonl.concatenated": true, "jsonl.bom": true, "jsonl.crlf": true,
	"jsonl.lone-cr": true, "header.duplicate": true,
}

// checkImport (issue 29) says, for each transcript of a JSONL-era agent the audit found
// line-level damage in, what OpenClaw's one-way import into SQLite (2026.8.1 and later;
// `openclaw doctor --fix` runs it since 2026.9) would keep: migration.import-truncates when it
// would stop short of entries the runtime reads (the import exits 0 and the database holds only
// the prefix), migration.import-rewrites for what it changes in the lines it keeps.
//
// The fix: the transcript's repair (repair.needed) drops or salvages the lines the import
// stops at; bytes that are not UTF-8, which repair keeps, are replaced by U+FFFD (as the
// runtime read them: repair --only-invalid-utf8). After the fixes the file is predicted again:
// the problem is fixed only when the import would keep every entry.
func checkImport(ctx context.Context, st *state) ([]Problem, error) {
	var out []Problem
	for _, a := range st.agents {
		if a.sqliteEra() || len(a.importCandidates) == 0 {
			continue
		}
		for _, path := range slices.Sorted(maps.Keys(a.importCandidates)) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			p, err := migration.PredictFile(ctx, path)
			if err != nil {
				out = append(out, unreadable(a, path, err.Error()))
				continue
			}
			if p.Unexamined != "" {
				out = append(out, Problem{Check: "migration.import-unknown", Severity: "info", Agent: a.id, Path: path, Gate: GateNone,
					Message:  "what OpenClaw's SQLite import keeps of this transcript could not be told past one line: " + p.Unexamined + " (the import reads lines up to about 512 MiB)",
					Evidence: map[string]any{"prediction": p}})
				continue
			}
			if !p.Truncates() {
				if rw := p.Rewrites(); rw != "" {
					out = append(out, Problem{Check: "migration.import-rewrites", Severity: "info", Agent: a.id, Path: path, Gate: GateNone,
						Message:  "OpenClaw's SQLite import keeps every entry of this transcript but stores some lines changed: " + rw,
						Evidence: map[string]any{"prediction": p}})
				}
				continue
			}
			out = append(out, importProblem(ctx, st, a, path, p))
		}
	}
	return out, nil
}

// importProblem is the migration.import-truncates problem of path.
func importProblem(ctx context.Context, st *state, a *agentState, path string, p migration.Prediction) Problem {
	why := p.Reason
	if why == "" {
		why = p.Unexamined
	}
	pr := Problem{Check: "migration.import-truncates", Severity: "error", Agent: a.id, Path: path, Gate: GateYes,
		Message: fmt.Sprintf("OpenClaw's one-way import into SQLite (2026.8.1 and later; `openclaw doctor --fix` runs it since 2026.9) would store %d entries of this transcript and nothing from line %d on (%s): %d entries the gateway reads (%s) would be left out of the database, though the import exits 0; only the original in the import archive would keep them",
			p.Kept, p.Stop, why, p.Lost, humanBytes(p.LostBytes)),
		Fix:      "repair it before the import: the lines the import stops at dropped or salvaged, bytes that are not UTF-8 replaced by U+FFFD as OpenClaw's runtime read them (backup kept)",
		Evidence: map[string]any{"prediction": p, "firstLineNotImported": p.Stop, "entriesLost": p.Lost, "run": "clawdoctor doctor --fix --yes"}}
	dir, file := a.dir, path
	pr.apply = func(b *Backups) (string, error) {
		// the repair.needed fix of this file (applied before, in the order of the checks) has
		// run; what it keeps that the import still stops at is invalid UTF-8
		now, err := migration.PredictFile(ctx, file)
		if err != nil {
			return "", err
		}
		if !now.Truncates() {
			return "", nil
		}
		dst, err := b.target(file)
		if err != nil {
			return "", err
		}
		done := repair.RepairFile(ctx, dir, file, repair.Options{Now: st.opts.Now, OnlyInvalidUTF8: true, BackupDir: filepath.Dir(dst),
			Force: st.opts.Force, Release: st.opts.Release, LockStale: store.LockStaleAfter(st.opts.Getenv, st.staleMs),
			LockWait: st.opts.LockWait, Temps: st.temps}, nil)
		switch {
		case done.Busy:
			return "", &busyError{file + ": " + done.Reason}
		case done.Status == repair.StatusFailed || done.Status == repair.StatusSkipped:
			return done.BackupPath, fmt.Errorf("%s: %s", done.Status, done.Reason)
		}
		after, err := migration.PredictFile(ctx, file)
		if err != nil {
			return done.BackupPath, err
		}
		if after.Truncates() {
			return done.BackupPath, fmt.Errorf("after the repair the import would still stop: %s", strings.TrimSpace(after.Reason+" "+after.Unexamined))
		}
		return done.BackupPath, nil
	}
	guard(st, a, &pr)
	return pr
}

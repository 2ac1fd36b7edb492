package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/clawdoctor/clawdoctor/jsonl"
	"github.com/clawdoctor/clawdoctor/store"
)

// checkSQLite reports SQLite-era agents and which JSONL transcripts still on disk the database
// does not hold (users stuck in a half-done migration, openclaw#154277).
func checkSQLite(ctx context.Context, st *state) ([]Problem, error) {
	var out []Problem
	for _, a := range st.agents {
		if a.era.Unknown != "" {
			out = append(out, Problem{Check: "store.era-unknown", Severity: "warning", Agent: a.id, Path: a.era.DB, Gate: GateNone,
				Message: "the agent database could not be read, so clawdoctor cannot tell whether this agent's sessions are in SQLite and writes nothing for it: " + a.era.Unknown})
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
			Message: "this agent's sessions live in SQLite (OpenClaw 2026.8+): clawdoctor will not write its JSONL files or sessions.json"}
		db, err := ReadDB(ctx, a.sqlite)
		if err != nil {
			p.Severity = "warning"
			p.Message += fmt.Sprintf("; the database could not be read for a cross-check: %v", err)
			out = append(out, p)
			continue
		}
		p.Evidence = map[string]any{"dbSessions": db.Sessions, "dbEvents": db.Events, "tables": db.Tables}
		if db.Note != "" {
			p.Message += "; " + db.Note
			out = append(out, p)
			continue
		}
		var notIn, differ []string
		checked := 0
		for _, f := range a.files {
			if !f.kind.Kind.IsPrimary() {
				continue
			}
			checked++
			sid := f.kind.SessionID
			n, ok := db.BySessID[sid]
			if !ok {
				notIn = append(notIn, f.name)
				continue
			}
			lines, err := countEntryLines(f.path)
			if err != nil {
				return nil, err
			}
			// The database may or may not store the header as an event: both counts agree.
			if n != lines && n != lines-1 {
				differ = append(differ, fmt.Sprintf("%s (file %d lines, db %d events)", f.name, lines, n))
			}
		}
		p.Message += fmt.Sprintf("; database: %d sessions, %d events; %d JSONL transcripts on disk checked", db.Sessions, db.Events, checked)
		out = append(out, p)
		sort.Strings(notIn)
		if len(notIn) > 0 {
			out = append(out, Problem{Check: "store.sqlite-missing", Severity: "warning", Agent: a.id, Path: a.dir, Gate: GateNone,
				Message:  fmt.Sprintf("%d JSONL transcripts are not in the database: %s; keep them until `openclaw doctor --session-sqlite import` has taken them", len(notIn), strings.Join(firstN(notIn, 5), ", ")),
				Evidence: map[string]any{"files": notIn}})
		}
		if len(differ) > 0 {
			out = append(out, Problem{Check: "store.sqlite-mismatch", Severity: "warning", Agent: a.id, Path: a.dir, Gate: GateNone,
				Message:  fmt.Sprintf("%d transcripts hold a different number of entries than the database: %s", len(differ), strings.Join(firstN(differ, 5), "; ")),
				Evidence: map[string]any{"files": differ}})
		}
	}
	return out, nil
}

// countEntryLines counts the non-blank lines of a transcript (header included).
func countEntryLines(path string) (int, error) {
	f, err := jsonl.Open(path, nil)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := jsonl.NewReader(f, jsonl.Options{})
	n := 0
	for {
		l, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, fmt.Errorf("%s: %w", path, err)
		}
		if !l.Has(jsonl.FlagBlank) {
			n++
		}
	}
}

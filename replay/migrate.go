package replay

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/clawdoctor/clawdoctor/jsonl"
	"github.com/clawdoctor/clawdoctor/session"
)

// headerNote says what pi's loader makes of a transcript's header: a warning when there is
// none (pi loads nothing and rewrites the file with a fresh header, spec §2.11), and whether
// the version needs the v1→v2→v3 migration pi runs on load (§2.10).
func headerNote(h *session.Header, name string) (warning string, migrate bool) {
	if h == nil {
		return fmt.Sprintf("%s: no session header: pi would load nothing from this file and rewrite it with only a new header (replayed here as if the header were there)", name), false
	}
	v, ok := h.VersionNumber()
	return "", !ok || v < session.CurrentVersion
}

// migrated reads the whole stream, runs session.Migrate over its lines and loads the result,
// as pi does before it builds a context from a v1 or v2 transcript.
func migrated(ctx context.Context, r io.Reader, name string) (entries []*session.Entry, skipped []string, note string, err error) {
	rd := jsonl.NewReader(r, jsonl.Options{})
	var lines [][]byte
	for {
		l, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, "", fmt.Errorf("%s: %w", name, err)
		}
		lines = append(lines, append([]byte(nil), l.Bytes...))
	}
	res, err := session.Migrate(lines, session.MigrateOptions{})
	if err != nil {
		return nil, nil, "", fmt.Errorf("%s: migrate: %w", name, err)
	}
	entries, skipped, err = Load(ctx, bytes.NewReader(bytes.Join(res.Lines, []byte("\n"))), name)
	if err != nil {
		return nil, nil, "", err
	}
	if res.Changed {
		note = fmt.Sprintf("%s: version %d transcript migrated to 3 in memory as pi does on load (%d ids assigned, %d hookMessage roles renamed); the file is not rewritten",
			name, res.From, res.NewIDs, res.RenamedRole)
	}
	return entries, skipped, note, nil
}

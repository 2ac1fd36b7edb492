package replay

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/clawdoctor/clawdoctor/internal/hygiene"
	"github.com/clawdoctor/clawdoctor/internal/session"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// headerNote says what OpenClaw's loader makes of a transcript's header, and whether the
// version needs the v1→v2→v3 migration it runs on load (§2.10). When the first line that
// parses is not a session header with a string id, 2026.6.11 recovers the file (it backs it
// up and rewrites it with a header in front of every entry), so the entries are replayed;
// older releases load nothing (and rewrite the file with a fresh header, §2.11): empty is set.
func headerNote(h *session.Header, name string, r hygiene.Release) (warning string, empty, migrate bool) {
	if h == nil || !h.LoaderValid() {
		if hygiene.CompareReleases(orDefault(r), hygiene.Release20260611) >= 0 {
			return fmt.Sprintf("%s: no readable session header: OpenClaw %s backs the file up and rewrites it with a new header in front of its entries (replayed from those entries; the file is not touched)", name, orDefault(r)), false, false
		}
		return fmt.Sprintf("%s: no readable session header: OpenClaw %s loads nothing from this file (and rewrites it with only a new header), so nothing is replayed", name, r), true, false
	}
	v, ok := h.VersionNumber()
	return "", false, !ok || v < session.CurrentVersion
}

func orDefault(r hygiene.Release) hygiene.Release {
	if r == "" {
		return hygiene.DefaultRelease
	}
	return r
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
	session.TrimContent(lines, nil) // as the loader reads the lines it migrates
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

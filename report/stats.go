package report

import (
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/dbhealth"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

// Stats renders the state-dir inventory: one column per agent (and a total column when
// there are several), one row per measure, then the notes that need attention.
func Stats(w io.Writer, s store.Stats, f Format) error {
	if f != JSON {
		s = escaped(s)
	}
	if f == JSON {
		if s.Agents == nil {
			s.Agents = []store.AgentStats{}
		}
		return WriteJSON(w, s)
	}
	if s.StateDir != "" {
		fmt.Fprintf(w, "state dir: %s\n", s.StateDir)
	}
	names := statsNames(s.Agents)
	for i, a := range s.Agents {
		fmt.Fprintf(w, "%s: %s\n", names[i], a.SessionsDir)
	}
	cols := append([]store.AgentStats(nil), s.Agents...)
	header := []any{"measure"}
	for _, n := range names {
		header = append(header, n)
	}
	if len(cols) > 1 {
		cols = append(cols, statsTotal(s.Agents))
		header = append(header, "total")
	}
	t := NewTable(w)
	if f == Markdown {
		t = NewMarkdownTable(w)
	}
	t.Header(header...)
	rows := statsRows
	for _, a := range s.Agents {
		if a.DB != nil {
			rows = append(append([]statsRow(nil), statsRows...), dbRows...)
			break
		}
	}
	for _, row := range rows {
		cells := []any{row.name}
		for _, a := range cols {
			cells = append(cells, row.cell(a))
		}
		if err := t.Append(cells...); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, n := range s.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for i, a := range s.Agents {
		for _, n := range statsNotes(a) {
			fmt.Fprintf(w, "%s: %s\n", names[i], n)
		}
	}
	return nil
}

// statsNames names each column: the agent id, numbered when ids repeat (several state dirs),
// or "dir N" for a sessions dir outside the agents layout.
func statsNames(as []store.AgentStats) []string {
	count := map[string]int{}
	for _, a := range as {
		count[a.Agent]++
	}
	seen := map[string]int{}
	out := make([]string, len(as))
	for i, a := range as {
		seen[a.Agent]++
		switch {
		case a.Agent == "":
			out[i] = fmt.Sprintf("dir %d", seen[""])
		case count[a.Agent] > 1:
			out[i] = fmt.Sprintf("%s (%d)", a.Agent, seen[a.Agent])
		default:
			out[i] = a.Agent
		}
	}
	return out
}

type statsRow struct {
	name string
	cell func(a store.AgentStats) string
}

var statsRows = []statsRow{
	{"store entries", func(a store.AgentStats) string {
		switch {
		case a.Store.Corrupt != "":
			return "corrupt, " + statsBytes(a.Store.Bytes)
		case !a.Store.Present:
			return "no sessions.json"
		}
		return fmt.Sprintf("%d, %s", a.Store.Entries, statsBytes(a.Store.Bytes))
	}},
	{"live transcripts", func(a store.AgentStats) string { return statsCount(a.Transcripts) }},
	{"topic transcripts", func(a store.AgentStats) string { return statsCount(a.Topics) }},
	{"reset archives", func(a store.AgentStats) string { return statsCount(a.ArchivesByKind[store.KindResetArchive]) }},
	{"deleted archives", func(a store.AgentStats) string { return statsCount(a.ArchivesByKind[store.KindDeletedArchive]) }},
	{"bak archives", func(a store.AgentStats) string { return statsCount(a.ArchivesByKind[store.KindBakArchive]) }},
	{"store backups (.bak.<ms>)", func(a store.AgentStats) string { return statsCount(a.ArchivesByKind[store.KindStoreBackup]) }},
	{"compressed archives (.zst)", func(a store.AgentStats) string { return statsCount(a.Compressed) }},
	{"checkpoints", func(a store.AgentStats) string { return statsCount(a.Kinds[store.KindCheckpoint]) }},
	{"trajectory files", func(a store.AgentStats) string {
		return statsCount(statsAdd(a.Kinds[store.KindTrajectory], a.Kinds[store.KindTrajectoryPointer]))
	}},
	{"orphans (unreferenced)", func(a store.AgentStats) string { return statsCount(a.Orphans) }},
	{"entries missing transcript", func(a store.AgentStats) string {
		if a.MissingArchived > 0 {
			return fmt.Sprintf("%d (%d only archived)", a.MissingTranscripts, a.MissingArchived)
		}
		return fmt.Sprint(a.MissingTranscripts)
	}},
	{"transcripts outside dir", func(a store.AgentStats) string { return fmt.Sprint(a.Outside) }},
	{"locks live / stale", func(a store.AgentStats) string { return fmt.Sprintf("%d / %d", a.Locks.Live, a.Locks.Stale) }},
	{"repair backups and temps", func(a store.AgentStats) string {
		return statsCount(statsAdd(a.Kinds[store.KindRepairBackup], a.Kinds[store.KindRepairTemp]))
	}},
	{"store temps", func(a store.AgentStats) string { return statsCount(a.Kinds[store.KindStoreTemp]) }},
	{"skills prompt blobs", func(a store.AgentStats) string {
		return statsCount(statsAdd(a.Kinds[store.KindSkillsPrompt], a.Kinds[store.KindSkillsPromptTemp]))
	}},
	{"foreign files", func(a store.AgentStats) string { return statsCount(a.Kinds[store.KindForeign]) }},
	{"all files", func(a store.AgentStats) string { return statsCount(a.Files) }},
	{"oldest activity", func(a store.AgentStats) string { return statsTime(a.OldestUpdate) }},
	{"newest activity", func(a store.AgentStats) string { return statsTime(a.NewestUpdate) }},
	{"era", func(a store.AgentStats) string {
		if a.SessionsDir == statsTotalMarker {
			return ""
		}
		switch {
		case a.Era.SQLite && a.Era.HalfMigrated:
			return "sqlite (read-only, half-migrated)"
		case a.Era.SQLite:
			return "sqlite (read-only)"
		case a.Era.Unknown != "":
			return "unknown (read-only)"
		}
		return "jsonl"
	}},
}

// dbRows describe the database of SQLite-era agents (shown when one has it).
var dbRows = []statsRow{
	{"db schema", func(a store.AgentStats) string {
		if a.DB == nil || a.DB.Schema == 0 {
			return "-"
		}
		if a.DB.AppVersion != "" {
			return fmt.Sprintf("%d (OpenClaw %s)", a.DB.Schema, a.DB.AppVersion)
		}
		return fmt.Sprint(a.DB.Schema)
	}},
	{"db session nodes (archived)", dbCell(func(d *store.DBStats) string { return fmt.Sprintf("%d (%d)", d.Nodes, d.Archived) })},
	{"db windows", dbCell(func(d *store.DBStats) string {
		var parts []string
		for _, r := range slices.Sorted(maps.Keys(d.ByReason)) {
			parts = append(parts, fmt.Sprintf("%s %d", r, d.ByReason[r]))
		}
		if len(parts) == 0 {
			return "0"
		}
		return fmt.Sprintf("%d: %s", d.Windows, strings.Join(parts, ", "))
	})},
	{"db sessions / events", dbCell(func(d *store.DBStats) string { return fmt.Sprintf("%d / %d", d.Sessions, d.Events) })},
	{"db archives (in db / cold)", dbCell(func(d *store.DBStats) string { return fmt.Sprintf("%s / %d", statsCount(d.Archives), d.Cold) })},
	{"db + wal + sessions/ (maxDiskBytes)", dbCell(func(d *store.DBStats) string {
		return fmt.Sprintf("%s + %s + %s = %s", statsBytes(d.DBBytes), statsBytes(d.WALBytes), statsBytes(d.DiskBytes-d.DBBytes-d.WALBytes), statsBytes(d.DiskBytes))
	})},
	{"db wal (frames, checkpointed)", healthCell(func(h *dbhealth.Report) string {
		if !h.WAL.Exists || h.WAL.Bytes == 0 {
			return "none"
		}
		s := fmt.Sprintf("%s (%d frames", statsBytes(h.WAL.Bytes), h.WAL.Frames)
		if h.SHM.MaxFrame > 0 {
			s += fmt.Sprintf(", %d of %d committed in the db", h.SHM.Backfill, h.SHM.MaxFrame)
		}
		s += ")"
		if h.Foreign != "" {
			s += "; " + h.Foreign
		}
		if h.Starved != "" {
			s += "; checkpoint starved"
		}
		return s
	})},
	{"db locks", healthCell(func(h *dbhealth.Report) string {
		var parts []string
		for _, g := range h.Gateways {
			parts = append(parts, fmt.Sprintf("%s pid %d (%s)", filepath.Base(g.Path), g.PID, g.Owner))
		}
		for _, c := range h.Coordinators {
			switch {
			case c.HeldBy > 0:
				parts = append(parts, fmt.Sprintf("%s coordinator held by pid %d", c.Family, c.HeldBy))
			case c.HeldBy == -1:
				parts = append(parts, c.Family+" coordinator held")
			}
		}
		if len(parts) == 0 {
			return "none held"
		}
		return strings.Join(parts, "; ")
	})},
	{"db file system", healthCell(func(h *dbhealth.Report) string {
		t := h.FS.Type
		if t == "" {
			t = "local"
		}
		return fmt.Sprintf("%s (OpenClaw journal: %s)", t, h.FS.Policy)
	})},
	{"openclaw maintenance now", healthCell(func(h *dbhealth.Report) string {
		if h.CanRun {
			return "yes"
		}
		return "no (see doctor)"
	})},
}

func healthCell(f func(*dbhealth.Report) string) func(store.AgentStats) string {
	return func(a store.AgentStats) string {
		if a.DB == nil || a.DB.Health == nil {
			return "-"
		}
		return f(a.DB.Health)
	}
}

func dbCell(f func(*store.DBStats) string) func(store.AgentStats) string {
	return func(a store.AgentStats) string {
		if a.DB == nil {
			return "-"
		}
		return f(a.DB)
	}
}

func statsCount(c store.Count) string {
	if c.Files == 0 {
		return "0"
	}
	return fmt.Sprintf("%d, %s", c.Files, statsBytes(c.Bytes))
}

func statsAdd(cs ...store.Count) store.Count {
	var t store.Count
	for _, c := range cs {
		t.Files += c.Files
		t.Bytes += c.Bytes
	}
	return t
}

// statsBytes prints a size in binary units with one decimal (B below 1 KiB).
func statsBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

func statsTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04Z")
}

// statsTotalMarker marks the synthetic total column.
const statsTotalMarker = "\x00total"

// statsTotal sums the agents for the total column.
func statsTotal(as []store.AgentStats) store.AgentStats {
	t := store.AgentStats{Agent: "total", SessionsDir: statsTotalMarker, Kinds: map[store.Kind]store.Count{}, ArchivesByKind: map[store.Kind]store.Count{}}
	t.Store.Present = true
	for _, a := range as {
		t.Store.Entries += a.Store.Entries
		t.Store.Bytes += a.Store.Bytes
		t.Transcripts = statsAdd(t.Transcripts, a.Transcripts)
		t.Topics = statsAdd(t.Topics, a.Topics)
		t.Archives = statsAdd(t.Archives, a.Archives)
		t.Compressed = statsAdd(t.Compressed, a.Compressed)
		t.Orphans = statsAdd(t.Orphans, a.Orphans)
		t.OrphanTranscripts = statsAdd(t.OrphanTranscripts, a.OrphanTranscripts)
		t.Files = statsAdd(t.Files, a.Files)
		for k, c := range a.Kinds {
			t.Kinds[k] = statsAdd(t.Kinds[k], c)
		}
		for k, c := range a.ArchivesByKind {
			t.ArchivesByKind[k] = statsAdd(t.ArchivesByKind[k], c)
		}
		t.MissingTranscripts += a.MissingTranscripts
		t.MissingArchived += a.MissingArchived
		t.Outside += a.Outside
		t.Locks.Live += a.Locks.Live
		t.Locks.Stale += a.Locks.Stale
		if !a.OldestUpdate.IsZero() && (t.OldestUpdate.IsZero() || a.OldestUpdate.Before(t.OldestUpdate)) {
			t.OldestUpdate = a.OldestUpdate
		}
		if a.NewestUpdate.After(t.NewestUpdate) {
			t.NewestUpdate = a.NewestUpdate
		}
		if a.DB != nil {
			if t.DB == nil {
				t.DB = &store.DBStats{ByReason: map[string]int{}}
			}
			d := t.DB
			d.Nodes, d.Archived, d.Windows, d.Sessions = d.Nodes+a.DB.Nodes, d.Archived+a.DB.Archived, d.Windows+a.DB.Windows, d.Sessions+a.DB.Sessions
			d.Events, d.Cold, d.Archives = d.Events+a.DB.Events, d.Cold+a.DB.Cold, statsAdd(d.Archives, a.DB.Archives)
			d.DBBytes, d.WALBytes, d.DiskBytes = d.DBBytes+a.DB.DBBytes, d.WALBytes+a.DB.WALBytes, d.DiskBytes+a.DB.DiskBytes
			for r, n := range a.DB.ByReason {
				d.ByReason[r] += n
			}
		}
	}
	return t
}

// statsNotes lists what needs attention in one sessions dir.
func statsNotes(a store.AgentStats) []string {
	var out []string
	if a.NoDir {
		out = append(out, "no sessions dir yet (a configured agent that has not run)")
	}
	for _, u := range a.Unreadable {
		out = append(out, "unreadable, not counted: "+u)
	}
	if a.Store.Corrupt != "" {
		out = append(out, a.Store.Corrupt+"; OpenClaw would read it as an empty store and overwrite it")
	}
	switch {
	case a.Era.SQLite && a.Era.HalfMigrated:
		out = append(out, a.Era.Summary()+"; writers refuse")
	case a.Era.SQLite:
		out = append(out, "SQLite era ("+strings.Join(a.Era.Evidence, ", ")+"): JSONL files are not the live store; writers refuse")
	case a.Era.Unknown != "":
		out = append(out, a.Era.Summary()+"; writers refuse until it can be read")
	}
	if a.DB != nil && a.DB.Error != "" {
		out = append(out, "the agent database could not be read: "+a.DB.Error)
	}
	if len(a.MissingKeys) > 0 {
		keys := a.MissingKeys
		more := ""
		if len(keys) > 5 {
			keys, more = keys[:5], fmt.Sprintf(" and %d more", len(a.MissingKeys)-5)
		}
		out = append(out, "transcript missing for "+strings.Join(keys, ", ")+more)
	}
	for _, l := range a.Locks.List {
		if !l.Stale {
			out = append(out, fmt.Sprintf("live lock %s (pid %d): a gateway may be writing", l.Path, l.PID))
		}
	}
	if a.Store.DropRows > 0 {
		out = append(out, fmt.Sprintf("%d store rows a current gateway would drop (not an object or unsafe sessionId)", a.Store.DropRows))
	}
	if a.Store.Present && a.Store.Corrupt == "" && !a.Store.Canonical && a.Store.Duplicates == 0 {
		out = append(out, "sessions.json is not in OpenClaw's own formatting (edited by hand or by another tool); its next write will reformat it")
	}
	if a.NoSession > 0 {
		out = append(out, fmt.Sprintf("%d store rows have no usable sessionId (routing rows)", a.NoSession))
	}
	if a.Store.Duplicates > 0 {
		out = append(out, fmt.Sprintf("%d duplicate keys in sessions.json (the last value wins)", a.Store.Duplicates))
	}
	if a.Symlinks > 0 {
		out = append(out, fmt.Sprintf("%d symlinks in the sessions dir (never written through)", a.Symlinks))
	}
	return out
}

package retention

import (
	"fmt"
	"math"

	"github.com/clawdoctor/clawdoctor/internal/config"
)

// Defaults of the SQLite era (OpenClaw 2026.8+, store-maintenance.ts).
const (
	SQLiteDefaultPruneAfterMs       = 30 * msDay
	SQLiteDefaultDashboardArchiveMs = 7 * msDay
	SQLiteDefaultMaxEntries         = 5000
	SQLiteDefaultMaxDiskBytes       = 10 << 30
)

// SQLiteSettings are session.maintenance as OpenClaw 2026.8+ resolves it for a SQLite-era
// store (resolveMaintenanceConfigFromInput). Nil pointers mean "off".
type SQLiteSettings struct {
	Mode                    string
	PruneAfterMs            int64
	ArchiveDashboardAfterMs *int64
	MaxEntries              int
	ModelRunPruneAfterMs    int64
	PreserveRecentMs        *int64
	MaxDiskBytes            *int64
	HighWaterBytes          *int64
	// Notes say where a value fell back to its default (OpenClaw does so silently).
	Notes []string
}

// ResolveSQLite applies 2026.9's resolveMaintenanceConfigFromInput to m. It differs from the
// file era's Resolve: no pruneDays, maxEntries defaults to 5000, maxDiskBytes to 10 GiB and
// a 0 or negative budget turns it off, archiveDashboardAfter and preserveRecent exist, and
// resetArchiveRetention is not a cleanup setting.
func ResolveSQLite(m config.Maintenance) SQLiteSettings {
	s := SQLiteSettings{Mode: DefaultMode, PruneAfterMs: SQLiteDefaultPruneAfterMs, MaxEntries: SQLiteDefaultMaxEntries, ModelRunPruneAfterMs: ModelRunPruneAfterMs}
	if v, ok := m.Mode.(string); ok && v != "" {
		s.Mode = v
	}
	if raw, ok := stringified(m.PruneAfter); ok {
		if v, err := ParseDuration(raw, "d"); err == nil {
			s.PruneAfterMs = v
		} else {
			s.Notes = append(s.Notes, fmt.Sprintf("session.maintenance.pruneAfter %q is invalid; using 30d", raw))
		}
	}
	dash := int64(SQLiteDefaultDashboardArchiveMs)
	s.ArchiveDashboardAfterMs = &dash
	b, isBool := m.ArchiveDashboardAfter.(bool)
	f, isNum := m.ArchiveDashboardAfter.(float64)
	if _, set := stringified(m.ArchiveDashboardAfter); (isBool && !b) || (isNum && f == 0) {
		s.ArchiveDashboardAfterMs = nil
	} else if set {
		s.ArchiveDashboardAfterMs = dashboard(m.ArchiveDashboardAfter, &s)
	}
	switch v := m.MaxEntries.(type) {
	case float64:
		s.MaxEntries = int(v)
	case nil:
	default:
		s.Notes = append(s.Notes, fmt.Sprintf("session.maintenance.maxEntries %v is not a number; using 5000", v))
	}
	if b, ok := m.PreserveRecent.(bool); m.PreserveRecent != nil && !(ok && !b) {
		raw, _ := stringified(m.PreserveRecent)
		if v, err := ParseDuration(raw, "d"); err == nil {
			s.PreserveRecentMs = &v
		} else {
			s.Notes = append(s.Notes, fmt.Sprintf("session.maintenance.preserveRecent %q is invalid; off", raw))
		}
	}
	if b, ok := m.MaxDiskBytes.(bool); !(ok && !b) {
		max := int64(SQLiteDefaultMaxDiskBytes)
		if raw, ok := stringified(m.MaxDiskBytes); ok {
			if v, err := ParseByteSize(raw, "b"); err == nil {
				max = v
			} else {
				max = 0
				s.Notes = append(s.Notes, fmt.Sprintf("session.maintenance.maxDiskBytes %q is invalid; disk budget off", raw))
			}
		}
		if max > 0 {
			s.MaxDiskBytes = &max
		}
	}
	if s.MaxDiskBytes != nil {
		max := *s.MaxDiskBytes
		hw := max64(1, min64(max, int64(math.Floor(float64(max)*0.8))))
		if raw, ok := stringified(m.HighWaterBytes); ok {
			if v, err := ParseByteSize(raw, "b"); err == nil && v > 0 {
				hw = min64(v, max)
			}
		}
		s.HighWaterBytes = &hw
	}
	return s
}

// dashboard parses archiveDashboardAfter: a positive duration, else off; invalid → 7d.
func dashboard(v any, s *SQLiteSettings) *int64 {
	raw, _ := stringified(v)
	d, err := ParseDuration(raw, "d")
	if err != nil {
		s.Notes = append(s.Notes, fmt.Sprintf("session.maintenance.archiveDashboardAfter %q is invalid; using 7d", raw))
		def := int64(SQLiteDefaultDashboardArchiveMs)
		return &def
	}
	if d <= 0 {
		return nil
	}
	return &d
}

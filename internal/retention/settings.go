package retention

import (
	"fmt"
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"math"
	"strconv"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/config"
)

// Day and the other multipliers of OpenClaw's duration grammar, in milliseconds.
const (
	msSecond = 1000
	msMinute = 60 * msSecond
	msHour   = 60 * msMinute
	msDay    = 24 * msHour
)

// Defaults of the file era (store.md §3.1).
const (
	DefaultPruneAfterMs    = 30 * msDay
	DefaultMaxEntries      = 500
	DefaultMode            = "enforce"
	DefaultCronRetentionMs = 24 * msHour
	ModelRunPruneAfterMs   = 24 * msHour
	StoreTempStaleMs       = 5 * msMinute
	EmptyTranscriptMax     = 4096
)

var (
	durationRe = lazyre.New(`^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$`)
	segmentRe  = lazyre.New(`(\d+(?:\.\d+)?)(ms|s|m|h|d)`)
	byteRe     = lazyre.New(`^(\d+(?:\.\d+)?)([a-z]+)?$`)
)

var durationUnits = map[string]float64{"ms": 1, "s": msSecond, "m": msMinute, "h": msHour, "d": msDay}

var byteUnits = map[string]float64{"b": 1, "kb": 1 << 10, "k": 1 << 10, "mb": 1 << 20, "m": 1 << 20,
	"gb": 1 << 30, "g": 1 << 30, "tb": 1 << 40, "t": 1 << 40}

const maxSafeInteger = 1<<53 - 1

// jsRound is Math.round: halves round towards +∞.
func jsRound(v float64) float64 { return math.Floor(v + 0.5) }

// ParseDuration is OpenClaw's parseDurationMs: trimmed and lower-cased, a number with an
// optional unit ms|s|m|h|d (defUnit when absent), or composite segments each with a unit
// ("1h30m"). No spaces, no negatives, no weeks. The result is rounded to whole ms.
func ParseDuration(raw, defUnit string) (int64, error) {
	s := strings.ToLower(strings.TrimSpace(raw))
	if s == "" {
		return 0, fmt.Errorf("invalid duration (empty): use values like 500ms, 30s, 5m, 2h or 30d")
	}
	if m := durationRe.FindStringSubmatch(s); m != nil {
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return 0, fmt.Errorf("invalid duration %q", raw)
		}
		unit := m[2]
		if unit == "" {
			unit = defUnit
		}
		mult, ok := durationUnits[unit]
		if !ok {
			mult = 1
		}
		return safeRound(raw, v*mult)
	}
	total, consumed := 0.0, 0
	for _, loc := range segmentRe.FindAllStringSubmatchIndex(s, -1) {
		if loc[0] != consumed {
			return 0, fmt.Errorf("invalid duration %q: each composite segment needs a unit", raw)
		}
		v, _ := strconv.ParseFloat(s[loc[2]:loc[3]], 64)
		total += v * durationUnits[s[loc[4]:loc[5]]]
		consumed = loc[1]
	}
	if consumed != len(s) || consumed == 0 {
		return 0, fmt.Errorf("invalid duration %q: use values like 500ms, 30s, 5m, 2h or 30d", raw)
	}
	return safeRound(raw, total)
}

func safeRound(raw string, v float64) (int64, error) {
	r := jsRound(v)
	if math.IsInf(r, 0) || math.IsNaN(r) || r > maxSafeInteger {
		return 0, fmt.Errorf("invalid duration %q: too large", raw)
	}
	return int64(r), nil
}

// ParseByteSize is OpenClaw's parseByteSize: trimmed and lower-cased, a number with an optional
// binary unit b, k/kb, m/mb, g/gb, t/tb (defUnit when absent). "20 mb" and "1MiB" are invalid.
func ParseByteSize(raw, defUnit string) (int64, error) {
	s := strings.ToLower(strings.TrimSpace(raw))
	m := byteRe.FindStringSubmatch(s)
	if s == "" || m == nil {
		return 0, fmt.Errorf("invalid size %q: use values like 512kb, 10mb, 1gb or 500", raw)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, fmt.Errorf("invalid size %q", raw)
	}
	unit := m[2]
	if unit == "" {
		unit = defUnit
	}
	mult, ok := byteUnits[unit]
	if !ok {
		return 0, fmt.Errorf("invalid size %q: unknown unit %q", raw, unit)
	}
	r := jsRound(v * mult)
	if math.IsInf(r, 0) || r > maxSafeInteger {
		return 0, fmt.Errorf("invalid size %q: too large", raw)
	}
	return int64(r), nil
}

// stringified is normalizeStringifiedOptionalString: strings are trimmed, numbers and bools
// are printed as JavaScript's String() would; anything else (and "") is absent.
func stringified(v any) (string, bool) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case float64:
		s = jsNumber(x)
	case int:
		s = strconv.Itoa(x)
	case int64:
		s = strconv.FormatInt(x, 10)
	case bool:
		s = strconv.FormatBool(x)
	default:
		return "", false
	}
	s = strings.TrimSpace(s)
	return s, s != ""
}

// jsNumber prints a float64 as JavaScript's String(n) does for the values configs hold.
func jsNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// Settings are resolved maintenance settings: every value has passed OpenClaw's grammar and
// fallbacks. Nil pointers mean "off".
type Settings struct {
	Mode                    string // "enforce" or "warn"
	PruneAfterMs            int64
	MaxEntries              int
	ResetArchiveRetentionMs *int64 // nil: resetArchiveRetention false, archives are kept
	MaxDiskBytes            *int64 // nil: no disk budget
	HighWaterBytes          *int64
	CronRetentionMs         *int64 // nil: cron.sessionRetention false
	// Notes explain every fallback taken (an invalid value replaced by its default).
	Notes []string
}

// Overrides are command-line values that beat the config; "" keeps the config's value.
type Overrides struct {
	Mode, PruneAfter, MaxEntries, MaxDiskBytes, HighWaterBytes, ResetArchiveRetention string
}

// Resolve applies OpenClaw's resolveMaintenanceConfigFromInput to m with overrides o, and
// cron.sessionRetention. Invalid config values fall back silently in OpenClaw; here each
// fallback adds a note. Invalid overrides are errors (they come from the user now).
func Resolve(m config.Maintenance, cron config.Cron, o Overrides) (Settings, error) {
	var s Settings
	if o.PruneAfter != "" {
		if _, err := ParseDuration(o.PruneAfter, "d"); err != nil {
			return s, fmt.Errorf("--prune-after: %v", err)
		}
		m.PruneAfter = o.PruneAfter
	}
	if o.ResetArchiveRetention != "" {
		if o.ResetArchiveRetention == "false" {
			m.ResetArchiveRetention = false
		} else {
			if _, err := ParseDuration(o.ResetArchiveRetention, "d"); err != nil {
				return s, fmt.Errorf("--reset-archive-retention: %v", err)
			}
			m.ResetArchiveRetention = o.ResetArchiveRetention
		}
	}
	if o.MaxDiskBytes != "" {
		if _, err := ParseByteSize(o.MaxDiskBytes, "b"); err != nil {
			return s, fmt.Errorf("--max-disk-bytes: %v", err)
		}
		m.MaxDiskBytes = o.MaxDiskBytes
	}
	if o.HighWaterBytes != "" {
		if _, err := ParseByteSize(o.HighWaterBytes, "b"); err != nil {
			return s, fmt.Errorf("--high-water-bytes: %v", err)
		}
		m.HighWaterBytes = o.HighWaterBytes
	}
	if o.MaxEntries != "" {
		n, err := strconv.Atoi(o.MaxEntries)
		if err != nil || n <= 0 {
			return s, fmt.Errorf("--max-entries %q: want a positive integer", o.MaxEntries)
		}
		m.MaxEntries = float64(n)
	}
	if o.Mode != "" {
		m.Mode = o.Mode
	}

	s.Mode = DefaultMode
	if v, ok := m.Mode.(string); ok && v != "" {
		s.Mode = v
	}
	// pruneAfter ?? pruneDays
	s.PruneAfterMs = DefaultPruneAfterMs
	pa := m.PruneAfter
	if pa == nil {
		pa = m.PruneDays
	}
	if raw, ok := stringified(pa); ok {
		if v, err := ParseDuration(raw, "d"); err == nil {
			s.PruneAfterMs = v
		} else {
			s.Notes = append(s.Notes, fmt.Sprintf("session.maintenance.pruneAfter %q is invalid; using 30d", raw))
		}
	}
	s.MaxEntries = DefaultMaxEntries
	switch v := m.MaxEntries.(type) {
	case float64:
		s.MaxEntries = int(v)
	case int:
		s.MaxEntries = v
	case nil:
	default:
		s.Notes = append(s.Notes, fmt.Sprintf("session.maintenance.maxEntries %v is not a number; using 500", v))
	}
	if b, ok := m.ResetArchiveRetention.(bool); !ok || b {
		r := s.PruneAfterMs
		if raw, ok := stringified(m.ResetArchiveRetention); ok {
			if v, err := ParseDuration(raw, "d"); err == nil {
				r = v
			} else {
				s.Notes = append(s.Notes, fmt.Sprintf("session.maintenance.resetArchiveRetention %q is invalid; using pruneAfter", raw))
			}
		}
		s.ResetArchiveRetentionMs = &r
	}
	if raw, ok := stringified(m.MaxDiskBytes); ok {
		if v, err := ParseByteSize(raw, "b"); err == nil {
			s.MaxDiskBytes = &v
		} else {
			s.Notes = append(s.Notes, fmt.Sprintf("session.maintenance.maxDiskBytes %q is invalid; disk budget off", raw))
		}
	}
	if s.MaxDiskBytes != nil {
		max := *s.MaxDiskBytes
		var hw int64
		switch {
		case max <= 0:
			hw = 0
		default:
			hw = max64(1, min64(max, int64(math.Floor(float64(max)*0.8))))
		}
		if raw, ok := stringified(m.HighWaterBytes); ok {
			if v, err := ParseByteSize(raw, "b"); err == nil {
				hw = min64(v, max)
			} else {
				s.Notes = append(s.Notes, fmt.Sprintf("session.maintenance.highWaterBytes %q is invalid; using 80%% of maxDiskBytes", raw))
			}
		}
		s.HighWaterBytes = &hw
		if max == 0 {
			s.Notes = append(s.Notes, "session.maintenance.maxDiskBytes is 0: a 0-byte budget in the file era (everything removable goes); OpenClaw 2026.8+ reads 0 as disabled")
		}
	}
	s.CronRetentionMs = resolveCronRetention(cron.SessionRetention)
	return s, nil
}

// resolveCronRetention is cron's resolveRetentionMs: false → off; a string → duration with
// default unit h (invalid → 24h); anything else → 24h.
func resolveCronRetention(v any) *int64 {
	if b, ok := v.(bool); ok && !b {
		return nil
	}
	r := int64(DefaultCronRetentionMs)
	if s, ok := v.(string); ok {
		if d, err := ParseDuration(s, "h"); err == nil {
			r = d
		}
	}
	return &r
}

func min64(a, b int64) int64 {
	if a < b {
		return a
	}
	return b
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

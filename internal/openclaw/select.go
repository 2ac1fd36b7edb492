package openclaw

import (
	"fmt"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/config"
)

// Selection is the release an engine follows and why.
type Selection struct {
	Release Release `json:"release"`
	Source  string  `json:"source"`         // "--openclaw-version", "<config path> meta.lastTouchedVersion" or "default"
	Note    string  `json:"note,omitempty"` // set when the release is not verified: which verified release it behaves as
}

// Describe is one line for reports: "2026.7.35 (from /x/openclaw.json meta.lastTouchedVersion)".
func (s Selection) Describe() string {
	out := s.Release.String()
	switch s.Source {
	case "default":
		out += " (default: the JSONL era's last release, verified)"
	case "--openclaw-version":
		out += " (--openclaw-version)"
	default:
		out += " (from " + s.Source + ")"
	}
	if s.Note != "" {
		out += "; " + s.Note
	}
	return out
}

// Select picks the release: flag when given, else the version OpenClaw recorded the last time
// it wrote the state dir's config (openclaw.json meta.lastTouchedVersion, written by every
// config write since 2026.1), else Default. A config that cannot be read or holds no usable
// version falls back to Default; a bad flag is an error.
func Select(flag, stateDir string, getenv func(string) string) (Selection, error) {
	var s Selection
	switch {
	case strings.TrimSpace(flag) != "":
		r, err := Parse(strings.TrimSpace(flag))
		if err != nil {
			return s, err
		}
		s = Selection{Release: r, Source: "--openclaw-version"}
	default:
		s = Selection{Release: Default, Source: "default"}
		if stateDir != "" {
			path := config.Find("", stateDir, getenv)
			if c, err := config.Load(path); err == nil && c.Path != "" {
				if v, ok := c.Lookup("meta.lastTouchedVersion"); ok {
					if str, ok := v.(string); ok {
						if r, err := Parse(strings.TrimSpace(str)); err == nil {
							s = Selection{Release: r, Source: path + " meta.lastTouchedVersion"}
						}
					}
				}
			}
		}
	}
	if v, exact := s.Release.Behaves(); !exact {
		s.Note = fmt.Sprintf("not a verified release, behaves as %s", v)
		if s.Release.SQLiteEra() {
			s.Note = fmt.Sprintf("a SQLite-era release; JSONL files follow %s, the last JSONL-era release verified", v)
		}
	}
	return s, nil
}

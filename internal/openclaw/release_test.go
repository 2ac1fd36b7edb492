package openclaw_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/openclaw"
)

func TestParseAndCompare(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"2026.6.11", "2026.6.11", 0},
		{"v2026.6.11", "2026.6.11", 0},
		{"2026.4.24", "2026.6.11", -1},
		{"2026.10.1", "2026.9.30", 1},
		{"2026.7.2-beta.1", "2026.7.2", -1},
		{"2026.7.2-beta.1", "2026.7.2-beta.2", -1},
	} {
		a, b := openclaw.MustParse(tc.a), openclaw.MustParse(tc.b)
		if got := a.Compare(b); got != tc.want {
			t.Errorf("%s vs %s = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
	for _, bad := range []string{"", "6.11", "2026.13.1", "2026.6.11 ", "latest", "2026.6.0"} {
		if _, err := openclaw.Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestBehavesAndHas(t *testing.T) {
	for _, tc := range []struct {
		r, behaves string
		exact      bool
		images     bool
	}{
		{"2026.3.13", "2026.3.13", true, false},
		{"2026.4.24", "2026.4.24", true, false},
		{"2026.5.20", "2026.4.24", false, false},
		{"2026.6.11", "2026.6.11", true, true},
		{"2026.7.35", "2026.7.35", true, true},
		{"2026.7.20", "2026.6.11", false, true},
		{"2026.9.6", "2026.7.35", false, true},
		{"2026.1.5", "2026.3.13", false, false},
	} {
		r := openclaw.MustParse(tc.r)
		v, exact := r.Behaves()
		if v.String() != tc.behaves || exact != tc.exact {
			t.Errorf("%s behaves as %s (exact %v), want %s (%v)", tc.r, v, exact, tc.behaves, tc.exact)
		}
		if got := r.Has(openclaw.RepairReplacesCorruptImages); got != tc.images {
			t.Errorf("%s has image repair = %v, want %v", tc.r, got, tc.images)
		}
	}
}

func TestSelect(t *testing.T) {
	dir := t.TempDir()
	env := func(string) string { return "" }
	s, err := openclaw.Select("", dir, env)
	if err != nil || s.Release != openclaw.Default || s.Source != "default" {
		t.Fatalf("no config: %+v, %v", s, err)
	}
	cfg := filepath.Join(dir, "openclaw.json")
	// JSON5, as OpenClaw's own writes may be edited by hand afterwards.
	if err := os.WriteFile(cfg, []byte("{\n  // hand edit\n  meta: { lastTouchedVersion: '2026.4.24', lastTouchedAt: '2026-04-30T10:00:00Z' },\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = openclaw.Select("", dir, env)
	if err != nil || s.Release.String() != "2026.4.24" || s.Source != cfg+" meta.lastTouchedVersion" || s.Note != "" {
		t.Fatalf("config: %+v, %v", s, err)
	}
	s, err = openclaw.Select("2026.3.13", dir, env)
	if err != nil || s.Release.String() != "2026.3.13" || s.Source != "--openclaw-version" {
		t.Fatalf("flag over config: %+v, %v", s, err)
	}
	if _, err := openclaw.Select("newest", dir, env); err == nil {
		t.Fatal("bad flag accepted")
	}
	if err := os.WriteFile(cfg, []byte(`{"meta":{"lastTouchedVersion":"2026.9.6"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ = openclaw.Select("", dir, env)
	if s.Release.String() != "2026.9.6" || s.Note == "" {
		t.Fatalf("SQLite-era version: %+v", s)
	}
	if err := os.WriteFile(cfg, []byte(`{"meta":{"lastTouchedVersion":42}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, _ = openclaw.Select("", dir, env); s.Source != "default" {
		t.Fatalf("unusable version must fall back: %+v", s)
	}
}

// The texts that name the default release must stay true: it is the newest verified JSONL-era
// release, not a SQLite-era one, and no newer than the era's last release.
func TestDefaultIsNewestVerified(t *testing.T) {
	last := openclaw.Verified[len(openclaw.Verified)-1]
	if openclaw.Default.Compare(last) != 0 || openclaw.Default.SQLiteEra() {
		t.Errorf("the default %s is not the newest verified JSONL-era release %s", openclaw.Default, last)
	}
	newest := openclaw.MustParse(openclaw.NewestJSONL)
	if newest.SQLiteEra() || openclaw.Default.Compare(newest) > 0 {
		t.Errorf("NewestJSONL %s is not the last JSONL-era release, or older than the default", newest)
	}
	if d := (openclaw.Selection{Release: openclaw.Default, Source: "default"}).Describe(); !strings.Contains(d, "verified") || !strings.Contains(d, openclaw.NewestJSONL) {
		t.Errorf("Describe says %q: it must say the default is the newest verified, and name %s", d, openclaw.NewestJSONL)
	}
}

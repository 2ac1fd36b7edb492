package audit_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/audit"
)

// aliases: the fixture catalog names store.corrupt for a store that parses but holds rows a
// gateway would drop; audit reports those rows as store.invalid-entry (the store itself is
// not lost, so it is a warning, not store.corrupt).
var aliases = map[string]string{"sessions_bad_entry.json": "store.invalid-entry"}

// TestFixtureCatalog audits every small fixture: the rules the catalog names fire, no other
// rule fires at error level, and the clean controls have no error or warning at all.
func TestFixtureCatalog(t *testing.T) {
	for _, fx := range fixtures.List {
		t.Run(fx.Name, func(t *testing.T) {
			data, err := fixtures.FS.ReadFile(fx.Name)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			opts := audit.Options{MaxLine: 1 << 20}
			var paths []string
			switch {
			case strings.HasSuffix(fx.Name, ".json"):
				paths = []string{filepath.Join(dir, "sessions.json")} // the store alone
				write(t, paths[0], data)
			case strings.HasSuffix(fx.Name, ".log"):
				opts.Logs = []string{filepath.Join(dir, fx.Name)}
				write(t, opts.Logs[0], data)
			default:
				paths = []string{filepath.Join(dir, fx.Name)}
				write(t, paths[0], data)
			}
			res, err := audit.Run(context.Background(), paths, opts, nil)
			if err != nil {
				t.Fatal(err)
			}
			fired := map[string]bool{}
			for _, f := range res.Findings {
				fired[f.Rule] = true
			}
			want := map[string]bool{}
			for _, r := range fx.Rules {
				if a, ok := aliases[fx.Name]; ok {
					r = a
				}
				want[r] = true
				if !fired[r] {
					t.Errorf("%s (%s): %s did not fire; got %v", fx.Name, fx.Defect, r, res.Findings)
				}
			}
			for _, f := range res.Findings {
				if want[f.Rule] || (f.Rule == "store.missing-transcript" && strings.HasSuffix(fx.Name, ".json")) {
					continue // a store fixture comes without its transcripts
				}
				if f.Severity == audit.Error || (fx.Clean() && f.Severity == audit.Warning) {
					t.Errorf("%s: unexpected %s %s at line %d: %s", fx.Name, f.Severity, f.Rule, f.Line, f.Message)
				}
			}
		})
	}
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

package commands

import (
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/lazyre"
)

// TestEveryPatternCompiles compiles every pattern the binary holds: they are compiled on first
// use (internal/lazyre), so a bad one would otherwise wait for its first user to panic. This
// package links every package of the binary, so All sees all of them.
func TestEveryPatternCompiles(t *testing.T) {
	all := lazyre.All()
	if len(all) < 80 {
		t.Fatalf("%d patterns registered: a package of the binary is not linked here", len(all))
	}
	for _, r := range all {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("pattern %q: %v", r.String(), p)
				}
			}()
			if r.Regexp() == nil {
				t.Errorf("pattern %q: no regexp", r.String())
			}
		}()
	}
}

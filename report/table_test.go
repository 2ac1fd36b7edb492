package report

import "testing"

// issue 33, scope 2: colour only on a terminal that shows it: NO_COLOR and TERM=dumb turn it
// off, and a console that refuses virtual-terminal sequences (Windows' legacy console) gets
// none; the console is only asked for a terminal.
func TestColorOn(t *testing.T) {
	for _, tc := range []struct {
		name          string
		noColor, term string
		terminal, vt  bool
		want, asked   bool
	}{
		{"terminal", "", "xterm-256color", true, true, true, true},
		{"NO_COLOR", "1", "xterm", true, true, false, false},
		{"dumb terminal", "", "dumb", true, true, false, false},
		{"pipe", "", "xterm", false, true, false, false},
		{"legacy Windows console", "", "", true, false, false, true},
	} {
		asked := false
		got := colorOn(tc.noColor, tc.term, tc.terminal, func() bool { asked = true; return tc.vt })
		if got != tc.want || asked != tc.asked {
			t.Errorf("%s: colour %v (console asked %v), want %v (%v)", tc.name, got, asked, tc.want, tc.asked)
		}
	}
}

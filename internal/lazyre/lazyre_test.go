package lazyre

import (
	"regexp"
	"strings"
	"testing"
)

// TestLazyIsRegexp: a pattern behaves as regexp.MustCompile's, compiles once, is registered,
// and a bad one panics on first use as MustCompile would.
func TestLazyIsRegexp(t *testing.T) {
	const expr = `^(\w+)-(\d+)$`
	r, want := New(expr), regexp.MustCompile(expr)
	for _, s := range []string{"abc-12", "abc-", "x-1\n", ""} {
		if r.MatchString(s) != want.MatchString(s) || strings.Join(r.FindStringSubmatch(s), "|") != strings.Join(want.FindStringSubmatch(s), "|") {
			t.Errorf("%q: lazy and compiled differ", s)
		}
	}
	if r.Regexp() != r.Regexp() {
		t.Error("compiled twice")
	}
	found := false
	for _, a := range All() {
		found = found || a == r
	}
	if !found {
		t.Error("not registered")
	}
	bad := New(`(`)
	defer func() {
		if recover() == nil {
			t.Error("a bad pattern did not panic on first use")
		}
	}()
	bad.MatchString("x")
}

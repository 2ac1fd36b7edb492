// Package lazyre holds regular expressions that are compiled on their first use, not when the
// program starts. The project has some eighty package-level patterns; compiled at start they
// were a third of every invocation's package initialisation (about 7 of 18 ms on the 2-core
// VM), paid by `clawdoctor --version` and by every one-file run in a CI loop, though one
// command needs a few of them.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regexp.Regexp compiled on first use. A pattern that does not compile panics
// then, as regexp.MustCompile would at start; TestEveryPatternCompiles (package commands,
// which links every package) compiles all of them, so none waits for its first use to fail.
type Regexp struct {
	expr string
	re   func() *regexp.Regexp
}

var (
	mu  sync.Mutex
	all []*Regexp
)

// New returns the pattern expr, compiled on first use.
func New(expr string) *Regexp {
	r := &Regexp{expr: expr, re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
	mu.Lock()
	all = append(all, r)
	mu.Unlock()
	return r
}

// All returns every pattern made by New so far (tests).
func All() []*Regexp {
	mu.Lock()
	defer mu.Unlock()
	return append([]*Regexp(nil), all...)
}

// Regexp returns the compiled pattern.
func (r *Regexp) Regexp() *regexp.Regexp { return r.re() }

// String returns the source text of the pattern.
func (r *Regexp) String() string { return r.expr }

func (r *Regexp) MatchString(s string) bool              { return r.re().MatchString(s) }
func (r *Regexp) FindString(s string) string             { return r.re().FindString(s) }
func (r *Regexp) FindStringSubmatch(s string) []string   { return r.re().FindStringSubmatch(s) }
func (r *Regexp) FindStringIndex(s string) []int         { return r.re().FindStringIndex(s) }
func (r *Regexp) FindStringSubmatchIndex(s string) []int { return r.re().FindStringSubmatchIndex(s) }
func (r *Regexp) FindAllString(s string, n int) []string { return r.re().FindAllString(s, n) }
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.re().FindAllStringSubmatch(s, n)
}
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.re().FindAllStringSubmatchIndex(s, n)
}
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int { return r.re().FindAllStringIndex(s, n) }
func (r *Regexp) ReplaceAllString(src, repl string) string   { return r.re().ReplaceAllString(src, repl) }
func (r *Regexp) ReplaceAllLiteralString(src, repl string) string {
	return r.re().ReplaceAllLiteralString(src, repl)
}
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.re().ReplaceAllStringFunc(src, repl)
}
func (r *Regexp) Split(s string, n int) []string { return r.re().Split(s, n) }
func (r *Regexp) Match(b []byte) bool            { return r.re().Match(b) }
func (r *Regexp) SubexpIndex(name string) int    { return r.re().SubexpIndex(name) }
func (r *Regexp) ReplaceAllFunc(src []byte, repl func([]byte) []byte) []byte {
	return r.re().ReplaceAllFunc(src, repl)
}

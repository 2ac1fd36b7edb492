// Package progress defines the Counter that long operations report to. The library owns the
// interface; the terminal bar lives in commands, so libraries never import progressbar.
package progress

// Counter receives progress of one long operation, usually in on-disk bytes. Add may be called
// from several goroutines at once (audit reads files side by side).
type Counter interface {
	SetTotal(n int64)
	Add(n int64)
	Done()
}

type noop struct{}

func (noop) SetTotal(int64) {}
func (noop) Add(int64)      {}
func (noop) Done()          {}

// Noop is a Counter that ignores everything; use it when no bar is shown.
var Noop Counter = noop{}

// OrNoop returns c, or Noop when c is nil, so libraries can accept a nil Counter.
func OrNoop(c Counter) Counter {
	if c == nil {
		return Noop
	}
	return c
}

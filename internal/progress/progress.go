// Package progress defines the Counter that long operations report to. The library owns the
// interface; the terminal bar lives in commands, so libraries never import progressbar.
package progress

import "io"

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

// Reader passes the bytes read from r on to c.Add.
func Reader(r io.Reader, c Counter) io.Reader { return reader{r, OrNoop(c)} }

type reader struct {
	r io.Reader
	c Counter
}

func (cr reader) Read(p []byte) (int, error) {
	n, err := cr.r.Read(p)
	cr.c.Add(int64(n))
	return n, err
}

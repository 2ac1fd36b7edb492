// Package memguard keeps a run from ending in an out-of-memory death: it watches the heap and
// stops the run, through its context, when the heap passes a cap, so that the command can
// unwind (temps removed, locks released) and say why with exit status 4. Every reader is
// bounded already (line caps, store caps, the inflate cap, replay's input cap); the guard is
// the net under them. The default cap is 60 % of the machine's memory.
package memguard

import (
	"context"
	"errors"
	"fmt"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// ErrOverMemory is the cause of a run the guard stopped.
var ErrOverMemory = errors.New("over the memory cap")

// OverError says how much memory the run held and under which cap.
type OverError struct {
	Used, Limit int64
}

func (e *OverError) Error() string {
	return fmt.Sprintf("stopped: the run held %d MiB of heap, over the cap of %d MiB (--max-memory; by default 60%% of this machine's memory): nothing more was read or written",
		e.Used>>20, e.Limit>>20)
}

func (e *OverError) Unwrap() error { return ErrOverMemory }

// limit is the cap in bytes; 0 means none.
var limit atomic.Int64

// DefaultLimit is 60 % of the machine's memory (Physical), or 4 GiB where it cannot be told,
// and never less than 512 MiB.
func DefaultLimit() int64 {
	p := Physical()
	if p <= 0 {
		return 4 << 30
	}
	return max(p/10*6, 512<<20)
}

// SetLimit sets the cap (bytes; 0 turns the guard off).
func SetLimit(n int64) { limit.Store(n) }

// Limit is the current cap.
func Limit() int64 { return limit.Load() }

func init() { limit.Store(DefaultLimit()) }

// Watch polls the heap every interval until ctx is done, and calls stop with an *OverError
// the first time the heap's objects pass the cap.
func Watch(ctx context.Context, interval time.Duration, stop func(error)) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		used := int64(sample[0].Value.Uint64())
		if l := limit.Load(); l > 0 && used > l {
			stop(&OverError{Used: used, Limit: l})
			return
		}
	}
}

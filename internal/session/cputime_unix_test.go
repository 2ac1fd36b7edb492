//go:build unix

package session_test

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user+system) this process has used. The machine is shared, so
// benchmarks also report CPU throughput, which load on other cores does not distort.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

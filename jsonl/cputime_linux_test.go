package jsonl_test

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadCPU is the CPU time of the calling OS thread (RUSAGE_THREAD). Benchmarks lock their
// goroutine to its thread and report MB per CPU second next to MB/s: on a machine shared with
// other jobs, wall time swings with the load while the CPU time of the work stays steady.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1, &ru); err != nil { // 1 = RUSAGE_THREAD
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuMeter measures the thread CPU time of a benchmark's loop; call stop after it.
func cpuMeter(b *testing.B) (stop func(bytesPerOp int64)) {
	runtime.LockOSThread()
	start := threadCPU()
	return func(bytesPerOp int64) {
		d := threadCPU() - start
		runtime.UnlockOSThread()
		if d > 0 {
			b.ReportMetric(float64(bytesPerOp)*float64(b.N)/1e6/d.Seconds(), "MB/cpu-s")
		}
	}
}

// processCPU is the CPU time of the whole process, all threads (RUSAGE_SELF).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// processMeter is cpuMeter for work spread over goroutines: MB per CPU second of the process.
func processMeter(b *testing.B) (stop func(bytesPerOp int64)) {
	start := processCPU()
	return func(bytesPerOp int64) {
		if d := processCPU() - start; d > 0 {
			b.ReportMetric(float64(bytesPerOp)*float64(b.N)/1e6/d.Seconds(), "MB/cpu-s")
		}
	}
}

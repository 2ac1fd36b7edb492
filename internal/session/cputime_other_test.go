//go:build !unix

package session_test

import "time"

// cpuTime is 0 where getrusage does not exist: the benchmarks then report no cpu-MB/s.
func cpuTime() time.Duration { return 0 }

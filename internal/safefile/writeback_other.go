//go:build !linux

package safefile

import "os"

// startWriteback does nothing where there is no sync_file_range: the fsync before the rename
// writes everything, as it always must.
func startWriteback(*os.File, int64, int64) {}

// canFlushAhead is false: without a writeback started ahead there is nothing to flush early
// (and macOS's F_FULLFSYNC, Go's Sync there, is too dear to run more than once).
const canFlushAhead = false

func flushAhead(*os.File) error { return nil }

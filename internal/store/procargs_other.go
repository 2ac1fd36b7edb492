//go:build !linux && !darwin && !windows

package store

import "errors"

// processArgs cannot read another process's argv here; OpenClaw reads none either, so a lock's
// holder is never judged by its command line.
func processArgs(int) ([]string, error) { return nil, errors.New("no process table on this system") }

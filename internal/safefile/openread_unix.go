//go:build !windows

package safefile

import (
	"os"
	"syscall"
)

// openRead opens path read-only without blocking (a FIFO's open would wait for a writer).
func openRead(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

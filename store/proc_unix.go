//go:build unix

package store

import (
	"errors"
	"syscall"
)

// pidAlive is kill(pid, 0): alive unless the process does not exist (EPERM means it exists
// but belongs to someone else).
func pidAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

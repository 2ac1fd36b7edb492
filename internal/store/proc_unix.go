//go:build unix

package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// pidAlive is kill(pid, 0): alive unless the process does not exist (EPERM means it exists
// but belongs to someone else) or, as OpenClaw's isPidAlive has it, is a zombie (it exited and
// nobody reaped it yet: a lock holder whose parent was killed stays one until init reaps it).
func pidAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	return !zombie(pid)
}

// zombie reads the state field of /proc/<pid>/stat; false where there is no /proc.
func zombie(pid int) bool {
	b, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

//go:build unix

package store_test

import "syscall"

func syscallMkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }

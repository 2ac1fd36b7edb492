//go:build !linux

package hugemem

import "unsafe"

// advise does nothing: the arrays stay plain. No other system has such advice for an
// unprivileged process (Windows' large pages need SeLockMemoryPrivilege).
func advise(unsafe.Pointer, uintptr) {}

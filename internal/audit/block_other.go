//go:build !linux

package audit

// tableBlock returns n zeroed slots for the id index (see block_linux.go).
func tableBlock(n int) []uint64 { return make([]uint64, n) }

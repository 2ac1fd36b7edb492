//go:build !linux

package audit

// hugePage is the size of a transparent huge page where block_linux.go asks for them; kept
// here so the index's tests compile on every OS (they check the alignment on Linux only).
const hugePage = 2 << 20

// tableBlock returns n zeroed slots for the id index (see block_linux.go).
func tableBlock(n int) []uint64 { return make([]uint64, n) }

package audit

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on the machines clawdoctor runs on.
const hugePage = 2 << 20

// tableBlock returns n zeroed slots for the id index. A block of several huge pages starts on
// a huge-page boundary and is advised to be held in huge pages: its slots are read at random,
// so with 4 KiB pages nearly every read of a table of millions of ids also missed the TLB
// (measured on the bench's 1 GiB transcript of tiny entries: the audit's CPU 5-7 % lower).
// The advice is only advice: where the kernel does not give huge pages, nothing changes.
func tableBlock(n int) []uint64 {
	if n*8 < 2*hugePage {
		return make([]uint64, n)
	}
	b := make([]uint64, n+hugePage/8)
	off := int((hugePage - uintptr(unsafe.Pointer(&b[0]))%hugePage) % hugePage / 8)
	b = b[off : off+n : off+n]
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), n*8), syscall.MADV_HUGEPAGE)
	return b
}

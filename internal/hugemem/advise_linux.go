package hugemem

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// advise asks for huge pages for [p, p+n), whole huge pages inside one Go array. An error (a
// kernel without transparent huge pages: EINVAL) leaves the memory as it was, which is correct.
func advise(p unsafe.Pointer, n uintptr) {
	_ = unix.Madvise(unsafe.Slice((*byte)(p), n), unix.MADV_HUGEPAGE)
}

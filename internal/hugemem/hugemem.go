// Package hugemem makes the few large, long-lived arrays of a streaming pass (a repair's read
// buffers, the members its scan collects, the hashes of every entry id) with the kernel asked
// to back them with huge pages.
//
// Why: the first touch of a 4 KiB page of fresh memory is a page fault. On the 2-core VM that
// measures our limits one costs 11 µs, and a 2 MiB huge page 0.25 µs per 4 KiB of it (measured
// with a loop touching 64 MiB); a 256 MiB repair took 5,600 faults, a tenth of its CPU, most of
// them for these arrays. Linux backs anonymous memory with huge pages only where madvise asks
// (transparent_hugepage=madvise, the common default) and the Go runtime asks for none of its
// heap. The advice changes nothing else: the arrays are ordinary Go memory, collected as any;
// the advice stays with their addresses, so what the runtime later puts there (once an array is
// collected) gets huge pages too, which costs at most a few MiB of memory more.
//
// Elsewhere (and where the kernel has no transparent huge pages) the arrays are plain.
package hugemem

import "unsafe"

// PageSize is the huge page the advice is for: 2 MiB on x86-64 and on arm64 with 4 KiB pages.
const PageSize = 2 << 20

// minAdvise is the least size advised: a smaller array does not fault enough to be worth the
// huge page it takes at least.
const minAdvise = PageSize

// Make is make([]T, n, c), advised when it is large: then the array is cut from a larger one
// so that it starts in the first whole huge page of it and ends in the last (an array of Go's
// heap starts at any 8 KiB; a 4 MiB one cut anywhere holds one whole huge page, not two). Memory
// the runtime hands out fresh from the OS is not touched by make, so the advice comes before
// the first fault; memory it reuses is already backed, and the advice is then harmless.
func Make[T any](n, c int) []T {
	size := int(unsafe.Sizeof(*new(T)))
	if size == 0 || c*size < minAdvise {
		return make([]T, n, c)
	}
	pages := (c*size + size + PageSize - 1) / PageSize // the pages the array may touch
	all := make([]T, ((pages+1)*PageSize+size-1)/size)
	p := unsafe.Pointer(unsafe.SliceData(all))
	skip := (PageSize - uintptr(p)%PageSize) % PageSize  // to the first aligned huge page
	k := int((skip + uintptr(size) - 1) / uintptr(size)) // the first element that starts in it
	advise(unsafe.Add(p, skip), uintptr(pages*PageSize))
	return all[k : k+n : k+c]
}

// Grow returns s with room for at least n more elements: s itself when it has it, else a copy
// in an array of twice the length needed, made by Make. Once that passes 128 KiB (a planner's
// entry ids do in a transcript of about 4 MiB) the array is made at least two huge pages
// large, so it is advised and the copies that follow fault once per 2 MiB, not per 4 KiB.
// Appending to s after Grow costs what append costs.
func Grow[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	size := int(unsafe.Sizeof(*new(T)))
	c := 2 * (len(s) + n)
	if size > 0 && c*size >= growHuge {
		c = max(c, 2*PageSize/size)
	}
	t := Make[T](len(s), c)
	copy(t, s)
	return t
}

// growHuge is the array size from which Grow goes to huge pages.
const growHuge = 128 << 10

package hugemem

import (
	"testing"
	"unsafe"
)

func TestGrow(t *testing.T) {
	for _, tc := range []struct {
		len, cap, n int
		wantCap     int // 0: s itself
	}{
		{0, 0, 1, 2},
		{3, 4, 1, 0},
		{4, 4, 1, 10},
		{4, 4, 3, 14},
		{growHuge/16 - 2, growHuge/16 - 2, 1, growHuge/8 - 2},   // a copy just under 128 KiB of uint64: plain doubling
		{growHuge/16 - 1, growHuge/16 - 1, 1, 2 * PageSize / 8}, // 128 KiB: two huge pages
		{PageSize / 2, PageSize / 2, 1, PageSize + 2},           // 4 MiB of them: twice the length
	} {
		s := make([]uint64, tc.len, tc.cap)
		for i := range s {
			s[i] = uint64(i)
		}
		g := Grow(s, tc.n)
		if tc.wantCap == 0 {
			if unsafe.SliceData(g) != unsafe.SliceData(s) {
				t.Errorf("Grow(len %d cap %d, %d) copied; want s itself", tc.len, tc.cap, tc.n)
			}
			continue
		}
		if cap(g) != tc.wantCap || len(g) != tc.len {
			t.Errorf("Grow(len %d cap %d, %d): len %d cap %d; want len %d cap %d", tc.len, tc.cap, tc.n, len(g), cap(g), tc.len, tc.wantCap)
		}
		for i := range g {
			if g[i] != uint64(i) {
				t.Fatalf("Grow(len %d): element %d is %d", tc.len, i, g[i])
			}
		}
	}
}

// TestMakeAligned: a large array from Make starts on a huge page boundary (for bytes, whose
// size divides the page), on every OS, so its pages are whole; a small one is plain make.
func TestMakeAligned(t *testing.T) {
	for _, n := range []int{PageSize, 3*PageSize + 5, 8 * PageSize} {
		b := Make[byte](n, n)
		if len(b) != n || cap(b) != n {
			t.Errorf("Make(%d): len %d cap %d", n, len(b), cap(b))
		}
		if p := uintptr(unsafe.Pointer(&b[0])); p%PageSize != 0 {
			t.Errorf("Make(%d) starts at %#x: not on a huge page", n, p)
		}
	}
	if s := Make[uint64](10, 20); len(s) != 10 || cap(s) != 20 {
		t.Errorf("small Make: len %d cap %d", len(s), cap(s))
	}
}

package hugemem

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
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

// TestMakeHugePages touches an array from Make and reads the kernel's account of it: on Linux
// with transparent huge pages offered to madvise, its whole aligned huge pages are huge.
func TestMakeHugePages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("advice is Linux's")
	}
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || bytes.Contains(mode, []byte("[never]")) {
		t.Skipf("no transparent huge pages here (%q, %v)", mode, err)
	}
	for _, advised := range []bool{true, false} {
		n := 8 * PageSize
		var b []byte
		if advised {
			b = Make[byte](n, n)
		} else {
			b = make([]byte, n)
		}
		for i := 0; i < n; i += 4096 {
			b[i] = 1
		}
		huge := hugeKiB(t, uintptr(unsafe.Pointer(&b[0])), uintptr(n))
		runtime.KeepAlive(b)
		switch {
		case advised && huge < n>>10:
			// Make cuts the array from whole huge pages: all of it is huge (cut anywhere in
			// the heap, 8 pages' worth would hold 7). The kernel falls back to small pages
			// only under memory pressure, which a quiet test machine does not have.
			t.Errorf("advised: %d KiB in huge pages; want all %d", huge, n>>10)
		case !advised && bytes.Contains(mode, []byte("[madvise]")) && huge != 0:
			t.Errorf("not advised, THP madvise mode: %d KiB in huge pages; want 0 (the test cannot tell advice apart)", huge)
		}
	}
}

// hugeKiB sums AnonHugePages of the mappings of /proc/self/smaps that overlap [p, p+n).
func hugeKiB(t *testing.T, p, n uintptr) int {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in, sum := false, 0
	for sc.Scan() {
		line := sc.Text()
		if fields := strings.Fields(line); len(fields) > 0 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			var lo, hi uintptr
			if _, err := fmt.Sscanf(fields[0], "%x-%x", &lo, &hi); err == nil {
				in = lo < p+n && p < hi
			}
			continue
		}
		if in && strings.HasPrefix(line, "AnonHugePages:") {
			v, _ := strconv.Atoi(strings.Fields(line)[1])
			sum += v
		}
	}
	return sum
}

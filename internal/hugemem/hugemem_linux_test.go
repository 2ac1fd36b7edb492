package hugemem

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// TestMakeHugePages touches an array from Make and reads the kernel's account of it: on Linux
// with transparent huge pages offered to madvise, it is held in huge pages, and a plain array
// beside it is not. (How much of it is huge is the kernel's to say: under memory pressure it
// falls back to small pages for some; none at all means the advice did not reach it.)
func TestMakeHugePages(t *testing.T) {
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
			// the control is a fresh mapping: heap memory may be where an advised array was
			// (the advice stays with the addresses)
			m, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
			if err != nil {
				t.Fatal(err)
			}
			defer syscall.Munmap(m)
			b = m
		}
		for i := 0; i < n; i += 4096 {
			b[i] = 1
		}
		huge := hugeKiB(t, uintptr(unsafe.Pointer(&b[0])), uintptr(n))
		runtime.KeepAlive(b)
		switch {
		case advised && huge == 0:
			t.Errorf("advised: no huge pages; want most of its %d KiB", n>>10)
		case advised && huge < n>>10:
			t.Logf("advised: %d KiB of %d in huge pages (the kernel fell back for the rest)", huge, n>>10)
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

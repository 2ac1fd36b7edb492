package jsonl

import (
	"bytes"
	"strings"
	"testing"
)

// refStop is the byte loop the AVX2 scan replaces: the first '"', '\\' or control byte.
func refStop(b []byte) int {
	for i, c := range b {
		if c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return len(b)
}

// checkStops holds the AVX2 scan to refStop on b.
func checkStops(t *testing.T, b []byte) {
	t.Helper()
	if len(b) < 32 {
		return
	}
	if got, want := indexStopAVX2(b), refStop(b); got != want {
		t.Fatalf("indexStopAVX2(%q) = %d, want %d", b, got, want)
	}
}

// Every stop byte at every place of every length from one block to a few past two (the 64-byte
// loop, the 32-byte loop, the overlapping last block), and none at all.
func TestIndexStopEveryPlace(t *testing.T) {
	if !haveStopAVX2 {
		t.Skip("no AVX2 on this machine: the scans are the Go loops")
	}
	stops := []byte{'"', '\\', 0, 0x01, 0x1f}
	plain := []byte{' ', '!', '#', '[', ']', '~', 0x7f, 0x80, 0xc3, 0xff}
	for n := 32; n < 200; n++ {
		b := bytes.Repeat([]byte{'a'}, n)
		for k := range b {
			b[k] = plain[k%len(plain)]
		}
		checkStops(t, b)
		for p := 0; p < n; p++ {
			for _, c := range stops {
				keep := b[p]
				b[p] = c
				checkStops(t, b)
				if p+1 < n { // a later stop must not hide the first
					b[n-1] = '"'
					checkStops(t, b)
					b[n-1] = plain[(n-1)%len(plain)]
				}
				b[p] = keep
			}
		}
	}
}

func FuzzIndexStop(f *testing.F) {
	f.Add([]byte(strings.Repeat("abc", 30) + `"`))
	f.Add([]byte(strings.Repeat("é", 40)))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !haveStopAVX2 {
			t.Skip("no AVX2")
		}
		for i := 0; i < len(b) && i < 70; i++ {
			checkStops(t, b[i:])
		}
	})
}

// FuzzStringScansAgree holds the string scan with AVX2 equal to the Go loops (the scan of
// machines without it) on every input and every start: same end, escapes and message.
func FuzzStringScansAgree(f *testing.F) {
	f.Add([]byte(`"` + strings.Repeat(`a\"b\u00e9 日本 🚀 `, 20) + `"`))
	f.Add([]byte(`"` + strings.Repeat("x", 100) + "\x01" + `"`))
	f.Add([]byte(`"` + strings.Repeat("é", 40) + "\xff" + strings.Repeat("y", 40) + `"`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !haveStopAVX2 {
			t.Skip("no AVX2")
		}
		defer func() { haveStopAVX2 = true }()
		for i := 0; i <= len(b) && i < 40; i++ {
			haveStopAVX2 = true
			e1, c1, m1 := scanString(b, i)
			haveStopAVX2 = false
			e2, c2, m2 := scanString(b, i)
			if e1 != e2 || c1 != c2 || m1 != m2 {
				t.Fatalf("scanString(%q, %d): AVX2 %d %d %q, Go %d %d %q", b, i, e1, c1, m1, e2, c2, m2)
			}
		}
	})
}

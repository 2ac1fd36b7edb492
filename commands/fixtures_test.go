package commands

import "testing"

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1GiB", 1 << 30, true},
		{"64MiB", 64 << 20, true},
		{"500KB", 500_000, true},
		{"1.5GB", 1_500_000_000, true},
		{"200k", 200 << 10, true},
		{"12345", 12345, true},
		{" 2 MiB ", 2 << 20, true},
		{"12parsecs", 0, false},
		{"", 0, false},
		{"-3MiB", 0, false},
		{"MiB", 0, false},
		{"99999999999999999999GiB", 0, false},
	} {
		got, err := ParseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// FuzzParseSize: no panic, and an accepted size is never negative or beyond 2^60.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"1GiB", "500KB", "1.5", "12parsecs", "", "9e9", "1..2MiB", "0.0000001KB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err == nil && (n < 0 || n > 1<<60) {
			t.Fatalf("ParseSize(%q) = %d", s, n)
		}
	})
}

//go:build !linux

package dbhealth

// statfsType: only Linux's f_type numbers are the magics OpenClaw compares (elsewhere it reads
// the mount table).
func statfsType(string) (int64, bool) { return 0, false }

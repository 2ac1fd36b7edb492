//go:build !linux && !darwin && !windows

package memguard

// Physical is 0 here: the machine's memory is not read (DefaultLimit is then 4 GiB).
func Physical() int64 { return 0 }

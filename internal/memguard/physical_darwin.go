package memguard

import "golang.org/x/sys/unix"

// Physical is the machine's memory in bytes (sysctl hw.memsize); 0 when unknown.
func Physical() int64 {
	n, err := unix.SysctlUint64("hw.memsize")
	if err != nil {
		return 0
	}
	return int64(n)
}

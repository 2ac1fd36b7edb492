package dbhealth

import "golang.org/x/sys/unix"

// statfsType is statfs(2)'s f_type, the number OpenClaw compares with the network magics.
func statfsType(path string) (int64, bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, false
	}
	return int64(st.Type), true
}

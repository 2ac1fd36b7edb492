package store

// processArgs reads a lock holder's argv as OpenClaw does on Linux: /proc/<pid>/cmdline.
func processArgs(pid int) ([]string, error) { return procCmdline(pid) }

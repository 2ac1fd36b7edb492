package store

import (
	"context"
	"os/exec"
	"strconv"
	"time"
)

// processArgs reads a lock holder's argv as OpenClaw does on macOS, which has no /proc:
// `ps -o command= -p PID` (1 s at most), split at white space (SplitPSCommand).
func processArgs(pid int) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "ps", "-o", "command=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return nil, err
	}
	return SplitPSCommand(string(out)), nil
}

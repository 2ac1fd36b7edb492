//go:build windows

package harness

import (
	"os/exec"
	"strconv"
)

// setGroup does nothing on Windows: KillGroup kills the process tree instead.
func setGroup(*exec.Cmd) {}

// KillGroup kills cmd and every process it started (taskkill /T), the wrapper's node child
// included (see Command).
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(cmd.Process.Pid)).Run(); err != nil {
		return cmd.Process.Kill()
	}
	return nil
}

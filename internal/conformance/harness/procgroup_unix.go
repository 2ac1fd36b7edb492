//go:build unix

package harness

import (
	"os/exec"
	"syscall"
)

// setGroup puts cmd in a process group of its own (see Command).
func setGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// KillGroup kills cmd's process group (see Command).
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

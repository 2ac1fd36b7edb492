package store

import (
	"errors"

	"golang.org/x/sys/windows"
)

// stillActive is GetExitCodeProcess's answer for a process that has not exited (STILL_ACTIVE).
const stillActive = 259

// pidAlive is what Node's process.kill(pid, 0) asks on Windows, OpenClaw's isPidAlive: the
// process can be opened and has not exited. A process that cannot be opened for want of rights
// exists and counts as alive (Node says EPERM and OpenClaw dead: the cautious side here, as
// EPERM is on unix).
func pidAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return !errors.Is(err, windows.ERROR_INVALID_PARAMETER) // no such process
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == stillActive
}

package repair

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// lockStaleAfter is OpenClaw's default session.writeLock.staleMs (store.md §6.1).
const lockStaleAfter = 30 * time.Minute

// liveLock reports whether path has a "<path>.lock" held by a live process, with a reason.
// The rules follow store.md §6.3: a lock is stale when its pid is missing or dead, its
// recorded start time differs from the process's (a reused pid), its createdAt is missing or
// older than 30 minutes. A lock without a readable payload that is younger than 5 s is treated
// as live (its owner may be between create and write).
func liveLock(path string, now time.Time) (bool, string) {
	lp := path + ".lock"
	st, err := os.Stat(lp)
	if err != nil {
		return false, ""
	}
	data, err := os.ReadFile(lp)
	if err != nil {
		return true, fmt.Sprintf("lock %s unreadable: %v", lp, err)
	}
	var payload struct {
		PID       json.Number `json:"pid"`
		CreatedAt string      `json:"createdAt"`
		StartTime json.Number `json:"starttime"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&payload); err != nil || payload.PID == "" {
		if now.Sub(st.ModTime()) < 5*time.Second {
			return true, "lock file without payload, just created"
		}
		return false, ""
	}
	pid, err := strconv.Atoi(payload.PID.String())
	if err != nil || pid <= 0 {
		return false, ""
	}
	if !pidAlive(pid) {
		return false, ""
	}
	if payload.StartTime != "" {
		if st, ok := procStartTime(pid); ok && st != payload.StartTime.String() {
			return false, ""
		}
	}
	created, err := time.Parse(time.RFC3339Nano, payload.CreatedAt)
	if err != nil || now.Sub(created) > lockStaleAfter {
		return false, ""
	}
	return true, fmt.Sprintf("locked by live process %d since %s", pid, payload.CreatedAt)
}

func pidAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// procStartTime reads field 22 of /proc/<pid>/stat (Linux only).
func procStartTime(pid int) (string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", false
	}
	f := strings.Fields(s[i+1:])
	// fields after ")" start at field 3 (state); starttime is field 22.
	if len(f) < 20 {
		return "", false
	}
	return f[19], true
}

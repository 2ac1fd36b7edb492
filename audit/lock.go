package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// lockStaleMs is OpenClaw's default session.writeLock.staleMs (store.md §6.1); the env knob
// OPENCLAW_SESSION_WRITE_LOCK_STALE_MS overrides it as it does for the gateway.
const lockStaleMs = 30 * 60 * 1000

func staleAfter() time.Duration {
	if v, err := strconv.ParseFloat(os.Getenv("OPENCLAW_SESSION_WRITE_LOCK_STALE_MS"), 64); err == nil && v > 0 {
		return time.Duration(v) * time.Millisecond
	}
	return lockStaleMs * time.Millisecond
}

// lockState inspects one lock file with the staleness rules of store.md §6.3. live is true
// when an owner process is alive and the lock is recent; reasons says why it is stale.
func lockState(path string, now time.Time) (live bool, reasons []string, ev map[string]any) {
	ev = map[string]any{}
	st, err := os.Lstat(path)
	if err != nil {
		return false, []string{"unreadable"}, ev
	}
	ev["mtime"] = st.ModTime().UTC().Format(time.RFC3339)
	data, err := os.ReadFile(path)
	if err != nil {
		return false, []string{"unreadable"}, ev
	}
	if filepath.Base(path) == "sessions.json.lock" { // phase A/B store lock: stale after 30 s
		if now.Sub(st.ModTime()) > 30*time.Second {
			return false, []string{"too-old"}, ev
		}
		return true, nil, ev
	}
	var p struct {
		PID       any    `json:"pid"`
		CreatedAt string `json:"createdAt"`
		StartTime any    `json:"starttime"`
	}
	_ = json.Unmarshal(data, &p)
	pid := 0
	if f, ok := p.PID.(float64); ok && f > 0 && f == float64(int(f)) {
		pid = int(f)
	}
	if pid == 0 {
		reasons = append(reasons, "missing-pid")
	} else {
		ev["pid"] = pid
		switch alive, start := processAlive(pid); {
		case !alive:
			reasons = append(reasons, "dead-pid")
		default:
			if f, ok := p.StartTime.(float64); ok && start != "" && strconv.FormatInt(int64(f), 10) != start {
				reasons = append(reasons, "recycled-pid")
			}
		}
	}
	created, err := time.Parse(time.RFC3339Nano, p.CreatedAt)
	if err != nil {
		reasons = append(reasons, "invalid-createdAt")
	} else {
		ev["createdAt"] = p.CreatedAt
		if age := now.Sub(created); age > staleAfter() {
			reasons = append(reasons, "too-old")
			ev["ageSeconds"] = int64(age.Seconds())
		}
	}
	// a lock without payload is kept for a grace period: the writer may be between create and write
	if len(reasons) > 0 && onlyPayloadReasons(reasons) && now.Sub(st.ModTime()) < 30*time.Second {
		return true, nil, ev
	}
	return len(reasons) == 0, reasons, ev
}

func onlyPayloadReasons(rs []string) bool {
	for _, r := range rs {
		if r != "missing-pid" && r != "invalid-createdAt" {
			return false
		}
	}
	return true
}

// processAlive reports whether pid exists, and its start time (field 22 of /proc/<pid>/stat)
// when readable.
func processAlive(pid int) (bool, string) {
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false, ""
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true, ""
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		f := strings.Fields(s[i+1:])
		if len(f) > 19 {
			return true, f[19] // field 22 overall: fields after "pid (comm)" start at field 3
		}
	}
	return true, ""
}

// checkLock reports one lock file as lock.live or lock.stale.
func checkLock(path string, now time.Time, add func(Finding)) {
	live, reasons, ev := lockState(path, now)
	target := strings.TrimSuffix(filepath.Base(path), ".lock")
	if live {
		add(newFinding("lock.live", path, 0, "", fmt.Sprintf("%s is locked by a live process (pid %v): a gateway or agent is writing it now; do not repair or clean this sessions dir until it stops", target, ev["pid"]), ev))
		return
	}
	ev["reasons"] = reasons
	add(newFinding("lock.stale", path, 0, "", fmt.Sprintf("lock on %s is stale (%s): its owner is gone, and OpenClaw waits up to 60 s on it before taking over. Run: clawdoctor cleanup --dry-run", target, strings.Join(reasons, ", ")), ev))
}

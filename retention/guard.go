package retention

import (
	"bytes"
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

// ErrSQLiteEra is returned for an agent whose sessions live in SQLite (OpenClaw 2026.8+):
// sessions.json is migration input there, not the live store.
var ErrSQLiteEra = errors.New("agent store is SQLite-backed; run `openclaw sessions cleanup` instead")

// ErrGatewayLive is returned when a gateway seems to hold the store (use --force to override).
var ErrGatewayLive = errors.New("a running gateway holds this store")

// SQLiteEra reports whether the agent of sessionsDir has moved to SQLite: an
// agent/openclaw-agent.sqlite beside the sessions dir or a session-sqlite-import-archive in it.
func SQLiteEra(sessionsDir string) (string, bool) {
	for _, p := range []string{
		filepath.Join(filepath.Dir(sessionsDir), "agent", "openclaw-agent.sqlite"),
		filepath.Join(sessionsDir, "session-sqlite-import-archive"),
	} {
		if _, err := os.Lstat(p); err == nil {
			return p, true
		}
	}
	return "", false
}

// LiveLock describes a lock that a live process holds.
type LiveLock struct {
	Path   string
	PID    int
	Reason string
}

// LiveLocks lists *.lock files in sessionsDir whose pid is alive (and, when the payload has
// one, whose /proc start time matches) and which are younger than staleMs (§6.3).
func LiveLocks(sessionsDir string, now time.Time, staleMs int64) []LiveLock {
	ents, _ := os.ReadDir(sessionsDir)
	var out []LiveLock
	for _, de := range ents {
		if !strings.HasSuffix(de.Name(), ".lock") || !de.Type().IsRegular() {
			continue
		}
		p := filepath.Join(sessionsDir, de.Name())
		data, err := os.ReadFile(p)
		if err != nil || len(data) > 1<<16 {
			continue
		}
		var payload struct {
			PID       int    `json:"pid"`
			CreatedAt string `json:"createdAt"`
			StartedAt int64  `json:"startedAt"`
			StartTime *int64 `json:"starttime"`
		}
		if json.Unmarshal(data, &payload) != nil || payload.PID <= 0 || !pidAlive(payload.PID) {
			continue
		}
		if payload.StartTime != nil {
			if st, ok := procStartTime(payload.PID); ok && st != *payload.StartTime {
				continue // recycled pid
			}
		}
		created := time.UnixMilli(payload.StartedAt)
		if t, err := time.Parse(time.RFC3339Nano, payload.CreatedAt); err == nil {
			created = t
		} else if payload.StartedAt == 0 {
			continue // invalid createdAt: stale
		}
		if now.Sub(created) > time.Duration(staleMs)*time.Millisecond {
			continue
		}
		out = append(out, LiveLock{Path: p, PID: payload.PID, Reason: fmt.Sprintf("pid %d alive, lock %s old", payload.PID, now.Sub(created).Round(time.Second))})
	}
	return out
}

func pidAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func procStartTime(pid int) (int64, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 20 {
		return 0, false
	}
	v, err := strconv.ParseInt(f[19], 10, 64)
	return v, err == nil
}

// RunningGateway looks for an OpenClaw gateway process in /proc (argv naming openclaw and
// gateway). It returns the pid, or 0.
func RunningGateway() int {
	procs, _ := os.ReadDir("/proc")
	self := os.Getpid()
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == self {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if err != nil || len(data) == 0 {
			continue
		}
		args := strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
		oc, gw := false, false
		for _, a := range args {
			b := filepath.Base(a)
			if b == "openclaw" || b == "openclaw.mjs" || b == "openclaw-gateway" {
				oc = true
			}
			if a == "gateway" || b == "openclaw-gateway" {
				gw = true
			}
		}
		if oc && gw {
			return pid
		}
	}
	return 0
}

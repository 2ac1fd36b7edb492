package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// procRoot is the proc filesystem; tests may point it elsewhere.
var procRoot = "/proc"

// procStartTime returns field 22 of /proc/<pid>/stat, the process start time in clock ticks
// since boot (what OpenClaw stores as a lock's "starttime"). It fails where there is no /proc.
func procStartTime(pid int) (int64, error) {
	b, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces or ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command field", pid)
	}
	fields := strings.Fields(string(b[i+1:]))
	const idx = 22 - 3 // fields after ')' start at field 3
	if len(fields) <= idx {
		return 0, fmt.Errorf("/proc/%d/stat: only %d fields", pid, len(fields)+2)
	}
	return strconv.ParseInt(fields[idx], 10, 64)
}

// procCmdline returns the argv of pid from /proc/<pid>/cmdline.
func procCmdline(pid int) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return nil, err
	}
	b = bytes.TrimRight(b, "\x00")
	if len(b) == 0 {
		return nil, nil
	}
	return strings.Split(string(b), "\x00"), nil
}

// procEnv returns one variable of pid's environment ("" and false when unreadable or unset).
func procEnv(pid int, name string) (string, bool, error) {
	b, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "environ"))
	if err != nil {
		return "", false, err
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if k, v, ok := bytes.Cut(kv, []byte{'='}); ok && string(k) == name {
			return string(v), true, nil
		}
	}
	return "", false, nil
}

// Gateway is a running OpenClaw gateway process.
type Gateway struct {
	PID  int      `json:"pid"`
	Args []string `json:"args"`
	// StateDir is the state dir the process uses, "" when its environment is unreadable.
	StateDir string `json:"state_dir,omitempty"`
}

// Gateways scans /proc for OpenClaw gateway processes (an OpenClaw command line with a
// "gateway" argument, or the openclaw-gateway executable) whose state dir is stateDir or cannot be read (the cautious side). It
// returns nil where there is no /proc. The cleanup and repair commands refuse to write while
// one runs.
func Gateways(stateDir string) ([]Gateway, error) {
	ents, err := os.ReadDir(procRoot)
	if err != nil {
		return nil, nil
	}
	want, _ := filepath.Abs(stateDir)
	var out []Gateway
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		argv, err := procCmdline(pid)
		if err != nil || !LooksLikeOpenClaw(argv) || !(hasArg(argv, "gateway") || filepath.Base(argv[0]) == "openclaw-gateway") {
			continue
		}
		g := Gateway{PID: pid, Args: argv, StateDir: procStateDir(pid)}
		if g.StateDir == "" || stateDir == "" || filepath.Clean(g.StateDir) == want {
			out = append(out, g)
		}
	}
	return out, nil
}

func hasArg(argv []string, a string) bool {
	for _, x := range argv[min(1, len(argv)):] {
		if x == a {
			return true
		}
	}
	return false
}

// procStateDir works out a process's state dir from its environment as OpenClaw would
// (OPENCLAW_STATE_DIR, CLAWDBOT_STATE_DIR, then <home>/.openclaw or an existing legacy dir).
func procStateDir(pid int) string {
	for _, name := range []string{"OPENCLAW_STATE_DIR", "CLAWDBOT_STATE_DIR"} {
		v, ok, err := procEnv(pid, name)
		if err != nil {
			return ""
		}
		if ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	home, ok, _ := procEnv(pid, "OPENCLAW_HOME")
	if !ok || home == "" {
		home, ok, _ = procEnv(pid, "HOME")
	}
	if !ok || home == "" {
		return ""
	}
	def := filepath.Join(home, ".openclaw")
	if _, err := os.Stat(def); err == nil {
		return def
	}
	for _, legacy := range []string{".clawdbot", ".moldbot", ".moltbot"} {
		if p := filepath.Join(home, legacy); func() bool { _, err := os.Stat(p); return err == nil }() {
			return p
		}
	}
	return def
}

// PIDAlive reports whether a process exists (kill(pid, 0); EPERM counts as alive). Where
// processes cannot be probed (not unix) it answers true, the cautious side.
func PIDAlive(pid int) bool { return pid > 0 && pidAlive(pid) }

// ProcStartTime returns a process's start time in clock ticks since boot (field 22 of
// /proc/<pid>/stat, OpenClaw's lock "starttime"); it fails where there is no /proc.
func ProcStartTime(pid int) (int64, error) { return procStartTime(pid) }

// ProcessArgs is the command line of pid, as the process table has it.
func ProcessArgs(pid int) ([]string, error) { return processArgs(pid) }

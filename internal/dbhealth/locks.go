package dbhealth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

// GatewayLock is one gateway lock of the state dir: <state>/tmp/openclaw-<uid>/gateway.*.lock,
// a JSON payload {pid, createdAt, configPath, port, role, stateDir, startTime} (2026.9.6,
// src/infra/gateway-lock.ts).
type GatewayLock struct {
	Path      string `json:"path"`
	PID       int    `json:"pid,omitempty"`
	Role      string `json:"role,omitempty"`
	Port      int    `json:"port,omitempty"`
	CreatedAt string `json:"createdAt,omitempty"`
	// Owner is OpenClaw's verdict on the pid (resolveGatewayOwnerStatus): alive, dead or
	// unknown (the command line could not be read).
	Owner   string `json:"owner"`
	Problem string `json:"problem,omitempty"` // the payload does not parse
}

// Coordinator is one SQLite lock file OpenClaw's processes hold while they own a state dir's
// database (/tmp/openclaw-state-locks-<uid>/<family>.<hash>.lock.sqlite): held by a live
// process, or left behind (harmless: OpenClaw takes it again).
type Coordinator struct {
	Path   string `json:"path"`
	Family string `json:"family"`
	// Ours: its hash is that of this state dir's database or agent database path.
	Ours bool `json:"ours"`
	// HeldBy is the pid holding its lock (0: nobody; -1: held, the pid unknown).
	HeldBy int `json:"heldBy,omitempty"`
}

// gatewayLocks reads the gateway locks of stateDir.
func gatewayLocks(stateDir string, opts Options) []GatewayLock {
	dirs, _ := filepath.Glob(filepath.Join(stateDir, "tmp", "openclaw*"))
	var out []GatewayLock
	for _, d := range dirs {
		names, _ := filepath.Glob(filepath.Join(d, "gateway.*lock"))
		sort.Strings(names)
		for _, p := range names {
			out = append(out, readGatewayLock(p, opts))
		}
	}
	return out
}

func readGatewayLock(p string, opts Options) GatewayLock {
	l := GatewayLock{Path: p, Owner: "dead"}
	b, err := os.ReadFile(p)
	if err != nil {
		l.Problem = err.Error()
		return l
	}
	var payload struct {
		PID       *float64 `json:"pid"`
		CreatedAt string   `json:"createdAt"`
		Port      float64  `json:"port"`
		Role      string   `json:"role"`
		StartTime *float64 `json:"startTime"`
	}
	if err := json.Unmarshal(b, &payload); err != nil || payload.PID == nil {
		l.Problem = "the payload is not a gateway lock (no pid)"
		return l
	}
	l.PID, l.CreatedAt, l.Port, l.Role = int(*payload.PID), payload.CreatedAt, int(payload.Port), payload.Role
	var start int64
	if payload.StartTime != nil {
		start = int64(*payload.StartTime)
	}
	if opts.Alive == nil {
		l.Owner = "unknown"
		return l
	}
	l.Owner = ownerStatus(l.PID, l.Role, start, payload.StartTime != nil, opts.Alive, opts.StartTime, opts.Args)
	return l
}

// ownerStatus is resolveGatewayOwnerStatus of 2026.9.6.
func ownerStatus(pid int, role string, startTime int64, hasStart bool, alive func(int) bool, start func(int) (int64, error), argv func(int) ([]string, error)) string {
	if role == "" {
		role = "gateway"
	}
	if !alive(pid) {
		return "dead"
	}
	if hasStart && start != nil {
		if cur, err := start(pid); err == nil {
			if cur == startTime {
				return "alive"
			}
			return "dead"
		}
	}
	var args []string
	err := errors.New("no process table")
	if argv != nil {
		args, err = argv(pid)
	}
	switch role {
	case "agent-embedded", "sqlite-maintenance", "skill-workshop-apply":
		if err != nil || len(args) == 0 {
			return "unknown"
		}
		switch role {
		case "agent-embedded":
			return aliveIf(isOpenClawArgv(args))
		case "sqlite-maintenance":
			return aliveIf(isOpenClawCommandArgv(args, "doctor"))
		}
		return aliveIf(isOpenClawCommandArgv(args, "skills"))
	}
	if err != nil || len(args) == 0 {
		if runtime.GOOS == "linux" {
			return "unknown"
		}
		return "alive"
	}
	return aliveIf(isGatewayArgv(args, true))
}

func aliveIf(b bool) string {
	if b {
		return "alive"
	}
	return "dead"
}

// The argv rules of src/infra/gateway-process-argv.ts (2026.9.6).
var entryCandidates = []string{"dist/index.js", "dist/entry.js", "openclaw.mjs", "scripts/run-node.mjs", "src/entry.ts", "src/index.ts"}

func normalizeProcArg(a string) string { return strings.ToLower(strings.ReplaceAll(a, `\`, "/")) }

func trimExe(exe string) string {
	for _, ext := range []string{".bat", ".cmd", ".exe"} {
		if strings.HasSuffix(exe, ext) {
			return strings.TrimSuffix(exe, ext)
		}
	}
	return exe
}

func isOpenClawArgv(args []string) bool {
	n := make([]string, len(args))
	for i, a := range args {
		n[i] = normalizeProcArg(a)
	}
	for _, a := range n {
		for _, e := range entryCandidates {
			if strings.HasSuffix(a, e) {
				return true
			}
		}
	}
	exe := ""
	if len(n) > 0 {
		exe = trimExe(n[0])
	}
	return strings.HasSuffix(exe, "/openclaw") || exe == "openclaw"
}

func isOpenClawCommandArgv(args []string, command string) bool {
	c := normalizeProcArg(command)
	for _, a := range args {
		if normalizeProcArg(a) == c {
			return isOpenClawArgv(args)
		}
	}
	return false
}

func isGatewayArgv(args []string, allowBinary bool) bool {
	exe := ""
	if len(args) > 0 {
		exe = trimExe(normalizeProcArg(args[0]))
	}
	binary := strings.HasSuffix(exe, "/openclaw-gateway") || exe == "openclaw-gateway"
	if !isOpenClawCommandArgv(args, "gateway") {
		return allowBinary && binary
	}
	return true
}

// coordinatorDir is where OpenClaw keeps its lifecycle coordinators (runtime directory
// /tmp, or %LOCALAPPDATA%\OpenClaw\locks on Windows; openclaw-state-locks-<uid>).
func coordinatorDir() string {
	if runtime.GOOS == "windows" {
		home, _ := os.UserHomeDir()
		return filepath.Join(home, "AppData", "Local", "OpenClaw", "locks", "openclaw-state-locks")
	}
	return filepath.Join("/tmp", "openclaw-state-locks-"+strconv.Itoa(os.Getuid()))
}

// hash8 is sha256HexPrefixCore(path, 8) of the path as resolveCoordinatorIdentityPath makes
// it: absolute, its symlinks resolved, through the nearest existing ancestor when it does not
// exist yet.
func hash8(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	rest := ""
	for cur := p; ; {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			p = filepath.Join(real, rest)
			break
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			break
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
	s := sha256.Sum256([]byte(p))
	return hex.EncodeToString(s[:])[:8]
}

// coordinators lists the coordinator files of dir, which are held and by whom, and which
// belong to the databases given.
func coordinators(dir string, databases ...string) []Coordinator {
	ours := map[string]bool{}
	for _, d := range databases {
		ours[hash8(d)] = true
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.lock.sqlite"))
	sort.Strings(names)
	var out []Coordinator
	for _, p := range names {
		base := strings.TrimSuffix(filepath.Base(p), ".lock.sqlite")
		family, hash, _ := strings.Cut(base, ".")
		c := Coordinator{Path: p, Family: family, Ours: ours[hash], HeldBy: lockHolder(p)}
		if c.Ours || c.HeldBy > 0 || c.HeldBy == -1 {
			out = append(out, c) // left-behind files of other state dirs say nothing
		}
	}
	return out
}

// Package dbhealth says whether an agent's SQLite database (OpenClaw 2026.8+) is safe to touch
// now: its write-ahead log and index (size, frames, a checkpoint a reader starves, a -wal or
// -shm of another database), the gateway locks of the state dir and the lifecycle coordinators
// OpenClaw's processes hold, and the file system under it as OpenClaw judges it. It reads
// files and asks the kernel who holds a lock; it never opens the database for writing, never
// takes a lock.
package dbhealth

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Report is the state of one agent database.
type Report struct {
	DB           string        `json:"db"`
	WAL          WAL           `json:"wal"`
	SHM          SHM           `json:"shm"`
	Starved      string        `json:"checkpointStarved,omitempty"`
	Foreign      string        `json:"foreign,omitempty"`
	Gateways     []GatewayLock `json:"gatewayLocks,omitempty"`
	Coordinators []Coordinator `json:"coordinators,omitempty"`
	FS           FS            `json:"fileSystem"`
	// CanRun says whether OpenClaw's maintenance commands (doctor --session-sqlite, sessions
	// cleanup, compact) can run now; Verdict is the one line that says so and why.
	CanRun  bool   `json:"canRun"`
	Verdict string `json:"verdict"`
	// Severity is info (fine, or only busy), warning (a starved checkpoint) or error (a -wal
	// of another database, SSHFS).
	Severity string `json:"severity"`
}

// Options say where to look and how to read the process table.
type Options struct {
	CoordinatorDir string // default: OpenClaw's (/tmp/openclaw-state-locks-<uid>)
	// Alive, StartTime and Args read the process table (store.PIDAlive, store.ProcStartTime,
	// store.ProcessArgs); with Alive nil a gateway lock's owner is "unknown".
	Alive     func(pid int) bool
	StartTime func(pid int) (int64, error)
	Args      func(pid int) ([]string, error)
}

// Inspect reports on the agent database at db of the state dir stateDir.
func Inspect(stateDir, db string, opts Options) Report {
	r := Report{DB: db}
	pageSize := 0
	if b, err := readHead(db); err == nil {
		pageSize = int(binary.BigEndian.Uint16(b[16:18]))
		if pageSize == 1 {
			pageSize = 65536
		}
	}
	r.WAL = readWAL(db+"-wal", pageSize)
	r.SHM = readSHM(db + "-shm")
	r.Starved = starved(r.WAL, r.SHM)
	r.Foreign = foreign(r.WAL, r.SHM)
	r.Gateways = gatewayLocks(stateDir, opts)
	dir := opts.CoordinatorDir
	if dir == "" {
		dir = coordinatorDir()
	}
	r.Coordinators = coordinators(dir, db, filepath.Join(stateDir, "state", "openclaw.sqlite"), stateDir)
	r.FS = FileSystem(db)
	r.verdict()
	return r
}

func readHead(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, 100)
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, err
	}
	if string(b[:16]) != "SQLite format 3\x00" {
		return nil, fmt.Errorf("not a SQLite database")
	}
	return b, nil
}

// verdict sets CanRun, Severity and the one line.
func (r *Report) verdict() {
	r.CanRun, r.Severity = true, "info"
	var busy []string
	for _, g := range r.Gateways {
		if g.Owner == "alive" {
			what := "a gateway"
			if g.Role != "" && g.Role != "gateway" {
				what = "an OpenClaw " + g.Role + " process"
			}
			s := fmt.Sprintf("%s (pid %d", what, g.PID)
			if g.Port > 0 {
				s += fmt.Sprintf(", port %d", g.Port)
			}
			busy = append(busy, s+") holds "+filepath.Base(g.Path))
		}
	}
	for _, c := range r.Coordinators {
		if c.Ours && c.HeldBy != 0 && c.HeldBy != -2 {
			who := "a process"
			if c.HeldBy > 0 {
				who = fmt.Sprintf("pid %d", c.HeldBy)
			}
			busy = append(busy, fmt.Sprintf("%s holds the %s coordinator", who, c.Family))
		}
	}
	var lines []string
	switch r.FS.Policy {
	case PolicyUnsupported:
		r.CanRun, r.Severity = false, "error"
		lines = append(lines, "no: "+r.FS.Why)
	}
	if r.Foreign != "" {
		r.CanRun, r.Severity = false, "error"
		lines = append(lines, "no: "+r.Foreign+"; with the gateway stopped, keep a copy of the database with both files, then ask OpenClaw (openclaw doctor --session-sqlite inspect) before moving either aside")
	}
	if len(busy) > 0 {
		r.CanRun = false
		lines = append(lines, "not now: "+strings.Join(busy, "; ")+"; stop it (openclaw gateway stop) before OpenClaw's maintenance commands, which wait 5 s for the database and then fail with \"database is locked\"")
	}
	if r.Starved != "" {
		if r.Severity == "info" {
			r.Severity = "warning"
		}
		lines = append(lines, "the checkpoint is starved: "+r.Starved)
	}
	if len(lines) == 0 {
		s := "yes: no OpenClaw process holds the database"
		if r.WAL.Exists && r.WAL.Frames > 0 {
			s += fmt.Sprintf(", its WAL holds %d frame(s) (%d bytes)", r.WAL.Frames, r.WAL.Bytes)
		}
		if r.FS.Policy == PolicyRollback {
			s += "; " + r.FS.Why
		}
		lines = append(lines, s)
	} else if r.CanRun {
		lines = append([]string{"yes"}, lines...)
	}
	r.Verdict = "OpenClaw's maintenance commands can run now: " + strings.Join(lines, "; ")
}

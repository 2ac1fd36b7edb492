package dbhealth_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/dbhealth"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

// Gateway locks are judged as 2026.9.6 judges them: a dead pid is no gateway; a live one whose
// start time is the payload's is one, whatever its command line.
func TestGatewayLocks(t *testing.T) {
	state := t.TempDir()
	dir := filepath.Join(state, "tmp", "openclaw-"+strconv.Itoa(os.Getuid()))
	os.MkdirAll(dir, 0o700)
	dead := exec.Command(os.Args[0], "-test.run=^$")
	dead.Run()
	write := func(name string, v map[string]any) {
		b, _ := json.Marshal(v)
		os.WriteFile(filepath.Join(dir, name), b, 0o600)
	}
	write("gateway.state.lock", map[string]any{"pid": dead.Process.Pid, "createdAt": "2026-05-01T00:00:00.000Z", "configPath": "/x", "port": 18789})
	procs := dbhealth.Options{CoordinatorDir: t.TempDir(), Alive: store.PIDAlive, StartTime: store.ProcStartTime, Args: store.ProcessArgs}
	r := dbhealth.Inspect(state, filepath.Join(state, "agent.sqlite"), procs)
	if len(r.Gateways) != 1 || r.Gateways[0].Owner != "dead" || !r.CanRun {
		t.Fatalf("a dead pid: %+v %v", r.Gateways, r.CanRun)
	}
	start, err := store.ProcStartTime(os.Getpid())
	if err != nil {
		t.Skipf("no start time here: %v", err)
	}
	write("gateway.0123abcd.lock", map[string]any{"pid": os.Getpid(), "createdAt": "2026-05-01T00:00:00.000Z", "configPath": "/x", "port": 18789, "startTime": start})
	r = dbhealth.Inspect(state, filepath.Join(state, "agent.sqlite"), procs)
	if r.CanRun || !strings.Contains(r.Verdict, fmt.Sprintf("a gateway (pid %d, port 18789) holds gateway.0123abcd.lock", os.Getpid())) {
		t.Errorf("a live gateway: %q", r.Verdict)
	}
}

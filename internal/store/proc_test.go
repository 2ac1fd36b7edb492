package store

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fakeProc builds a /proc-like tree: pid → (cmdline argv, environ).
func fakeProc(t *testing.T, procs map[int][2][]string) {
	t.Helper()
	root := t.TempDir()
	for pid, p := range procs {
		dir := filepath.Join(root, itoa(pid))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		write := func(name string, parts []string) {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(parts, "\x00")+"\x00"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write("cmdline", p[0])
		if p[1] != nil {
			write("environ", p[1])
		}
		stat := itoa(pid) + " (node (x) y) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 " + itoa(1000+pid) + " 20 21"
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(root, "self"), 0o755) // not a pid
	old := procRoot
	procRoot = root
	t.Cleanup(func() { procRoot = old })
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestGateways(t *testing.T) {
	home := t.TempDir()
	state := filepath.Join(home, ".openclaw")
	if err := os.Mkdir(state, 0o755); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	fakeProc(t, map[int][2][]string{
		101: {{"node", "/opt/openclaw/dist/index.js", "gateway"}, {"OPENCLAW_STATE_DIR=" + state}},
		102: {{"openclaw", "gateway", "--port", "18789"}, {"OPENCLAW_STATE_DIR=" + other}},
		103: {{"openclaw", "gateway"}, nil},                                      // environ unreadable: kept
		104: {{"openclaw", "tui"}, {"OPENCLAW_STATE_DIR=" + state}},              // not a gateway
		105: {{"node", "server.js", "gateway"}, {"OPENCLAW_STATE_DIR=" + state}}, // not openclaw
		106: {{"/usr/bin/openclaw-gateway"}, {"HOME=" + home, "X=1"}},            // state dir from $HOME
		107: {{"/usr/bin/openclaw-gateway"}, {"HOME=" + other}},
	})
	gs, err := Gateways(state)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, g := range gs {
		pids = append(pids, g.PID)
	}
	if len(pids) != 3 || pids[0] != 101 || pids[1] != 103 || pids[2] != 106 {
		t.Errorf("Gateways = %v, want [101 103 106]: %+v", pids, gs)
	}
	if st, err := procStartTime(101); err != nil || st != 1101 {
		t.Errorf("procStartTime(101) = %d, %v (command name with spaces and parentheses)", st, err)
	}
	if _, err := procStartTime(999); err == nil {
		t.Error("procStartTime of a missing pid gave no error")
	}
}

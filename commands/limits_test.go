//go:build unix

package commands

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// maxRSS returns the peak resident memory of a finished process in MiB (Linux reports KiB).
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss >> 10
	}
	return 0
}

// issue 10, scope 5: a 3 GiB sessions.json (on main: 4-15 GB of RSS, then an out-of-memory
// dump) and a 1 GiB openclaw.json are refused before they are read, with the file, its size,
// the cap and the flag that raises it; memory stays small. Raising the cap makes the file read.
func TestHugeInputsRefusedBeforeReading(t *testing.T) {
	bin := clawdoctorBin(t)
	dir := t.TempDir()
	st := filepath.Join(dir, "state")
	sessions := filepath.Join(st, "agents", "main", "sessions")
	sparse(t, filepath.Join(sessions, "sessions.json"), 3<<30)
	os.WriteFile(filepath.Join(sessions, "s1.jsonl"), []byte(`{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}`+"\n"), 0o644)
	bigConfig := filepath.Join(dir, "big.json")
	sparse(t, bigConfig, 1<<30)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--state-dir", st, "audit"}, exitPartial, "sessions.json"},
		{[]string{"--state-dir", st, "stats"}, exitPartial, "is over the cap of 268435456 bytes (raise it with --max-store-bytes)"},
		{[]string{"--state-dir", st, "doctor"}, exitPartial, "is over the cap of 268435456 bytes"},
		{[]string{"--state-dir", st, "cleanup"}, exitPartial, "3221225472 bytes is over the cap"},
		{[]string{"--state-dir", st, "repair", "-n"}, exitPartial, "unreadable: " + filepath.Join(sessions, "sessions.json")},
		{[]string{"--state-dir", st, "cleanup", "--config", bigConfig}, exitUsage, "1073741824 bytes is over the cap of 16777216 bytes (raise it with --max-config-bytes)"},
		{[]string{"--state-dir", st, "stats", "--config", bigConfig}, exitUsage, "--max-config-bytes"},
		{[]string{"--state-dir", st, "doctor", "--config", bigConfig}, exitUsage, "--max-config-bytes"},
	} {
		t.Run(strings.Join(tc.args[2:], " "), func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"--no-progress"}, tc.args...)...)
			t0 := time.Now()
			out, _ := cmd.CombinedOutput()
			took := time.Since(t0)
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Errorf("exit %d, want %d\n%s", code, tc.code, out)
			}
			if !strings.Contains(string(out), tc.want) {
				t.Errorf("output does not say %q:\n%s", tc.want, out)
			}
			if rss := maxRSS(cmd.ProcessState); rss > 128 {
				t.Errorf("peak RSS %d MiB", rss)
			}
			if took > 5*time.Second {
				t.Errorf("took %v: the file was read", took)
			}
		})
	}
	// The cap is configurable: a 2 KiB store is read by default and refused under a 1 KiB cap.
	small := filepath.Join(dir, "small", "agents", "main", "sessions")
	os.MkdirAll(small, 0o755)
	os.WriteFile(filepath.Join(small, "sessions.json"), []byte(`{"agent:main:main":{"sessionId":"s1","updatedAt":1,"pad":"`+strings.Repeat("x", 2<<10)+`"}}`), 0o644)
	root := filepath.Dir(filepath.Dir(filepath.Dir(small)))
	if out, err := exec.Command(bin, "--no-progress", "--state-dir", root, "stats").CombinedOutput(); err != nil {
		t.Errorf("default cap: %v\n%s", err, out)
	}
	out, _ := exec.Command(bin, "--no-progress", "--max-store-bytes", "1KiB", "--state-dir", root, "stats").CombinedOutput()
	if !strings.Contains(string(out), "over the cap of 1024 bytes") {
		t.Errorf("--max-store-bytes 1KiB did not refuse the 2 KiB store:\n%s", out)
	}
	// replay holds a stdin transcript in memory: it reads at most --max-input-bytes of it.
	cmd := exec.Command(bin, "replay", "--max-input-bytes", "1MiB", "--provider", "anthropic", "--model", "m", "-")
	cmd.Stdin = strings.NewReader(strings.Repeat("x", 3<<20))
	out, _ = cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != exitPartial || !strings.Contains(string(out), "over the cap of 1048576 bytes (raise it with --max-input-bytes)") {
		t.Errorf("replay of 3 MiB on stdin with --max-input-bytes 1MiB: exit %d\n%s", cmd.ProcessState.ExitCode(), out)
	}
}

//go:build unix

package commands

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

type proc struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
	stdin          io.WriteCloser
}

func start(t *testing.T, stdin bool, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(clawdoctorBin(t), args...), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.cmd.Env = append(os.Environ(), env...)
	if stdin {
		w, err := p.cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		p.stdin = w
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
		if p.stdin != nil {
			p.stdin.Close()
		}
	})
	return p
}

// handling waits until the process has installed its SIGINT and SIGTERM handlers (a slow
// start under load must not let the default action kill it), per /proc/<pid>/status.
func (p *proc) handling(t *testing.T) {
	t.Helper()
	for i := 0; i < 500; i++ {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/status")
		if err != nil {
			t.Skip("no /proc")
		}
		for _, line := range strings.Split(string(b), "\n") {
			if hex, ok := strings.CutPrefix(line, "SigCgt:"); ok {
				mask, _ := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
				if mask&(1<<(syscall.SIGINT-1)) != 0 && mask&(1<<(syscall.SIGTERM-1)) != 0 {
					return
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the process never installed its signal handlers")
}

// waitExit waits up to limit for the process to end and returns how long it took.
func (p *proc) waitExit(t *testing.T, limit time.Duration) time.Duration {
	t.Helper()
	t0 := time.Now()
	select {
	case <-p.done:
		return time.Since(t0)
	case <-time.After(limit):
		p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("still running %v later\nstdout: %s\nstderr: %s", limit, p.stdout.String(), p.stderr.String())
		return 0
	}
}

// issue 10, scope 4: the first SIGINT or SIGTERM ends any command within a second wherever it
// is: a read blocked on stdin, a line with no newline in a 64 GiB file, a planning pass. On
// main these ran until SIGKILL.
func TestFirstSignalStopsWithinASecond(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "state", "agents", "main", "sessions", "s1.jsonl")
	sparse(t, big, 64<<30)
	state := filepath.Join(dir, "state")
	for _, tc := range []struct {
		name  string
		stdin bool
		sig   syscall.Signal
		args  []string
	}{
		{"validate stdin that never ends", true, syscall.SIGINT, []string{"validate", "-"}},
		{"audit stdin that never ends", true, syscall.SIGTERM, []string{"audit", "-"}},
		{"replay stdin that never ends", true, syscall.SIGINT, []string{"replay", "--provider", "anthropic", "--model", "m", "-"}},
		{"validate a line with no newline", false, syscall.SIGINT, []string{"validate", big}},
		{"audit a line with no newline", false, syscall.SIGTERM, []string{"audit", big}},
		{"repair plan of a line with no newline", false, syscall.SIGINT, []string{"--state-dir", state, "repair", "-n"}},
		{"replay index of a line with no newline", false, syscall.SIGTERM, []string{"replay", "--provider", "anthropic", "--model", "m", big}},
		{"doctor over it", false, syscall.SIGINT, []string{"--state-dir", state, "doctor"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t, tc.stdin, nil, tc.args...)
			p.handling(t)
			time.Sleep(300 * time.Millisecond) // well inside the read
			select {
			case <-p.done:
				t.Fatalf("ended before the signal: %s %s", p.stdout.String(), p.stderr.String())
			default:
			}
			p.cmd.Process.Signal(tc.sig)
			took := p.waitExit(t, 5*time.Second)
			if code := p.cmd.ProcessState.ExitCode(); code != exitSignal {
				t.Errorf("exit %d, want %d; stderr %q", code, exitSignal, p.stderr.String())
			}
			if took > time.Second {
				t.Errorf("took %v after the signal", took)
			}
			if !strings.Contains(p.stderr.String(), "interrupted") {
				t.Errorf("stderr does not say interrupted: %q", p.stderr.String())
			}
		})
	}
}

// issue 10, scope 4: a second signal ends the run at once, even where the first could not (a
// step that does not look at its context: the test's phase delay); an interrupt after a file
// was replaced still names the file and its backup.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	dir := t.TempDir()
	sessions := filepath.Join(dir, "agents", "main", "sessions")
	os.MkdirAll(sessions, 0o755)
	torn := `{"type":"session","version":3,"id":"a","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}` + "\n" + `{"type":"mess` + "\n"
	os.WriteFile(filepath.Join(sessions, "a.jsonl"), []byte(torn), 0o644)
	os.WriteFile(filepath.Join(sessions, "b.jsonl"), []byte(torn), 0o644)
	p := start(t, false, []string{"CLAWDOCTOR_TEST_PHASE_DELAY=4s"}, "repair", "--no-progress", sessions)
	// a.jsonl: planned (4 s), backup (4 s), replaced (4 s): interrupt inside "replaced".
	time.Sleep(9 * time.Second)
	p.cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(100 * time.Millisecond)
	p.cmd.Process.Signal(syscall.SIGINT)
	took := p.waitExit(t, 5*time.Second)
	if took > 500*time.Millisecond {
		t.Errorf("second signal: still running %v after the first", took)
	}
	if code := p.cmd.ProcessState.ExitCode(); code != exitSignal {
		t.Errorf("exit %d, want %d", code, exitSignal)
	}
	errs := p.stderr.String()
	if !strings.Contains(errs, "replaced "+filepath.Join(sessions, "a.jsonl")) || !strings.Contains(errs, "backup "+filepath.Join(sessions, "a.jsonl.bak-")) {
		t.Errorf("the interrupted run does not name the replaced file and its backup:\n%s", errs)
	}
	// b.jsonl is repaired beside a.jsonl (repair works on a file per core): it is either
	// untouched or, replaced before the interrupt as a.jsonl was, named with its backup
	if b, _ := os.ReadFile(filepath.Join(sessions, "b.jsonl")); string(b) != torn &&
		(!strings.Contains(errs, "replaced "+filepath.Join(sessions, "b.jsonl")) || !strings.Contains(errs, "backup "+filepath.Join(sessions, "b.jsonl.bak-"))) {
		t.Errorf("b.jsonl changed but the interrupted run does not name it and its backup:\n%s", errs)
	}
	ents, _ := os.ReadDir(sessions)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") || strings.HasSuffix(e.Name(), ".lock") {
			t.Errorf("left %s behind", e.Name())
		}
	}
}

// issue 10, scope 4: a FIFO, a device or a socket where a file is expected is refused at once
// with a clear error (open() never blocks), whichever command meets it.
func TestNonRegularFilesRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	state := filepath.Join(dir, "state")
	sessions := filepath.Join(state, "agents", "main", "sessions")
	os.MkdirAll(sessions, 0o755)
	if err := syscall.Mkfifo(filepath.Join(sessions, "sessions.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Symlink("/dev/zero", filepath.Join(state, "openclaw.json"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"validate", fifo}, "named pipe"},
		{[]string{"audit", fifo}, fifo},
		{[]string{"validate", "/dev/zero"}, "character device"},
		{[]string{"replay", "--provider", "anthropic", "--model", "m", fifo}, "named pipe"},
		{[]string{"--state-dir", state, "stats"}, "named pipe"},
		{[]string{"--state-dir", state, "cleanup"}, "character device"},
		{[]string{"--state-dir", state, "doctor"}, "character device"},
		{[]string{"--state-dir", state, "repair", "-n"}, "named pipe"},
		{[]string{"--state-dir", state, "audit"}, "sessions.json"},
		{[]string{"--state-dir", state, "cleanup", "--config", fifo}, "named pipe"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			p := start(t, false, nil, tc.args...)
			p.waitExit(t, 3*time.Second)
			if p.cmd.ProcessState.ExitCode() == 0 {
				t.Errorf("exit 0 on a non-regular input")
			}
			if out := p.stdout.String() + p.stderr.String(); !strings.Contains(out, tc.want) {
				t.Errorf("output does not name %q:\n%s", tc.want, out)
			}
		})
	}
}

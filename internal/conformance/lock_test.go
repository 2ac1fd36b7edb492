//go:build conformance

package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// oracleLock runs lock.mjs against the real OpenClaw: it takes path's write lock with
// acquireSessionWriteLock, appends line and releases.
type lockRun struct {
	Acquired bool   `json:"acquired"`
	WaitedMs int64  `json:"waitedMs"`
	At       int64  `json:"at"`
	Error    string `json:"error"`
}

func oracleLock(t *testing.T, ref, path, line string, timeout time.Duration) lockRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout+2*time.Minute)
	defer cancel()
	script, _ := filepath.Abs(filepath.Join("oracle", "lock.mjs"))
	out, err := exec.CommandContext(ctx, ref, "--node", script, path, line, fmt.Sprint(timeout.Milliseconds())).Output()
	if err != nil {
		t.Fatalf("lock.mjs: %v\n%s", err, out)
	}
	var r lockRun
	if err := json.Unmarshal(bytes.TrimSpace(out[bytes.LastIndexByte(bytes.TrimSpace(out), '\n')+1:]), &r); err != nil {
		t.Fatalf("lock.mjs output %q: %v", out, err)
	}
	return r
}

// TestLiveLockMakesOpenClawWait (issue 10, scope 1): while `clawdoctor repair` runs, the real
// OpenClaw 2026.6.11 waits for the transcript's write lock and appends only after the repair
// ended; its line follows the repaired content. The control shows why the lock names a helper
// process: a lock naming a process whose argv does not look like OpenClaw is taken over at once.
func TestLiveLockMakesOpenClawWait(t *testing.T) {
	ref := reference(t)
	bin := filepath.Join(t.TempDir(), "clawdoctor")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/clawdoctor/clawdoctor").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := filepath.Join(t.TempDir(), "agents", "main", "sessions")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "s1.jsonl")
	hdr := `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}`
	u1 := `{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hello"}}`
	os.WriteFile(path, []byte(hdr+"\n"+u1+"\n"+`{"type":"mess`+"\n"), 0o644)
	want := hdr + "\n" + u1 + "\n"
	line := `{"type":"custom","id":"gw","parentId":"u1","timestamp":"2026-01-01T00:00:01.000Z"}`

	cmd := exec.Command(bin, "repair", "--no-progress", path)
	cmd.Env = append(os.Environ(), "CLAWDOCTOR_TEST_PHASE_DELAY=3s") // hold the lock ~9 s
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		if _, err := os.Stat(path + ".lock"); err == nil {
			break
		}
		if i > 500 {
			t.Fatal("clawdoctor never took the lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
	got := make(chan lockRun, 1)
	go func() { got <- oracleLock(t, ref, path, line, 60*time.Second) }()
	cmd.Wait()
	ended := time.Now()
	r := <-got
	t.Logf("repair: %s; OpenClaw: %+v", strings.TrimSpace(stdout.String()), r)
	if !r.Acquired || time.UnixMilli(r.At).Before(ended.Add(-100*time.Millisecond)) {
		t.Fatalf("OpenClaw got the lock before the repair ended (%v early): %+v", ended.Sub(time.UnixMilli(r.At)), r)
	}
	if b, _ := os.ReadFile(path); string(b) != want+line+"\n" {
		t.Fatalf("transcript after both: %q", b)
	}

	// Control: a live lock naming a process that is not OpenClaw-like is taken over.
	sleeper := exec.Command("sleep", "60")
	sleeper.Start()
	defer sleeper.Process.Kill()
	st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", sleeper.Process.Pid))
	fields := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+2:]))
	os.WriteFile(path+".lock", []byte(fmt.Sprintf("{\n  \"pid\": %d,\n  \"createdAt\": %q,\n  \"starttime\": %s\n}\n",
		sleeper.Process.Pid, time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), fields[19])), 0o644)
	c := oracleLock(t, ref, path, line, 5*time.Second)
	if !c.Acquired || c.WaitedMs > 2000 {
		t.Fatalf("control: OpenClaw respected a lock naming a non-OpenClaw process: %+v", c)
	}
}

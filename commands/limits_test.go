//go:build unix

package commands

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
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

// writeBomb writes a zstd archive of a transcript whose entries are 1 MiB each, inflating to
// size bytes of valid lines (about 300 KB on disk for 4 GiB).
func writeBomb(t *testing.T, path string, size int64) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(8<<20))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(zw, `{"type":"session","version":3,"id":"bomb","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}`)
	body := strings.Repeat("x", 1<<20)
	parent := "null"
	for i, n := 0, int64(0); n < size; i++ {
		role := [2]string{"user", "assistant"}[i%2]
		line := fmt.Sprintf(`{"type":"message","id":"m%d","parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":%q,"content":[{"type":"text","text":"%s"}],"timestamp":1}}`+"\n", i, parent, role, body)
		parent = fmt.Sprintf(`"m%d"`, i)
		if _, err := io.WriteString(zw, line); err != nil {
			t.Fatal(err)
		}
		n += int64(len(line))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// issue 31, scope 4: an archive of a few hundred KB that inflates to 4 GiB of valid 1 MiB
// entries. On main view and replay held every entry (19-24 GB, then the out-of-memory killer)
// and audit of a state dir holding a 1 TB one would have read for an hour. Every command now
// stops within seconds and under 512 MiB, names the file and exits 3 (an input over a cap);
// --max-inflate-ratio 0 lifts the cap, and replay then refuses to hold more than
// --max-input-bytes of entries.
func TestDecompressionBombs(t *testing.T) {
	bin := clawdoctorBin(t)
	st := filepath.Join(t.TempDir(), "state")
	bomb := filepath.Join(st, "agents", "main", "sessions", "bomb.jsonl.reset.2026-01-01T00-00-00.000Z.zst")
	writeBomb(t, bomb, 4<<30)
	if fi, _ := os.Stat(bomb); fi.Size() > 2<<20 {
		t.Fatalf("the bomb is %d bytes on disk: not a bomb", fi.Size())
	}
	view := filepath.Join(t.TempDir(), "view.html")
	for _, tc := range []struct {
		args []string
		want string
		code int // 0: exitPartial
	}{
		{[]string{"view", "--out", view, bomb}, "decompression bomb", 0},
		{[]string{"replay", "--provider", "anthropic", "--model", "claude-sonnet-4-5", bomb}, "decompression bomb", 0},
		{[]string{"repair", "-n", bomb}, "decompression bomb", 0},
		{[]string{"--state-dir", st, "audit"}, "1 unreadable: " + bomb, 0},
		{[]string{"--state-dir", st, "doctor"}, "could not be read", 0},
		{[]string{"validate", bomb}, "decompression bomb", 0},
		{[]string{"--max-inflate-ratio", "0", "replay", "--provider", "anthropic", "--model", "claude-sonnet-4-5", bomb}, "raise it with --max-input-bytes", 0},
		// every cap lifted but the memory guard's: the run stops, says so, exits 4 (scope 6:
		// out of memory is never how a command ends)
		{[]string{"--max-inflate-ratio", "0", "--max-memory", "200MiB", "replay", "--max-input-bytes", "8GiB", "--provider", "anthropic", "--model", "claude-sonnet-4-5", bomb},
			"over the cap of 200 MiB (--max-memory", exitIO},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"--no-progress"}, tc.args...)...)
			t0 := time.Now()
			out, _ := cmd.CombinedOutput()
			took := time.Since(t0)
			want := exitPartial
			if tc.code != 0 {
				want = tc.code
			}
			if code := cmd.ProcessState.ExitCode(); code != want {
				t.Errorf("exit %d, want %d\n%s", code, want, out)
			}
			if !strings.Contains(string(out), tc.want) || (tc.code == 0 && !strings.Contains(string(out), filepath.Base(bomb))) {
				t.Errorf("output does not name the file and say %q:\n%s", tc.want, out)
			}
			if rss := maxRSS(cmd.ProcessState); rss > 512 {
				t.Errorf("peak RSS %d MiB, over 512", rss)
			}
			if took > time.Minute {
				t.Errorf("took %v", took)
			}
			t.Logf("%v, %d MiB", took.Round(time.Millisecond), maxRSS(cmd.ProcessState))
		})
	}
}

package repair

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

// crashInput makes a transcript of about size bytes with ~0.5% bad lines (torn, garbage,
// glued, NUL runs) and returns it with the list of its complete valid lines.
func crashInput(size int, seed int64) ([]byte, [][]byte) {
	rng := rand.New(rand.NewSource(seed))
	var b bytes.Buffer
	var valid [][]byte
	b.WriteString(hdr + "\n")
	valid = append(valid, []byte(hdr))
	prev := "null"
	for i := 0; b.Len() < size; i++ {
		id := fmt.Sprintf("e%07d", i)
		text := strings.Repeat("lorem ipsum dolor sit amet ", 5+rng.Intn(60))
		line := fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":%q,"timestamp":%d}}`, id, prev, text, i)
		prev = fmt.Sprintf("%q", id)
		switch r := rng.Intn(1000); {
		case r < 2: // torn line
			b.WriteString(line[:rng.Intn(len(line)-1)+1] + "\n")
			continue
		case r < 3: // garbage
			b.WriteString("#garbage#\n")
		case r < 4: // NUL run before a valid line
			b.Write(make([]byte, 1+rng.Intn(512)))
		case r < 5: // glued to the next line
			b.WriteString(line)
			valid = append(valid, []byte(line))
			continue
		}
		b.WriteString(line + "\n")
		valid = append(valid, []byte(line))
	}
	b.WriteString(u1 + "\n")
	valid = append(valid, []byte(u1))
	return b.Bytes(), valid
}

// TestCrashSIGKILL builds clawdoctor, runs `clawdoctor repair` on a ~20 MB damaged transcript
// and SIGKILLs it at many points (random delays, plus a test hook that sleeps between the
// plan, backup and replace steps). After every kill: the transcript is either the original or
// the fully repaired file, every complete valid line of the original is in it, a backup (when
// one was written) holds exactly the original bytes, and a leftover temp file is never taken
// for a transcript. A final uninterrupted run then finishes the repair.
func TestCrashSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and writes ~1 GB: skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "clawdoctor")
	build := exec.Command("go", "build", "-o", bin, "github.com/clawdoctor/clawdoctor")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	orig, valid := crashInput(20<<20, 1)
	want, p := repairBytes(t, orig, Options{})
	if !p.Changed() || p.Counts.DroppedLines == 0 || p.Counts.SalvagedLines == 0 {
		t.Fatalf("generated input needs no repair: %+v", p.Counts)
	}

	// Time one full run to spread the kill points over it.
	dir := sessionsDir(t)
	path := filepath.Join(dir, "s1.jsonl")
	write(t, path, string(orig), 0o644)
	start := time.Now()
	if out, err := exec.Command(bin, "repair", "--no-progress", path).CombinedOutput(); err != nil && !isExit(err, 1) {
		t.Fatalf("repair: %v\n%s", err, out)
	}
	full := time.Since(start)
	if got := read(t, path); got != string(want) {
		t.Fatal("uninterrupted run does not give the planned output")
	}
	t.Logf("one uninterrupted repair of %d bytes: %v", len(orig), full)

	rng := rand.New(rand.NewSource(2))
	states := map[string]int{}
	const kills = 12
	for i := 0; i < kills; i++ {
		dir := sessionsDir(t)
		path := filepath.Join(dir, "s1.jsonl")
		write(t, path, string(orig), 0o644)
		cmd := exec.Command(bin, "repair", "--no-progress", path)
		delay := time.Duration(rng.Int63n(int64(full) + 1))
		if i%2 == 1 { // widen the windows between the steps
			cmd.Env = append(os.Environ(), "CLAWDOCTOR_TEST_PHASE_DELAY=150ms")
			delay = time.Duration(rng.Int63n(int64(full + 450*time.Millisecond)))
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()

		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("kill %d after %v: transcript gone: %v", i, delay, err)
		}
		state := "original"
		switch {
		case bytes.Equal(got, orig):
		case bytes.Equal(got, want):
			state = "repaired"
		default:
			t.Fatalf("kill %d after %v: transcript is neither the original nor the repaired file (%d bytes)", i, delay, len(got))
		}
		have := map[string]bool{}
		for _, l := range bytes.Split(got, []byte("\n")) {
			have[string(l)] = true
		}
		for _, l := range valid {
			if !have[string(l)] && !bytes.Contains(got, l) {
				t.Fatalf("kill %d (%s): valid line lost: %.80s", i, state, l)
			}
		}
		ents, _ := os.ReadDir(dir)
		var backups, temps int
		for _, e := range ents {
			name := e.Name()
			k := store.Classify(name).Kind
			switch {
			case name == "s1.jsonl":
			case k == store.KindRepairBackup:
				backups++
				if b := read(t, filepath.Join(dir, name)); b != string(orig) {
					t.Fatalf("kill %d: backup %s differs from the original", i, name)
				}
			case k == store.KindRepairTemp:
				temps++
				if IsTranscriptName(name) {
					t.Fatalf("kill %d: temp file %s would be taken for a transcript", i, name)
				}
			case name == "s1.jsonl.lock":
				// The write lock of the killed run: its holder must die with it, so any
				// OpenClaw (and the next repair) sees a dead pid and takes the lock over.
				if !lockHolderDies(filepath.Join(dir, name)) {
					t.Fatalf("kill %d: the lock's holder outlived the killed repair", i)
				}
			default:
				t.Fatalf("kill %d: unexpected file %s (%s)", i, name, k)
			}
		}
		if state == "repaired" && backups == 0 {
			t.Fatalf("kill %d: repaired without a backup", i)
		}
		if temps > 0 {
			state += "+temp"
		}
		if backups > 0 {
			state += "+backup"
		}
		states[state]++

		// Finishing the job after the crash gives the repaired file, takes over the dead
		// run's lock and removes its temp (issue 10, scope 11: 10 kills left 750 MB).
		res, err := Run(context.Background(), Target{Paths: []string{dir}}, Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Files) != 1 {
			t.Fatalf("kill %d: rerun saw %d files", i, len(res.Files))
		}
		if got := read(t, path); got != string(want) {
			t.Fatalf("kill %d: rerun after the crash did not finish the repair (%+v)", i, res.Files[0])
		}
		ents, _ = os.ReadDir(dir)
		for _, e := range ents {
			if k := store.Classify(e.Name()).Kind; k == store.KindRepairTemp || k == store.KindTranscriptLock {
				t.Fatalf("kill %d: the rerun left %s behind (notes %+v)", i, e.Name(), res.Files[0].Notes)
			}
		}
		if temps > 0 && !strings.Contains(fmt.Sprint(res.Files[0].Notes), "left by a killed run") {
			t.Errorf("kill %d: the rerun removed a temp without saying so: %+v", i, res.Files[0].Notes)
		}
	}
	t.Logf("states after %d kills: %v", kills, states)
	if len(states) < 2 {
		t.Errorf("kills hit only %v: the kill points are not spread", states)
	}
}

// lockHolderDies reports whether the pid named in the lock at path is dead within a second.
func lockHolderDies(path string) bool {
	for range 50 {
		l, err := store.InspectLockFile(path, store.LockOptions{})
		if err != nil || !l.Alive {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

func isExit(err error, code int) bool {
	ee, ok := err.(*exec.ExitError)
	return ok && ee.ExitCode() == code
}

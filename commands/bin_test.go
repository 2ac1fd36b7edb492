package commands

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string // removed by TestMain after the tests (afterRun)
)

// afterRun is the package's tests with the built binary removed after them: testscript.Main
// exits the process itself, so the removal rides on its m.Run. Before it, every test run left
// a 30 MB binary in $TMPDIR.
type afterRun struct{ m *testing.M }

func (a afterRun) Run() int {
	code := a.m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	return code
}

// clawdoctorBin builds the real binary once per test run (signals need a real process).
func clawdoctorBin(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary: skipped with -short")
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "clawdoctor-bin-")
		if err != nil {
			binErr = err
			return
		}
		binDir = dir
		os.Chmod(dir, 0o755)
		binPath = filepath.Join(dir, "clawdoctor")
		if runtime.GOOS == "windows" {
			binPath += ".exe"
		}
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/clawdoctor/clawdoctor").CombinedOutput()
		if err != nil {
			binErr = err
			binPath = string(out)
		}
	})
	if binErr != nil {
		t.Fatalf("go build: %v\n%s", binErr, binPath)
	}
	return binPath
}

// sparse makes a file of size NUL bytes without writing them: a "line" that never ends.
func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Skip(err)
	}
	f.Close()
}

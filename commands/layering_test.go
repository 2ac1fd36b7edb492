package commands

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayering keeps the dependency direction of STYLE.md Part D: library packages never
// import commands, urfave/cli or the progress bar; only commands wires them to a terminal.
func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}", "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var libs []string
	for _, p := range strings.Fields(string(out)) {
		if strings.HasSuffix(p, "/commands") || p == "github.com/clawdoctor/clawdoctor" {
			continue
		}
		libs = append(libs, p)
	}
	if len(libs) < 8 {
		t.Fatalf("found only %d library packages: %v", len(libs), libs)
	}
	for _, lib := range libs {
		deps, err := exec.Command("go", "list", "-deps", lib).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", lib, err)
		}
		for _, bad := range []string{"github.com/urfave/cli", "github.com/clawdoctor/clawdoctor/commands", "github.com/schollz/progressbar"} {
			for _, d := range strings.Fields(string(deps)) {
				if strings.HasPrefix(d, bad) {
					t.Errorf("%s depends on %s", lib, d)
				}
			}
		}
	}
}

// Package bench holds only this test: the benchmark scripts' helpers (lib.sh) must fail a run
// whose baseline exits non-zero, so a crashed reference is never printed as a figure.
package bench

import (
	"os/exec"
	"strings"
	"testing"
)

func TestFailedBaselineFailsTheScript(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		wantExit     int
	}{
		{"baselines that succeed", `bench_measure ok - true; bench_measure ok2 - sh -c 'exit 0'; bench_exit`, 0},
		{"a baseline that fails", `bench_measure ok - true; bench_measure ref - sh -c 'echo boom >&2; exit 3'; bench_exit`, 1},
		{"clawdoctor findings are no failure", `BENCH_BIN=$(command -v false); bench_measure cd - "$BENCH_BIN"; bench_exit`, 0},
		{"clawdoctor exit 4 is", `BENCH_BIN=/bin/sh; bench_measure cd - "$BENCH_BIN" -c 'exit 4'; bench_exit`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command("bash", "-c", `BENCH_TMP=$(mktemp -d); . ./lib.sh; `+tc.script)
			out, _ := cmd.CombinedOutput()
			if got := cmd.ProcessState.ExitCode(); got != tc.wantExit {
				t.Fatalf("exit %d, want %d:\n%s", got, tc.wantExit, out)
			}
			if tc.wantExit != 0 && !strings.Contains(string(out), "FAILED") {
				t.Fatalf("no FAILED note:\n%s", out)
			}
		})
	}
}

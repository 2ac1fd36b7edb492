// Package bench holds only this test: the benchmark scripts' helpers (lib.sh) must fail a run
// whose baseline exits non-zero, so a crashed reference is never printed as a figure.
package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// needGNUTime skips where the bench scripts cannot run: they time with GNU time's -f and read
// /proc (Linux; macOS's BSD time has no -f, Windows no bash), so their tests would fail on the
// platform, not on the script.
func needGNUTime(t *testing.T) {
	t.Helper()
	if err := exec.Command("bash", "-c", "/usr/bin/time -f %e true").Run(); err != nil {
		t.Skipf("the bench scripts need bash and GNU time (/usr/bin/time -f): %v", err)
	}
}

// benchShell runs script in bash with BENCH_TMP a fresh test dir (removed after the test; the
// mktemp dir lib.sh makes when it is unset would stay in /tmp).
func benchShell(t *testing.T, script string) *exec.Cmd {
	cmd := exec.Command("bash", "-c", script)
	cmd.Env = append(os.Environ(), "BENCH_TMP="+t.TempDir())
	return cmd
}

func TestFailedBaselineFailsTheScript(t *testing.T) {
	needGNUTime(t)
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
			cmd := benchShell(t, `. ./lib.sh; `+tc.script)
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

// TestMeasureCPUMedian: bench_measure_cpu reports the median wall time of its runs and the
// highest RSS, and one failed run fails the row.
func TestMeasureCPUMedian(t *testing.T) {
	needGNUTime(t)
	// each run sleeps the next time of the list: 0.6, 0.1, 0.3 s; the median is 0.3
	const sleeper = `n=$(cat "$BENCH_TMP/n" 2>/dev/null || echo 0); echo $((n+1)) >"$BENCH_TMP/n"; ` +
		`case $n in 0) sleep 0.6;; 1) sleep 0.1;; *) sleep 0.3;; esac`
	cmd := benchShell(t, `. ./lib.sh; BENCH_CPU_ROUNDS=3 bench_measure_cpu x 3000000 bash -c '`+sleeper+`'; bench_exit`)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	// the 0.3 s run, whatever the shell's start-up adds (not the 0.6 nor the 0.1)
	if !regexp.MustCompile(`(?m)^x\t[0-9.]+ MB/s \(0\.3\d s; median of 3\)`).Match(out) || !strings.Contains(string(out), "3 runs") {
		t.Fatalf("no median row of 0.30 s:\n%s", out)
	}
	cmd = benchShell(t, `. ./lib.sh; BENCH_BIN=/bin/sh; `+
		`BENCH_CPU_ROUNDS=3 bench_measure_cpu x 1 "$BENCH_BIN" -c 'n=$(cat "$BENCH_TMP/n" 2>/dev/null || echo 0); echo $((n+1)) >"$BENCH_TMP/n"; [ $n != 1 ] || exit 4'; bench_exit`)
	out, _ = cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "FAILED") {
		t.Fatalf("a failed second run: exit %d:\n%s", cmd.ProcessState.ExitCode(), out)
	}
}

// TestPairMedians: bench_pair reports the medians of its alternated pairs and their ratio
// against the target, both ways round, and a failed floor fails the row. The times are given,
// not slept: a fake GNU time (BENCH_TIMER) reports what each command wrote to
// $BENCH_TMP/elapsed, so a loaded machine cannot move them (sleeps of 0.1-0.3 s took up to
// 0.33 s under .ci/run's parallel tests and failed the test on 2026-12-06).
func TestPairMedians(t *testing.T) {
	needGNUTime(t)
	timer := filepath.Join(t.TempDir(), "time")
	const fake = `#!/usr/bin/env bash
[ "$1" = -f ] && [ "$3" = -o ] || exit 9
out=$4; shift 4
"$@"; rc=$?
echo "$(cat "$BENCH_TMP/elapsed" 2>/dev/null || echo 0) 2048" >"$out"
exit $rc
`
	if err := os.WriteFile(timer, []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	// ours takes 0.3, 0.1, 0.2 s (median 0.2); the floor always 0.1 s
	const ours = `n=$(cat "$BENCH_TMP/n" 2>/dev/null || echo 0); echo $((n+1)) >"$BENCH_TMP/n"; ` +
		`case $n in 0) e=0.3;; 1) e=0.1;; *) e=0.2;; esac; echo $e >"$BENCH_TMP/elapsed"`
	const floor = `echo 0.1 >"$BENCH_TMP/elapsed"`
	for _, tc := range []struct {
		name, target, floor string
		want                *regexp.Regexp
		wantExit            int
	}{
		{"time over the floor", "<=1.5", floor, regexp.MustCompile(`p\t0\.20 s / floor 0\.10 s = 2\.00x \(target <=1\.5: not met; medians of 3 pairs\)\t2\.0 MiB`), 0},
		{"share of the floor's speed", ">=0.4", floor, regexp.MustCompile(`= 0\.50x \(target >=0\.4: met;`), 0},
		{"a failed floor", "<=9", "exit 2", regexp.MustCompile(`\(FAILED\)`), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := func(s string) string { return `'` + strings.ReplaceAll(s, `'`, `'\''`) + `'` }
			script := `bench_pair p '` + tc.target + `' 'true' ` + q(ours) + ` ` + q(tc.floor) + `; bench_exit`
			cmd := benchShell(t, `. ./lib.sh; BENCH_TIMER=`+timer+`; `+script)
			out, _ := cmd.CombinedOutput()
			if got := cmd.ProcessState.ExitCode(); got != tc.wantExit {
				t.Fatalf("exit %d, want %d:\n%s", got, tc.wantExit, out)
			}
			if !tc.want.Match(out) {
				t.Fatalf("no %s in:\n%s", tc.want, out)
			}
		})
	}
}

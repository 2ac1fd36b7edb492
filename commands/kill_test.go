package commands

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

// tree maps every regular file under root (by slash path relative to root) to a hash of
// its bytes.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	// CopyFS does not keep mtimes; the planners read them (leftover and orphan ages).
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			if info, err := d.Info(); err == nil {
				rel, _ := filepath.Rel(src, p)
				os.Chtimes(filepath.Join(dst, rel), info.ModTime(), info.ModTime())
			}
		}
		return nil
	})
}

func values(m map[string]string) map[string]bool {
	out := map[string]bool{}
	for _, v := range m {
		out[v] = true
	}
	return out
}

// isOurTemp is a temp file clawdoctor writes beside a file it replaces.
func isOurTemp(rel string) bool {
	return store.Classify(filepath.Base(rel)).Kind == store.KindRepairTemp && strings.Contains(rel, ".clawdoctor-")
}

// issue 10, scope 12: `doctor --fix --yes` and `cleanup --enforce` are SIGKILLed at 20 random
// points each. After every kill: every file is its old bytes or its new bytes (nothing torn),
// no original byte is lost (it is in place, in an archive or in a backup), every backup holds
// exactly the original bytes of what it backs up, and a rerun ends in the state of an
// uninterrupted run.
func TestKillDoctorAndCleanup(t *testing.T) {
	bin := clawdoctorBin(t)
	base := t.TempDir()
	pristine := filepath.Join(base, "pristine")
	gen := exec.Command(bin, "fixtures", "generate", "--out", pristine, "--sessions", "60",
		"--faults", "orphan-transcript,stale-lock,oversized-entry,binding-mismatch,shared-cli-id,torn,missing-transcript",
		"--fault-count", "8", "--short-texts", "--seed", "5")
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("fixtures generate: %v\n%s", err, out)
	}
	os.Remove(filepath.Join(pristine, "manifest.json"))
	orig := prefix(tree(t, pristine), "state/") // as the runs' roots hold it
	origHashes := values(orig)
	const now = "2026-06-01T00:00:00Z"
	for _, tc := range []struct {
		name string
		args func(st, backups string) []string
		// backupOf maps a backup file (relative to the run's root) to the original it keeps,
		// or "" when rel is not a backup.
		backupOf func(rel string) string
	}{
		{"doctor --fix --yes", func(st, _ string) []string {
			return []string{"--now", now, "--no-progress", "--state-dir", st, "doctor", "--fix", "--yes"}
		}, func(rel string) string {
			parts := strings.SplitN(rel, "/", 3) // state/clawdoctor-backups/<stamp>/<rel>
			if len(parts) == 3 && strings.HasPrefix(rel, "state/clawdoctor-backups/") {
				r := strings.SplitN(parts[2], "/", 2)
				if len(r) == 2 {
					return "state/" + r[1]
				}
			}
			return ""
		}},
		{"cleanup --enforce", func(st, backups string) []string {
			return []string{"--now", now, "--no-progress", "--state-dir", st, "cleanup", "--enforce",
				"--max-entries", "20", "--prune-after", "20d", "--backup-dir", backups}
		}, func(rel string) string {
			dir := "state/agents/main/sessions/"
			switch {
			case strings.HasPrefix(rel, "removed/sessions.json.clawdoctor-") && strings.HasSuffix(rel, ".bak"):
				return dir + "sessions.json"
			case strings.HasPrefix(rel, "removed/"):
				return dir + strings.TrimPrefix(rel, "removed/")
			}
			return ""
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Every run works at the same path (doctor writes absolute sessionFile paths into
			// sessions.json). One uninterrupted run first: the "new" bytes, and how long a run takes.
			full := filepath.Join(base, tc.name, "run")
			copyTree(t, pristine, filepath.Join(full, "state"))
			t0 := time.Now()
			cmd := exec.Command(bin, tc.args(filepath.Join(full, "state"), filepath.Join(full, "removed"))...)
			if out, err := cmd.CombinedOutput(); err != nil && cmd.ProcessState.ExitCode() != exitFindings {
				t.Fatalf("uninterrupted run: %v\n%s", err, out)
			}
			took := time.Since(t0)
			// The first run may be slow (a cold page cache, a loaded machine): the kill points
			// are spread over the fastest of three, so that most land inside a run.
			for i := range 2 {
				again := filepath.Join(base, tc.name, fmt.Sprintf("timing%d", i))
				copyTree(t, pristine, filepath.Join(again, "state"))
				t1 := time.Now()
				exec.Command(bin, tc.args(filepath.Join(again, "state"), filepath.Join(again, "removed"))...).Run()
				took = min(took, time.Since(t1))
				os.RemoveAll(again)
			}
			final := live(tree(t, full), tc.backupOf)
			finalHashes := values(tree(t, full))
			if len(final) == 0 || cmp.Equal(final, live(orig, tc.backupOf)) {
				t.Fatal("the uninterrupted run changed nothing: the test has no work to kill")
			}
			rng := rand.New(rand.NewSource(int64(len(tc.name))))
			const kills = 20
			killed := 0
			for i := range kills {
				root := full
				if err := os.RemoveAll(root); err != nil {
					t.Fatal(err)
				}
				st := filepath.Join(root, "state")
				copyTree(t, pristine, st)
				delay := time.Duration(rng.Int63n(int64(took)))
				cmd := exec.Command(bin, tc.args(st, filepath.Join(root, "removed"))...)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				done := make(chan struct{})
				go func() { cmd.Wait(); close(done) }()
				select {
				case <-done:
				case <-time.After(delay):
					cmd.Process.Signal(syscall.SIGKILL)
					<-done
					killed++
				}
				after := tree(t, root)
				for rel, h := range after {
					if isOurTemp(rel) {
						continue // an unfinished temp: never taken for a file, removed by the next write
					}
					if o := tc.backupOf(rel); o != "" {
						want, ok := orig[o]
						if ok && want != h {
							t.Fatalf("kill %d after %v: backup %s does not hold the original bytes of %s", i, delay, rel, o)
						}
						// a backup of a file the runs made (a repair backup doctor moved on)
						// holds old or new bytes too
						if !ok && !origHashes[h] && !finalHashes[h] {
							t.Fatalf("kill %d after %v: backup %s holds neither old nor new bytes", i, delay, rel)
						}
						continue
					}
					if !origHashes[h] && !finalHashes[h] && !isRunsWriteLock(filepath.Join(root, rel)) {
						zb, _ := os.ReadFile(filepath.Join(root, rel))
						t.Fatalf("kill %d after %v: %s is neither old nor new bytes (it begins %q)", i, delay, rel, zb[:min(len(zb), 120)])
					}
				}
				have := values(after)
				for rel, h := range orig {
					if !have[h] {
						t.Fatalf("kill %d after %v: the bytes of %s are nowhere (not in place, archived or backed up)", i, delay, rel)
					}
				}
				// A rerun finishes the job: the live files end as an uninterrupted run leaves them.
				rerun := exec.Command(bin, tc.args(st, filepath.Join(root, "removed"))...)
				if out, err := rerun.CombinedOutput(); err != nil && rerun.ProcessState.ExitCode() > exitFindings {
					t.Fatalf("kill %d: rerun: %v\n%s", i, err, out)
				}
				if diff := cmp.Diff(final, live(tree(t, root), tc.backupOf)); diff != "" {
					t.Fatalf("kill %d after %v: rerun does not end where an uninterrupted run does (-want +got):\n%s", i, delay, diff)
				}
			}
			t.Logf("%d of %d runs killed (one run takes %v)", killed, kills, took)
			if killed < kills/2 {
				t.Errorf("only %d kills landed inside a run", killed)
			}
		})
	}
}

// isRunsWriteLock reports whether path is a transcript write lock in OpenClaw's format, as
// doctor's repair holds it: a run killed inside a repair leaves it, naming a holder that died
// with the run, and the rerun (whose end state is compared below) must take it over.
func isRunsWriteLock(path string) bool {
	if !strings.HasSuffix(path, ".jsonl.lock") {
		return false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var l struct {
		Pid       int    `json:"pid"`
		CreatedAt string `json:"createdAt"`
	}
	return json.Unmarshal(b, &l) == nil && l.Pid > 0 && l.CreatedAt != ""
}

// live keeps the files of a run that are neither backups nor temps.
func live(files map[string]string, backupOf func(string) string) map[string]string {
	out := map[string]string{}
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if backupOf(k) != "" || isOurTemp(k) || strings.HasPrefix(k, "state/clawdoctor-backups/") {
			continue
		}
		out[k] = files[k]
	}
	return out
}

func prefix(m map[string]string, p string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[p+k] = v
	}
	return out
}

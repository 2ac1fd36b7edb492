//go:build conformance

package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/retention"
)

// The reference is the real OpenClaw CLI (file era), installed on first use by
// ../shared/tools/openclaw-reference; faketime pins its clock to Now.

func reference(t *testing.T) string {
	t.Helper()
	ref := os.Getenv("OPENCLAW_REFERENCE")
	if ref == "" {
		ref = filepath.Join("..", "..", "..", "shared", "tools", "openclaw-reference")
	}
	if _, err := os.Stat(ref); err != nil {
		t.Skipf("reference tool %s not found (set OPENCLAW_REFERENCE)", ref)
	}
	if _, err := exec.LookPath("faketime"); err != nil {
		t.Skip("faketime not installed (apt-get install -y faketime)")
	}
	abs, _ := filepath.Abs(ref)
	return abs
}

func runReference(ref string, r run) (outcome, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, ref, r.args()...)
	cmd.Env = append(os.Environ(), "OPENCLAW_CONFIG_PATH="+r.configPath, "TZ=UTC",
		"OPENCLAW_REF_NOW="+Now.Format("2006-01-02 15:04:05"), "OPENCLAW_STATE_DIR="+filepath.Dir(r.configPath))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return outcome{}, out.Bytes(), fmt.Errorf("%v: %s", err, errb.String())
	}
	raw := out.Bytes()
	if i := bytes.IndexByte(raw, '{'); i > 0 {
		raw = raw[i:]
	}
	var s outcome
	if err := json.Unmarshal(raw, &s); err != nil {
		return s, out.Bytes(), fmt.Errorf("reference output: %v", err)
	}
	return s, raw, nil
}

// copyTree copies src into dst (regular files only, symlinks skipped) and sets distinct,
// deterministic mtimes so both tools see the same ages.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	var names []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		names = append(names, rel)
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	for i, n := range names {
		mt := Now.Add(-time.Duration(i*17+1) * 24 * time.Hour / 10)
		if err := os.Chtimes(filepath.Join(dst, n), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
}

func corpusStores(t *testing.T) []string {
	root := filepath.Join("..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(root); err != nil {
		t.Logf("corpus %s absent: only generated scenarios run", root)
		return nil
	}
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "sessions.json" {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

var passed, failed atomic.Int32

func check(t *testing.T, ref string, r run) {
	r.release = refRelease()
	want, raw, err := runReference(ref, r)
	if err != nil {
		failed.Add(1)
		t.Fatalf("reference: %v", err)
	}
	got, p, err := runOurs(r)
	if err != nil {
		failed.Add(1)
		t.Fatalf("ours: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		failed.Add(1)
		var keys []string
		for _, a := range p.Actions {
			if a.Action != retention.ActKeep {
				keys = append(keys, a.Action+" "+a.Key)
			}
		}
		t.Errorf("summary differs (-openclaw +clawdoctor)\n%s\nreference: %s\nour removals: %s", diff, raw, strings.Join(keys, "; "))
		return
	}
	passed.Add(1)
}

func TestConformance(t *testing.T) {
	ref := reference(t)
	t.Cleanup(func() { t.Logf("conformance: %d passed, %d failed", passed.Load(), failed.Load()) })
	if list := strings.Fields(os.Getenv("CONFORMANCE_STORES")); len(list) > 0 {
		// scripts/conformance.sh cleanup PATH...: the stores given, on OpenClaw's defaults.
		t.Run("path", func(t *testing.T) {
			for i, store := range list {
				t.Run(fmt.Sprintf("%d-%s", i+1, filepath.Base(filepath.Dir(store))), func(t *testing.T) {
					t.Parallel()
					dir := t.TempDir()
					sessions := filepath.Join(dir, "agents", "main", "sessions")
					copyTree(t, filepath.Dir(store), sessions)
					check(t, ref, run{name: store, store: filepath.Join(sessions, "sessions.json"), configPath: writeConfig(t, dir, map[string]any{})})
				})
			}
		})
		return
	}
	t.Run("corpus", func(t *testing.T) {
		for _, store := range corpusStores(t) {
			rel, _ := filepath.Rel(filepath.Join("..", "..", "..", "shared", "corpus"), store)
			name := strings.Split(rel, string(filepath.Separator))[0]
			for _, v := range []struct {
				suffix     string
				cfg        map[string]any
				fixMissing bool
				active     bool
			}{
				{"defaults", map[string]any{}, false, false},
				{"fix-missing", map[string]any{"session": map[string]any{"maintenance": map[string]any{"pruneAfter": "400d"}}}, true, false},
				{"tight", map[string]any{"session": map[string]any{"maintenance": map[string]any{"pruneAfter": "120d", "maxEntries": 2, "maxDiskBytes": "40kb"}}}, false, true},
			} {
				t.Run(name+"/"+v.suffix, func(t *testing.T) {
					t.Parallel()
					dir := t.TempDir()
					sessions := filepath.Join(dir, "agents", "main", "sessions")
					copyTree(t, filepath.Dir(store), sessions)
					r := run{name: name, store: filepath.Join(sessions, "sessions.json"), configPath: writeConfig(t, dir, v.cfg), fixMissing: v.fixMissing}
					if v.active {
						if l, err := retention.Gather(context.Background(), r.store, "main"); err == nil && len(l.Input.Entries) > 0 {
							r.activeKey = l.Input.Entries[0].Key
						}
					}
					check(t, ref, r)
				})
			}
		}
	})
	t.Run("generated", func(t *testing.T) {
		n := 60
		for _, sc := range Scenarios(n) {
			t.Run(sc.Name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				sessions := filepath.Join(dir, "agents", "main", "sessions")
				total, err := Generate(sessions, sc)
				if err != nil {
					t.Fatal(err)
				}
				r := run{name: sc.Name, store: filepath.Join(sessions, "sessions.json"),
					configPath: writeConfig(t, dir, sc.Config(total)), fixMissing: sc.FixMissing, activeKey: sc.ActiveKey}
				check(t, ref, r)
			})
		}
	})
}

// TestRecordCleanupOracle records the real OpenClaw's summary of every generated scenario
// into cleanupGolden(release) for the release the reference runs (OPENCLAW_REF_VERSION;
// CONFORMANCE_RECORD=cleanup; scripts/conformance-record.sh cleanup), each run in a state dir
// of cleanupRootLen bytes so that the offline test sees the same sizes.
func TestRecordCleanupOracle(t *testing.T) {
	if os.Getenv("CONFORMANCE_RECORD") != "cleanup" {
		t.Skip("CONFORMANCE_RECORD=cleanup records the cleanup oracle")
	}
	ref := reference(t)
	rel := refRelease()
	var out bytes.Buffer
	for _, sc := range Scenarios(60) {
		r := generatedRun(t, fixedRoot(t), sc)
		r.release = rel
		want, _, err := runReference(ref, r)
		if err != nil {
			t.Fatalf("%s: reference: %v", sc.Name, err)
		}
		got, _, err := runOurs(r)
		if err != nil {
			t.Fatalf("%s: ours: %v", sc.Name, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: recorded, but ours differs (-openclaw +clawdoctor)\n%s", sc.Name, diff)
		}
		line, _ := json.Marshal(cleanupRecord{Name: sc.Name, Summary: want.Summary, ModelRunPruned: want.ModelRunPruned})
		out.Write(append(line, '\n'))
	}
	golden := cleanupGolden(rel)
	if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %d runs in %s", len(Scenarios(60)), golden)
}

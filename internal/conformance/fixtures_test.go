//go:build conformance

package conformance

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/conformance/harness"
	"github.com/clawdoctor/clawdoctor/internal/openclaw"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

// TestFixturesAcceptedByOpenClaw: every kind of state dir `fixtures generate` writes is
// accepted by the real OpenClaw of every verified release (issue 11, point 7): its repair and
// SessionManager.open + buildSessionContext run without throwing on every transcript (on
// copies), and `openclaw sessions cleanup --dry-run --json` exits 0 with its JSON summary for
// every agent's store. Run by scripts/conformance-ci.sh.
func TestFixturesAcceptedByOpenClaw(t *testing.T) {
	ref := reference(t)
	states := map[string]fixtures.Options{
		"defaults":    {Seed: 1},
		"faults-all":  {Agents: 2, Sessions: 24, Seed: 2, Faults: allFaults(), Files: 120, GatewayLog: true, LongLine: 1<<20 + 4096},
		"single":      {Single: true, Size: 2 << 20, Seed: 3, BadLines: 0.01},
		"many-agents": {Agents: 3, Sessions: 40, Seed: 4, Files: 300},
	}
	names := make([]string, 0, len(states)+1)
	for n := range states {
		names = append(names, n)
	}
	sort.Strings(names)
	root := t.TempDir()
	dirs := map[string]string{}
	for _, n := range names {
		dir := filepath.Join(root, n)
		if _, err := fixtures.Generate(context.Background(), dir, states[n]); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		dirs[n] = dir
	}
	names = append(names, "demo")
	dirs["demo"] = filepath.Join(root, "demo")
	if err := fixtures.WriteDemo(dirs["demo"]); err != nil {
		t.Fatal(err)
	}
	for _, rel := range openclaw.Verified {
		t.Run(rel.String(), func(t *testing.T) {
			o, err := harness.Start(context.Background(), "accept.mjs", rel.String(), 2)
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			for _, n := range names {
				t.Run(n, func(t *testing.T) {
					checked := 0
					for _, f := range transcripts(t, dirs[n]) {
						raw, err := o.Call(context.Background(), harness.Request{"path": f})
						if err != nil {
							rp, _ := filepath.Rel(dirs[n], f)
							t.Errorf("%s: %v", rp, err)
							continue
						}
						var a struct{ Messages *int }
						if json.Unmarshal(raw, &a) != nil || a.Messages == nil {
							t.Errorf("%s: answer %s", f, raw)
						}
						checked++
					}
					if checked == 0 {
						t.Fatal("no transcripts checked")
					}
					stores, _ := filepath.Glob(filepath.Join(dirs[n], "agents", "*", "sessions", "sessions.json"))
					for _, st := range stores {
						r := run{name: n, store: st, configPath: filepath.Join(dirs[n], "openclaw.json")}
						if _, raw, err := runReferenceAt(ref, r, rel.String()); err != nil {
							t.Errorf("cleanup of %s: %v\n%.600s", st, err, raw)
						}
					}
					t.Logf("OpenClaw %s accepted %d transcripts and %d stores of %s", rel, checked, len(stores), n)
				})
			}
		})
	}
}

func allFaults() []string {
	var out []string
	for _, k := range fixtures.Kinds {
		out = append(out, k.Name)
	}
	return out
}

// transcripts lists the plain JSONL transcripts under dir (live, topics, archives, checkpoints).
func transcripts(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		switch store.Classify(d.Name()).Kind {
		case store.KindTranscript, store.KindTopic, store.KindResetArchive, store.KindDeletedArchive,
			store.KindBakArchive, store.KindCheckpoint:
		default:
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && len(b) >= 4 && string(b[:4]) == "\x28\xb5\x2f\xfd" {
			return nil // zstd archives are not transcripts to 2026.6.11 (cleanup.md)
		}
		out = append(out, p)
		return nil
	})
	return out
}

// runReferenceAt is runReference against release rel.
func runReferenceAt(ref string, r run, rel string) (outcome, []byte, error) {
	old, had := os.LookupEnv("OPENCLAW_REF_VERSION")
	os.Setenv("OPENCLAW_REF_VERSION", rel)
	defer func() {
		if had {
			os.Setenv("OPENCLAW_REF_VERSION", old)
		} else {
			os.Unsetenv("OPENCLAW_REF_VERSION")
		}
	}()
	return runReference(ref, r)
}

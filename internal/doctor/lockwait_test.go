package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/migration"
	"github.com/clawdoctor/clawdoctor/internal/store"
	"github.com/clawdoctor/clawdoctor/repair"
)

// burstWriter appends a line to path every few tens of milliseconds, each time under the
// transcript's write lock taken as OpenClaw takes it (O_EXCL, its pid inside, waiting while
// another holds it), and holds it for hold. first is closed once it holds the lock the first
// time; stop ends it and returns the lines it appended.
func burstWriter(t *testing.T, path string, hold time.Duration, first chan<- struct{}, stop <-chan struct{}) <-chan []string {
	out := make(chan []string, 1)
	lock := store.LockPath(path)
	go func() {
		var lines []string
		parent := "a2"
		for i := 0; ; i++ {
			select {
			case <-stop:
				out <- lines
				return
			default:
			}
			f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				time.Sleep(5 * time.Millisecond) // held by the repair: wait, as OpenClaw does
				continue
			}
			fmt.Fprintf(f, "{\n  \"pid\": %d,\n  \"createdAt\": %q\n}\n", os.Getpid(), now.Format(time.RFC3339Nano))
			f.Close()
			if i == 0 {
				close(first)
			}
			id := fmt.Sprintf("gw%d", i)
			line := fmt.Sprintf(`{"type":"custom","customType":"gw","id":%q,"parentId":%q,"timestamp":"2026-05-05T11:00:00.000Z"}`, id, parent)
			if a, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0); err == nil {
				if _, err := a.WriteString(line + "\n"); err == nil {
					lines = append(lines, line)
					parent = id
				}
				a.Close()
			}
			sleep(stop, hold)
			os.Remove(lock)
			sleep(stop, 3*hold)
		}
	}()
	return out
}

// issue 31, scope 1: doctor --fix --yes beside a gateway that appends to the damaged
// transcript in short bursts under its write lock. On main doctor sometimes skipped the file
// when its dry run met the lock: unrepaired, exit 1, neither file nor lock named. It must wait
// for the lock and repair the file, keeping every line the writer appended; a lock held past
// the wait refuses the fix naming the file and the holder (exit 3).
func TestFixWaitsForABriefLock(t *testing.T) {
	for _, tc := range []struct {
		name string
		hold time.Duration
		wait time.Duration
	}{
		{"brief bursts", 20 * time.Millisecond, 5 * time.Second},
		{"held past the wait", 3 * time.Second, 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			sd := filepath.Join(root, "agents", "main", "sessions")
			tr := filepath.Join(sd, sidA+".jsonl")
			write(t, filepath.Join(sd, "sessions.json"), fmt.Sprintf(`{"agent:main:main":{"sessionId":%q,"updatedAt":%d,"sessionFile":%q}}`, sidA, now.UnixMilli(), tr), time.Time{})
			write(t, tr, header(sidA)+`{"type":"message","id":"b1","parentId":"a1","timest`+"\n"+
				`{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-04-01T10:00:02.000Z","message":{"role":"user","content":"again","timestamp":2}}`+"\n", time.Time{})
			first, stop := make(chan struct{}), make(chan struct{})
			lines := burstWriter(t, tr, tc.hold, first, stop)
			<-first
			res, err := Run(context.Background(), Options{StateDir: root, Fix: true, Yes: true, Now: now, LockWait: tc.wait,
				Getenv: func(string) string { return "" }})
			close(stop)
			appended := <-lines
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(tr)
			for _, l := range appended {
				if !strings.Contains(string(got), l) {
					t.Errorf("the writer's line %s is not in the transcript", l)
				}
			}
			var repairs []Problem
			for _, p := range res.Problems {
				if p.Check == "repair.needed" {
					repairs = append(repairs, p)
				}
			}
			if len(repairs) != 1 {
				t.Fatalf("%d repair.needed problems, want 1: %+v", len(repairs), res.Problems)
			}
			p := repairs[0]
			if tc.wait > tc.hold {
				if p.Status != StatusFixed {
					t.Fatalf("repair.needed is %s (%s), want fixed once the writer let go of its lock", p.Status, p.Error)
				}
				dry := repair.RepairFile(context.Background(), sd, tr, repair.Options{DryRun: true, Relink: true, Now: now}, nil)
				if dry.Status != repair.StatusClean {
					t.Errorf("after the fix repair still finds work: %s (%s)", dry.Status, dry.Reason)
				}
				if _, _, bad, _ := res.Counts(); bad != 0 {
					t.Errorf("%d fixes refused or failed beside a brief lock", bad)
				}
				return
			}
			if p.Status != StatusRefused || p.Path != tr {
				t.Fatalf("repair.needed is %s for %s, want refused for %s", p.Status, p.Path, tr)
			}
			for _, want := range []string{fmt.Sprint(os.Getpid()), store.LockPath(tr)} {
				if !strings.Contains(p.Error+p.Message, want) {
					t.Errorf("the refusal %q does not name %s", p.Error, want)
				}
			}
			if _, _, bad, _ := res.Counts(); bad == 0 {
				t.Error("the refused fix is not counted (exit 3)")
			}
			if errors.Is(err, context.Canceled) {
				t.Fatal(err)
			}
		})
	}
}

// sleep waits d or until stop is closed.
func sleep(stop <-chan struct{}, d time.Duration) {
	select {
	case <-stop:
	case <-time.After(d):
	}
}

// issue 33, scope 2: on a case-insensitive file system a row naming "ABC.jsonl" references the
// listed "abc.jsonl" (one file): it is no orphan to archive. The fold is made here with a hard
// link (the probe finds the swapped-case name to be the same file); with two distinct files,
// a case-sensitive dir, the other one is an orphan as before.
func TestOrphanCheckFoldsCaseWhereTheFileSystemDoes(t *testing.T) {
	for _, fold := range []bool{false, true} {
		root := t.TempDir()
		sd := filepath.Join(root, "agents", "main", "sessions")
		old := now.Add(-48 * time.Hour)
		write(t, filepath.Join(sd, "sessions.json"), fmt.Sprintf(`{"agent:main:main":{"sessionId":%q,"updatedAt":%d,"sessionFile":"ABC.jsonl"}}`, sidA, now.UnixMilli()), old)
		write(t, filepath.Join(sd, "ABC.jsonl"), header(sidA), old)
		if fold {
			if err := os.Link(filepath.Join(sd, "ABC.jsonl"), filepath.Join(sd, "abc.jsonl")); err != nil {
				t.Skip(err)
			}
		} else {
			write(t, filepath.Join(sd, "abc.jsonl"), header(sidA), old)
		}
		res, err := Run(context.Background(), Options{StateDir: root, Now: now, Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		orphan := false
		for _, p := range res.Problems {
			if p.Check == "store.orphan-transcript" && filepath.Base(p.Path) == "abc.jsonl" {
				orphan = true
			}
		}
		if orphan == fold {
			t.Errorf("fold=%v: abc.jsonl reported as an orphan: %v", fold, orphan)
		}
	}
}

// issue 29, scope 2, offline: on generated state dirs with the line-level damage a crash or a
// disk leaves, doctor reports migration.import-truncates for the transcripts the SQLite import
// would cut short, and after doctor --fix --yes no transcript is cut short any more, as
// migration.Predict (equal to the real import on its recorded oracle) reads them. The live
// check, through the real 2026.9.6 import and export, is internal/conformance's
// TestLiveDoctorFixBeforeImport.
func TestFixLeavesNothingForTheImportToCut(t *testing.T) {
	faults := []string{"torn", "garbage", "nul", "utf8", "bom", "crlf", "glued", "dup-header"}
	for _, seed := range []uint64{21, 22, 23} {
		root := filepath.Join(t.TempDir(), "state")
		if _, err := fixtures.Generate(context.Background(), root, fixtures.Options{Agents: 1, Sessions: 10, Seed: seed, Faults: faults}); err != nil {
			t.Fatal(err)
		}
		truncating := func() []string {
			var out []string
			names, _ := filepath.Glob(filepath.Join(root, "agents", "main", "sessions", "*.jsonl"))
			for _, p := range names {
				pr, err := migration.PredictFile(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				if pr.Truncates() {
					out = append(out, filepath.Base(p))
				}
			}
			return out
		}
		before := truncating()
		if len(before) == 0 {
			t.Fatalf("seed %d: nothing the import would cut short: the faults do not exercise it", seed)
		}
		res := run(t, root, false, false)
		reported := 0
		for _, p := range res.Problems {
			if p.Check == "migration.import-truncates" {
				reported++
			}
		}
		if reported != len(before) {
			t.Errorf("seed %d: %d migration.import-truncates for %d transcripts the import would cut (%v)", seed, reported, len(before), before)
		}
		res = run(t, root, true, true)
		for _, p := range res.Problems {
			if p.Check == "migration.import-truncates" && p.Status != StatusFixed {
				t.Errorf("seed %d: %s is %s: %s", seed, filepath.Base(p.Path), p.Status, p.Error)
			}
		}
		if after := truncating(); len(after) > 0 {
			t.Errorf("seed %d: after doctor --fix --yes the import would still cut %v", seed, after)
		}
	}
}

// issue 30, scope 4: after doctor --fix --yes on generated state dirs with every fault (several
// seeds), `clawdoctor repair --dry-run` has nothing left: a corrupt sessions.json is salvaged as
// repair --rebuild-store does, a transcript without a header gets one as repair
// --synthesize-header does; what remains is only what no command fixes. On main the corrupt
// store of seed 11 and the headerless transcript stayed for repair.
func TestFixYesLeavesNothingForRepair(t *testing.T) {
	for _, seed := range []uint64{11, 12, 13} {
		root := filepath.Join(t.TempDir(), "state")
		faults, _ := fixtures.ParseFaults("all")
		if _, err := fixtures.Generate(context.Background(), root, fixtures.Options{Agents: 2, Sessions: 40, Seed: seed, Faults: faults}); err != nil {
			t.Fatal(err)
		}
		before, err := repair.Run(context.Background(), repair.Target{StateDir: root, AllAgents: true}, repair.Options{DryRun: true, Now: now}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if before.Summary.Repaired == 0 {
			t.Fatalf("seed %d: repair finds nothing before doctor: the faults do not exercise it", seed)
		}
		res := run(t, root, true, true)
		for _, p := range res.Problems {
			if p.Status == StatusFailed || p.Status == StatusRefused {
				t.Errorf("seed %d: %s %s is %s: %s", seed, p.Check, p.Path, p.Status, p.Error)
			}
		}
		after, err := repair.Run(context.Background(), repair.Target{StateDir: root, AllAgents: true}, repair.Options{DryRun: true, Now: now}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range after.Files {
			if f.Status == repair.StatusRepaired || f.Status == repair.StatusSkipped {
				t.Errorf("seed %d: after doctor --fix --yes, repair still %s %s: %s", seed, f.Status, f.Path, f.Reason)
			}
		}
	}
}

package retention_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/config"
	"github.com/clawdoctor/clawdoctor/internal/retention"
)

// treeSums maps every path under root to a checksum of its bytes (or its link target).
func treeSums(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link:" + target
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			info, _ := d.Info()
			out[rel] = hex.EncodeToString(sum[:]) + " " + info.ModTime().UTC().Format(time.RFC3339Nano)
		case d.IsDir():
			out[rel] = "dir"
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func write(t *testing.T, path, data string, mtime time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

const msgLine = `{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}
{"type":"message","id":"m1","parentId":null,"message":{"role":"user","content":"hi"}}
`

// TestHostileSessionFilesNeverTouchOutside runs the most destructive settings (prune
// everything, cap 1, 0-byte disk budget, fix-missing, apply) over a store whose sessionFile
// values point outside the sessions dir in every way we know, and proves that no byte, name
// or mtime outside the sessions dir changed.
func TestHostileSessionFilesNeverTouchOutside(t *testing.T) {
	root := t.TempDir()
	old := now.Add(-400 * 24 * time.Hour)
	outside := filepath.Join(root, "outside")
	state := filepath.Join(root, "state")
	sessions := filepath.Join(state, "agents", "main", "sessions")
	other := filepath.Join(state, "agents", "other", "sessions")
	for _, name := range []string{"x.jsonl", "victim.jsonl", "abs.jsonl", "link-target.jsonl", "dir-target/inner.jsonl",
		"victim.jsonl.deleted.2020-01-01T00-00-00.000Z", "abs.trajectory.jsonl"} {
		write(t, filepath.Join(outside, name), msgLine, old)
	}
	write(t, filepath.Join(other, "sib.jsonl"), msgLine, old)
	write(t, filepath.Join(state, "x.jsonl"), msgLine, old)
	write(t, filepath.Join(sessions, "plain.jsonl"), msgLine, old)
	write(t, filepath.Join(sessions, "orphan.jsonl"), msgLine, old)
	if err := os.Symlink(filepath.Join(outside, "link-target.jsonl"), filepath.Join(sessions, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "dir-target"), filepath.Join(sessions, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "victim.jsonl"), filepath.Join(sessions, "victim.jsonl")); err != nil {
		t.Fatal(err)
	}
	store := `{
  "agent:main:direct:dotdot": {"sessionId": "x", "sessionFile": "../../x.jsonl", "updatedAt": 1},
  "agent:main:direct:dotdot2": {"sessionId": "y", "sessionFile": "../../../../outside/x.jsonl", "updatedAt": 1},
  "agent:main:direct:abs": {"sessionId": "abs", "sessionFile": "` + filepath.Join(outside, "abs.jsonl") + `", "updatedAt": 1},
  "agent:main:direct:link": {"sessionId": "link", "sessionFile": "link.jsonl", "updatedAt": 1},
  "agent:main:direct:victim": {"sessionId": "victim", "updatedAt": 1},
  "agent:main:direct:subdir": {"sessionId": "inner", "sessionFile": "sub/inner.jsonl", "updatedAt": 1},
  "agent:main:direct:sibling": {"sessionId": "sib", "sessionFile": "` + filepath.Join(other, "sib.jsonl") + `", "updatedAt": 1},
  "agent:main:direct:foreign": {"sessionId": "f", "sessionFile": "/home/u/.openclaw/agents/main/sessions/f.jsonl", "updatedAt": 1},
  "agent:main:direct:plain": {"sessionId": "plain", "updatedAt": 1},
  "agent:main:main": {"sessionId": "plain", "updatedAt": 1}
}`
	write(t, filepath.Join(sessions, "sessions.json"), store, old)
	outsideBefore := treeSums(t, outside)
	otherBefore := treeSums(t, other)
	stateX := treeSums(t, state)["x.jsonl"]

	l, err := retention.Gather(context.Background(), filepath.Join(sessions, "sessions.json"), "main")
	if err != nil {
		t.Fatal(err)
	}
	s, err := retention.Resolve(config.Maintenance{PruneAfter: "1ms", MaxEntries: 1.0, MaxDiskBytes: "0", ResetArchiveRetention: "0"}, config.Cron{}, retention.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	p := retention.Make(&l.Input, retention.Options{Settings: s, Now: now, FixMissing: true})
	var outsideKeys []string
	for _, o := range p.Outside {
		outsideKeys = append(outsideKeys, o.Key)
	}
	sort.Strings(outsideKeys)
	wantOutside := []string{"agent:main:direct:abs", "agent:main:direct:dotdot", "agent:main:direct:dotdot2", "agent:main:direct:foreign", "agent:main:direct:link", "agent:main:direct:sibling",
		"agent:main:direct:subdir", "agent:main:direct:victim"}
	if diff := cmp.Diff(wantOutside, outsideKeys); diff != "" {
		t.Errorf("store.outside-path findings (-want +got)\n%s", diff)
	}
	for _, f := range p.Files {
		if strings.Contains(f.Path, "..") || filepath.IsAbs(f.Path) || strings.HasPrefix(f.Path, "sub/") ||
			f.Path == "link.jsonl" || f.Path == "victim.jsonl" {
			t.Errorf("plan touches %s (%s)", f.Path, f.Reason)
		}
	}
	a, err := retention.Apply(context.Background(), l, p, now)
	if err != nil {
		t.Fatal(err)
	}
	if a.RemovedKeys == 0 || a.Deleted+a.Archived == 0 {
		t.Fatalf("the destructive run did nothing inside: %+v", a)
	}
	if diff := cmp.Diff(outsideBefore, treeSums(t, outside)); diff != "" {
		t.Errorf("outside tree changed (-before +after)\n%s", diff)
	}
	if diff := cmp.Diff(otherBefore, treeSums(t, other)); diff != "" {
		t.Errorf("sibling agent changed (-before +after)\n%s", diff)
	}
	if got := treeSums(t, state)["x.jsonl"]; got != stateX {
		t.Errorf("state-dir file reached by ../../ changed")
	}
	for _, link := range []string{"link.jsonl", "sub", "victim.jsonl"} {
		if _, err := os.Lstat(filepath.Join(sessions, link)); err != nil {
			t.Errorf("symlink %s inside the sessions dir was removed: %v", link, err)
		}
	}
	if _, err := os.Stat(a.Backup); err != nil {
		t.Errorf("no backup of sessions.json: %v", err)
	}
	if data, err := os.ReadFile(a.Backup); err != nil || string(data) != store {
		t.Errorf("backup does not hold the old store bytes")
	}
}

// TestApplyRewritesStoreKeepingBytes checks that the rewritten store is the old one minus the
// removed keys, 2-space JSON.stringify, and that the removed transcript became an archive.
func TestApplyRewritesStoreKeepingBytes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agents", "main", "sessions")
	old := now.Add(-40 * 24 * time.Hour)
	store := "{\n  \"agent:main:main\": {\n    \"sessionId\": \"m\",\n    \"updatedAt\": " + ms(now.Add(-time.Hour)) + ",\n    \"x\": \"<é>\"\n  },\n  \"agent:main:direct:old\": {\n    \"sessionId\": \"o\",\n    \"updatedAt\": " + ms(old) + "\n  }\n}"
	write(t, filepath.Join(dir, "sessions.json"), store, now)
	write(t, filepath.Join(dir, "m.jsonl"), msgLine, now)
	write(t, filepath.Join(dir, "o.jsonl"), msgLine, old)
	l, err := retention.Gather(context.Background(), filepath.Join(dir, "sessions.json"), "main")
	if err != nil {
		t.Fatal(err)
	}
	p := retention.Make(&l.Input, retention.Options{Settings: settings(t, config.Maintenance{}), Now: now})
	if _, err := retention.Apply(context.Background(), l, p, now); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "sessions.json"))
	want := "{\n  \"agent:main:main\": {\n    \"sessionId\": \"m\",\n    \"updatedAt\": " + ms(now.Add(-time.Hour)) + ",\n    \"x\": \"<é>\"\n  }\n}"
	if string(got) != want {
		t.Errorf("store\n%s\nwant\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "o.jsonl.deleted."+retention.ArchiveStamp(now))); err != nil {
		t.Errorf("pruned transcript not archived: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "m.jsonl")); err != nil {
		t.Errorf("kept transcript gone: %v", err)
	}
	// A second run has nothing to do.
	l2, _ := retention.Gather(context.Background(), filepath.Join(dir, "sessions.json"), "main")
	if p2 := retention.Make(&l2.Input, retention.Options{Settings: settings(t, config.Maintenance{}), Now: now}); p2.Changes() {
		t.Errorf("second run still plans changes: %+v", p2.Files)
	}
}

func ms(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

// issue 10, scope 2: a kept row whose sessionFile is another machine's absolute path keeps its
// transcript here, though OpenClaw's own cleanup (its artifact sweep, its disk budget) would
// delete it; an orphan is archived, never unlinked. Both runs are real applies.
func TestCleanupKeepsTranscriptsOfKeptRows(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    config.Maintenance
	}{
		{"artifact sweep", config.Maintenance{}},
		{"disk budget", config.Maintenance{MaxDiskBytes: "400", HighWaterBytes: "300"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := t.TempDir()
			sessions := filepath.Join(state, "agents", "main", "sessions")
			old := now.Add(-400 * 24 * time.Hour)
			write(t, filepath.Join(sessions, "abc.jsonl"), msgLine, old)
			write(t, filepath.Join(sessions, "orphan.jsonl"), msgLine, old)
			store := `{"agent:main:main":{"sessionId":"abc","sessionFile":"/srv/old-host/.openclaw/agents/main/sessions/abc.jsonl","updatedAt":` +
				strconv.FormatInt(now.Add(-time.Hour).UnixMilli(), 10) + `}}`
			write(t, filepath.Join(sessions, "sessions.json"), store, old)
			before := treeSums(t, sessions)["abc.jsonl"]
			s, err := retention.Resolve(tc.m, config.Cron{}, retention.Overrides{})
			if err != nil {
				t.Fatal(err)
			}
			out, err := retention.Run(context.Background(), retention.Target{Agent: "main", Store: filepath.Join(sessions, "sessions.json")},
				retention.RunOptions{StateDir: state, Options: retention.Options{Settings: s, Now: now}})
			if err != nil || out.Refused != "" {
				t.Fatalf("run: %v %q", err, out.Refused)
			}
			if got := treeSums(t, sessions)["abc.jsonl"]; got != before {
				t.Fatalf("the kept row's transcript changed or vanished (%q)", got)
			}
			p := out.Plan
			if len(p.Relocated) != 1 || p.Relocated[0].Local != "abc.jsonl" || p.Relocated[0].OpenClawAction != retention.FileDelete {
				t.Errorf("store.relocated-path finding %+v", p.Relocated)
			}
			if p.OpenClaw == nil {
				t.Fatal("no OpenClaw summary beside ours: the difference is not reported")
			}
			if tc.m.MaxDiskBytes == nil {
				if _, err := os.Stat(filepath.Join(sessions, "orphan.jsonl.deleted."+retention.ArchiveStamp(now))); err != nil {
					t.Errorf("orphan not archived: %v", err)
				}
				if out.Applied == nil || out.Applied.Deleted != 0 {
					t.Errorf("applied %+v: nothing may be deleted here", out.Applied)
				}
				return
			}
			// issue 30: the budget needs the orphan's bytes, so it goes as OpenClaw's does
			if out.Applied == nil || out.Applied.Deleted != 1 || len(out.Applied.Removed) != 1 || out.Applied.Removed[0].Path != "orphan.jsonl" {
				t.Errorf("applied %+v: the budget deletes the orphan, and only it", out.Applied)
			}
		})
	}
}

// issue 33, scope 2: on a case-insensitive file system (macOS, Windows) a row whose
// sessionFile is "ABC.jsonl" names the listed "abc.jsonl": OpenClaw compares names exactly and
// sweeps it as unreferenced; clawdoctor keeps it and says why. On a case-sensitive dir (this
// one, as listed) the two are different files and the orphan is archived as before.
func TestCleanupKeepsTranscriptNamedInAnotherCase(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agents", "main", "sessions")
	old := now.Add(-400 * 24 * time.Hour)
	write(t, filepath.Join(dir, "sessions.json"), `{"agent:main:main":{"sessionId":"m","sessionFile":"ABC.jsonl","updatedAt":`+ms(now.Add(-time.Hour))+`}}`, old)
	write(t, filepath.Join(dir, "abc.jsonl"), msgLine, old)
	for _, fold := range []bool{false, true} {
		l, err := retention.Gather(context.Background(), filepath.Join(dir, "sessions.json"), "main")
		if err != nil {
			t.Fatal(err)
		}
		if l.Input.FoldCase {
			t.Fatal("a case-sensitive dir taken for a case-insensitive one")
		}
		l.Input.FoldCase = fold // what gather finds on APFS or NTFS
		p := retention.Make(&l.Input, retention.Options{Settings: settings(t, config.Maintenance{}), Now: now, Explain: true})
		var acted, kept string
		for _, f := range p.Files {
			if f.Path == "abc.jsonl" {
				acted = f.Action
			}
		}
		n := 0
		for _, f := range p.Kept {
			if f.Path == "abc.jsonl" {
				kept = f.Reason
				n++
			}
		}
		if n > 1 {
			t.Errorf("--explain lists abc.jsonl %d times (issue 30: one line a file)", n)
		}
		switch {
		case fold && (acted != "" || !strings.Contains(kept, "another letter case")):
			t.Errorf("case-insensitive: abc.jsonl %q (kept: %q), want kept as the row's transcript", acted, kept)
		case !fold && acted != retention.FileArchive:
			t.Errorf("case-sensitive: abc.jsonl %q, want archived as an orphan", acted)
		}
	}
}

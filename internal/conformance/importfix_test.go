//go:build conformance

package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/recovery"
	"github.com/clawdoctor/clawdoctor/repair"
)

// entryIDs are the ids of the entries of the live transcripts under sessions as the JSONL-era
// gateway reads them (invalid UTF-8 replaced, every line that parses as an object), by file.
func entryIDs(t *testing.T, sessions string) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	names, _ := filepath.Glob(filepath.Join(sessions, "*.jsonl"))
	for _, p := range names {
		if strings.Contains(filepath.Base(p), ".checkpoint.") || strings.Contains(filepath.Base(p), ".trajectory") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		sid := ""
		for _, l := range bytes.Split(repair.ReplaceInvalidUTF8(b), []byte("\n")) {
			var v struct {
				ID   any    `json:"id"`
				Type string `json:"type"`
			}
			if json.Unmarshal(bytes.TrimSpace(bytes.Trim(l, "\ufeff\x00")), &v) == nil {
				s, ok := v.ID.(string)
				switch {
				case ok && v.Type == "session" && sid == "":
					sid = s
				case ok && v.Type != "session":
					ids[s] = true
				}
			}
		}
		if sid == "" {
			sid = strings.TrimSuffix(filepath.Base(p), ".jsonl")
		}
		out[sid+" ("+filepath.Base(p)+")"] = ids
	}
	return out
}

// exportedIDs runs the real import of release on state, then clawdoctor export of the
// database, and returns the entry ids of every exported session, by session id.
func exportedIDs(t *testing.T, ref, bin, release, state string) map[string]map[string]bool {
	t.Helper()
	os.Remove(filepath.Join(state, "openclaw.json")) // the generator's writeLock key is refused by 2026.8+
	runRelease(t, ref, release, state, "doctor", "--session-sqlite", "import", "--json")
	return databaseIDs(t, bin, state)
}

// runRelease runs a real release on state at the fixtures' clock and returns its output.
func runRelease(t *testing.T, ref, release, state string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, ref, args...)
	cmd.Env = append(os.Environ(), "OPENCLAW_REF_VERSION="+release, "OPENCLAW_STATE_DIR="+state, "OPENCLAW_REF_NOW=2026-05-02 08:00:00")
	out, _ := cmd.CombinedOutput()
	return out
}

// databaseIDs exports the main agent's database with clawdoctor and returns the entry ids of
// every session, by session id.
func databaseIDs(t *testing.T, bin, state string) map[string]map[string]bool {
	t.Helper()
	out := filepath.Join(t.TempDir(), "export")
	if b, err := exec.Command(bin, "--no-progress", "--state-dir", state, "export", "--agent", "main", "--out", out).CombinedOutput(); err != nil {
		t.Fatalf("export: %v\n%s", err, b)
	}
	got := map[string]map[string]bool{}
	filepath.Walk(out, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return nil
		}
		f, _ := os.Open(p)
		defer f.Close()
		ids := map[string]bool{}
		sid := ""
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var v struct {
				ID   string `json:"id"`
				Type string `json:"type"`
			}
			if json.Unmarshal(sc.Bytes(), &v) == nil {
				if v.Type == "session" && sid == "" {
					sid = v.ID
				} else if v.ID != "" {
					ids[v.ID] = true
				}
			}
		}
		if sid != "" {
			got[sid] = ids
		}
		return nil
	})
	return got
}

// recoverInto runs clawdoctor recover on state, puts each file it wrote where the session's
// transcript lives (the steps it prints), and runs the real release's own recover; it returns
// the sessions recover wrote.
func recoverInto(t *testing.T, ref, bin, release, state string) []recovery.Session {
	t.Helper()
	out := filepath.Join(t.TempDir(), "recovered")
	b, err := exec.Command(bin, "--no-progress", "--json", "--now", "2026-05-02T09:30:00Z", "--state-dir", state, "recover", "--agent", "main", "--out", out).Output()
	if err != nil && !strings.Contains(err.Error(), "exit status 1") {
		t.Fatalf("recover: %v\n%s", err, b)
	}
	var res recovery.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("recover --json: %v\n%s", err, b)
	}
	var wrote []recovery.Session
	for _, s := range res.Sessions {
		if s.File == "" {
			continue
		}
		data, err := os.ReadFile(s.File)
		if err != nil {
			t.Fatal(err)
		}
		if s.Retire != "" { // the steps: cmp the copy, rm the original
			a, _ := os.ReadFile(s.Retire)
			b, _ := os.ReadFile(s.OriginalCopy)
			if !bytes.Equal(a, b) {
				t.Fatalf("the copy %s is not the original %s", s.OriginalCopy, s.Retire)
			}
			os.Remove(s.Retire)
		}
		if err := os.WriteFile(s.Install, data, 0o600); err != nil {
			t.Fatal(err)
		}
		wrote = append(wrote, s)
	}
	if len(wrote) > 0 {
		runRelease(t, ref, release, state, "doctor", "--session-sqlite", "recover", "--json")
	}
	return wrote
}

// TestLiveDoctorFixBeforeImport (issue 29, scope 2): generated state dirs with the line-level
// damage a crash or a disk leaves (torn and garbled lines, NUL runs, invalid UTF-8, BOMs,
// CRLF, glued entries, a second header) go through the real 2026.9.6 import as they are, and
// after `clawdoctor doctor --fix --yes`; `clawdoctor export` of each database gives the entries
// it holds. As they are, the import leaves entries out; after doctor, every entry id the
// gateway read is in the database.
func TestLiveDoctorFixBeforeImport(t *testing.T) {
	ref := reference(t)
	bin := filepath.Join(t.TempDir(), "clawdoctor")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/clawdoctor/clawdoctor").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	faults := []string{"torn", "garbage", "nul", "utf8", "bom", "crlf", "glued", "dup-header"}
	var plainLost, fixedLost, recoveredLost, total, recovered int
	for _, seed := range []uint64{21, 22, 23} {
		base := filepath.Join(t.TempDir(), "gen")
		if _, err := fixtures.Generate(context.Background(), base, fixtures.Options{Agents: 1, Sessions: 10, Seed: seed, Faults: faults}); err != nil {
			t.Fatal(err)
		}
		sessions := filepath.Join("agents", "main", "sessions")
		want := entryIDs(t, filepath.Join(base, sessions))
		// as they are
		plain := filepath.Join(t.TempDir(), "plain")
		if err := os.CopyFS(plain, os.DirFS(base)); err != nil {
			t.Fatal(err)
		}
		got := exportedIDs(t, ref, bin, "2026.9.6", plain)
		// after doctor --fix --yes
		fixed := filepath.Join(t.TempDir(), "fixed")
		if err := os.CopyFS(fixed, os.DirFS(base)); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(bin, "--no-progress", "--now", "2026-05-02T08:00:00Z", "--state-dir", fixed, "doctor", "--fix", "--yes").CombinedOutput(); err != nil && !strings.Contains(err.Error(), "exit status 1") {
			t.Fatalf("doctor --fix --yes: %v\n%s", err, out)
		}
		gotFixed := exportedIDs(t, ref, bin, "2026.9.6", fixed)
		// after the plain import: clawdoctor recover, then OpenClaw's own recover
		recovered += len(recoverInto(t, ref, bin, "2026.9.6", plain))
		gotRecovered := databaseIDs(t, bin, plain)
		for file, ids := range want {
			sid, _, _ := strings.Cut(file, " ")
			for id := range ids {
				total++
				if !got[sid][id] {
					plainLost++
				}
				if !gotFixed[sid][id] {
					fixedLost++
					if fixedLost <= 10 {
						t.Errorf("seed %d: entry %s of %s is not in the database after doctor --fix --yes and the import", seed, id, file)
					}
				}
				if !gotRecovered[sid][id] {
					recoveredLost++
					if recoveredLost <= 10 {
						t.Errorf("seed %d: entry %s of %s is not in the database after the import, clawdoctor recover and openclaw's recover", seed, id, file)
					}
				}
			}
		}
	}
	t.Logf("%d entries the gateway reads: the plain import leaves out %d; after doctor --fix --yes, %d; after the plain import, clawdoctor recover (%d sessions) and openclaw doctor --session-sqlite recover, %d",
		total, plainLost, fixedLost, recovered, recoveredLost)
	if plainLost == 0 || recovered == 0 {
		t.Error("the plain import lost nothing, or nothing was recovered: the damage does not exercise the import")
	}
}

// TestLiveRecover (issue 29, scope 3): on the real 2026.9.6 state dir whose import cut a session
// short and whose gateway wrote two events after it (fixtures.Recover96), the file clawdoctor
// recover writes is taken whole by OpenClaw's own recover: every entry of the original is in
// the database afterwards, the last event is recover's custom entry, and its parent is the
// gateway's last event, so the conversation since the import stays the active one.
func TestLiveRecover(t *testing.T) {
	ref := reference(t)
	bin := filepath.Join(t.TempDir(), "clawdoctor")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/clawdoctor/clawdoctor").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, name := range []string{fixtures.Recover96, fixtures.Half96} {
		t.Run(name, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "state")
			if err := fixtures.WriteRealState(name, state); err != nil {
				t.Fatal(err)
			}
			wrote := recoverInto(t, ref, bin, "2026.9.6", state)
			if len(wrote) != 1 {
				t.Fatalf("recover wrote %d files, want 1", len(wrote))
			}
			s := wrote[0]
			got := databaseIDs(t, bin, state)[s.Session]
			// every entry of the original the gateway read (the garbled line is none)
			dir := t.TempDir()
			data, err := os.ReadFile(s.OriginalCopy)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, s.Session+".jsonl"), data, 0o600)
			n := 0
			for file, ids := range entryIDs(t, dir) {
				for id := range ids {
					n++
					if !got[id] {
						t.Errorf("entry %s of %s is not in the database after both recovers", id, file)
					}
				}
			}
			if n == 0 {
				t.Fatal("the original holds no entries: nothing was checked")
			}
			if s.Leaf != "" {
				// the database's last event is the leaf, under the gateway's last event
				out := filepath.Join(t.TempDir(), "x")
				if b, err := exec.Command(bin, "--no-progress", "--state-dir", state, "export", "--agent", "main", "--session", s.Session, "--out", out).CombinedOutput(); err != nil {
					t.Fatalf("export: %v\n%s", err, b)
				}
				data, _ := os.ReadFile(filepath.Join(out, s.Session+".jsonl"))
				all := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
				var last struct{ Type, ID, ParentID string }
				json.Unmarshal([]byte(all[len(all)-1]), &last)
				if last.Type != "custom" || last.ID != s.Leaf || last.ParentID != "a1f0c002" {
					t.Errorf("the database's last event %+v: want the leaf %s under a1f0c002", last, s.Leaf)
				}
			}
			t.Logf("%s: %d lines of the original added, %d entries now", s.Session, s.AddedLines, len(got))
		})
	}
}

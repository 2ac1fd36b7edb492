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
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, ref, "doctor", "--session-sqlite", "import", "--json")
	cmd.Env = append(os.Environ(), "OPENCLAW_REF_VERSION="+release, "OPENCLAW_STATE_DIR="+state, "OPENCLAW_REF_NOW=2026-05-02 08:00:00")
	cmd.CombinedOutput()
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
	var plainLost, fixedLost, total int
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
			}
		}
	}
	t.Logf("%d entries the gateway reads: the plain import leaves out %d; after doctor --fix --yes, %d", total, plainLost, fixedLost)
	if plainLost == 0 {
		t.Error("the plain import lost nothing: the damage does not exercise the import")
	}
}

package audit_test

import (
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/audit"
	cstore "github.com/clawdoctor/clawdoctor/internal/store"
)

var now = time.Date(2026, 5, 5, 12, 0, 0, 0, time.UTC)

// sessionsDir writes files into <tmp>/agents/main/sessions and returns that dir.
func sessionsDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "agents", "main", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runDir(t *testing.T, dir string) *audit.Result {
	t.Helper()
	res, err := audit.Run(context.Background(), []string{dir}, audit.Options{Now: now}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func byRule(res *audit.Result, rule string) []audit.Finding {
	var out []audit.Finding
	for _, f := range res.Findings {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

const (
	idA = "3f0c2a9e-6b1d-4c55-9a0e-1c2d3e4f5a6b"
	idB = "9d1e0000-0000-4000-8000-0000000077aa"
	idC = "5c4b3a29-1807-4f6e-9d8c-7b6a5f4e3d2c"
)

func row(id string, extra string) string {
	return fmt.Sprintf(`{"sessionId":%q,"updatedAt":1741939200000%s}`, id, extra)
}

func store(rows ...string) string {
	var parts []string
	for i, r := range rows {
		parts = append(parts, fmt.Sprintf("  %q: %s", fmt.Sprintf("agent:main:k%d", i), r))
	}
	return "{\n" + strings.Join(parts, ",\n") + "\n}"
}

func TestStoreRules(t *testing.T) {
	for _, tc := range []struct {
		rule  string
		fire  map[string]string
		line  int64
		quiet map[string]string
	}{
		{"store.corrupt", map[string]string{"sessions.json": `{"agent:main:main": {"sessionId": "x", "upd`}, 1,
			map[string]string{"sessions.json": store(row(idA, "")), idA + ".jsonl": clean}},
		{"store.corrupt", map[string]string{"sessions.json": `[]`}, 1, map[string]string{"sessions.json": `{}`}},
		{"store.invalid-entry", map[string]string{"sessions.json": store(row(idA, ""), `"not an object"`), idA + ".jsonl": clean}, 3,
			map[string]string{"sessions.json": store(row(idA, "")), idA + ".jsonl": clean}},
		{"store.invalid-entry", map[string]string{"sessions.json": store(row("../../etc", ""))}, 2, map[string]string{"sessions.json": store(row(idA, "")), idA + ".jsonl": clean}},
		{"store.missing-transcript", map[string]string{"sessions.json": store(row(idA, ""), row(idB, ""))}, 2,
			map[string]string{"sessions.json": store(row(idA, ""), row(idB, "")), idA + ".jsonl": clean, idB + ".jsonl": clean}},
		{"store.orphan-transcript", map[string]string{"sessions.json": store(row(idA, "")), idA + ".jsonl": clean, idB + ".jsonl": clean}, 0,
			map[string]string{"sessions.json": store(row(idA, ""), row(idB, `,"sessionFile":"`+idB+`.jsonl"`)), idA + ".jsonl": clean, idB + ".jsonl": clean}},
		{"store.outside-path", map[string]string{"sessions.json": store(row(idA, `,"sessionFile":"../../../etc/passwd"`)), idA + ".jsonl": clean}, 2,
			// an absolute path into another machine's sessions tree is remapped, not outside
			map[string]string{"sessions.json": store(row(idA, `,"sessionFile":"/home/u/.openclaw/agents/main/sessions/`+idA+`.jsonl"`)), idA + ".jsonl": clean}},
		{"store.outside-path", map[string]string{"sessions.json": store(row(idA, `,"sessionFile":"/etc/`+idA+`.jsonl"`)), idA + ".jsonl": clean}, 2,
			map[string]string{"sessions.json": store(row(idA, `,"sessionFile":"C:\\Users\\u\\.openclaw\\agents\\main\\sessions\\`+idA+`.jsonl"`)), idA + ".jsonl": clean}},
		{"store.oversized-entry", map[string]string{"sessions.json": store(row(idA, `,"skillsSnapshot":{"prompt":"`+strings.Repeat("s", 300<<10)+`"}`)), idA + ".jsonl": clean}, 2,
			map[string]string{"sessions.json": store(row(idA, `,"skillsSnapshot":{"prompt":"`+strings.Repeat("s", 20<<10)+`"}`)), idA + ".jsonl": clean}},
		{"cli.binding-mismatch", map[string]string{"sessions.json": store(row(idA, `,"cliSessionIds":{"claude-cli":"aaa"},"cliSessionBindings":{"claude-cli":{"sessionId":"bbb"}}`)), idA + ".jsonl": clean}, 2,
			map[string]string{"sessions.json": store(row(idA, `,"cliSessionIds":{"claude-cli":"aaa"},"cliSessionBindings":{"claude-cli":{"sessionId":"aaa"}},"claudeCliSessionId":"aaa"`)), idA + ".jsonl": clean}},
		{"cli.binding-mismatch", map[string]string{"sessions.json": store(row(idA, `,"cliSessionIds":{"claude-cli":"aaa"},"claudeCliSessionId":"ccc"`)), idA + ".jsonl": clean}, 2,
			map[string]string{"sessions.json": store(row(idA, `,"cliSessionIds":{"claude-cli":"aaa"}`)), idA + ".jsonl": clean}},
		{"cli.shared-session-id", map[string]string{"sessions.json": store(row(idA, `,"cliSessionIds":{"claude-cli":"aaa"}`), row(idB, `,"cliSessionIds":{"claude-cli":"aaa"}`)), idA + ".jsonl": clean, idB + ".jsonl": clean}, 3,
			map[string]string{"sessions.json": store(row(idA, `,"cliSessionIds":{"claude-cli":"aaa"}`), row(idB, `,"cliSessionIds":{"claude-cli":"bbb"}`)), idA + ".jsonl": clean, idB + ".jsonl": clean}},
		{"lock.stale", map[string]string{"sessions.json": store(row(idA, "")), idA + ".jsonl": clean,
			idA + ".jsonl.lock": `{"pid": 999999999, "createdAt": "2026-05-05T09:00:00.000Z"}`}, 0,
			map[string]string{"sessions.json": store(row(idA, "")), idA + ".jsonl": clean}},
		{"lock.live", map[string]string{"sessions.json": store(row(idA, "")), idA + ".jsonl": clean,
			idA + ".jsonl.lock": fmt.Sprintf(`{"pid": %d, "createdAt": "2026-05-05T11:59:00.000Z"}`, os.Getpid())}, 0,
			map[string]string{"sessions.json": store(row(idA, "")), idA + ".jsonl": clean,
				idA + ".jsonl.lock": `{"pid": 999999999, "createdAt": "2026-05-05T11:59:00.000Z"}`}},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			res := runDir(t, sessionsDir(t, tc.fire))
			sameWithParsedStore(t, sessionsDir(t, tc.fire))
			sameWithParsedStore(t, sessionsDir(t, tc.quiet))
			sameWithSkip(t, sessionsDir(t, tc.fire), tc.rule)
			got := byRule(res, tc.rule)
			if len(got) == 0 {
				t.Fatalf("%s did not fire; findings: %v", tc.rule, res.Findings)
			}
			if got[0].Line != tc.line {
				t.Errorf("line %d, want %d (%s)", got[0].Line, tc.line, got[0].Message)
			}
			if q := byRule(runDir(t, sessionsDir(t, tc.quiet)), tc.rule); len(q) > 0 {
				t.Errorf("%s fired on the correct form: %v", tc.rule, q[0].Message)
			}
		})
	}
}

// sameWithParsedStore checks that auditing dir with its sessions.json handed over already
// parsed (Options.Stores, as doctor does) finds exactly what reading it finds, without parsing
// the store again.
func sameWithParsedStore(t *testing.T, dir string) {
	t.Helper()
	want := runDir(t, dir)
	s, err := cstore.Load(filepath.Join(dir, "sessions.json"))
	if err != nil {
		return // a store that does not parse is read by the audit itself
	}
	before := cstore.Parses()
	got, err := audit.Run(context.Background(), []string{dir}, audit.Options{Now: now, Stores: map[string]*cstore.Store{dir: s}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit with the parsed store (-read +parsed):\n%s", diff)
	}
	if _, ok := s.Rows(); ok && cstore.Parses() != before {
		t.Errorf("the audit parsed the handed-over store again (%d parses)", cstore.Parses()-before)
	}
}

// sameWithSkip checks that auditing dir with rule skipped (Options.Skip, as doctor does for
// the rules it reports itself) finds exactly the other findings.
func sameWithSkip(t *testing.T, dir, rule string) {
	t.Helper()
	all := runDir(t, dir)
	got, err := audit.Run(context.Background(), []string{dir}, audit.Options{Now: now, Skip: map[string]bool{rule: true}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want []audit.Finding
	for _, f := range all.Findings {
		if f.Rule != rule {
			want = append(want, f)
		}
	}
	if diff := cmp.Diff(want, got.Findings, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("audit skipping %s (-all but it +skipped):\n%s", rule, diff)
	}
}

// A row's transcript is missing when an lstat of it would fail, read from the dir's listing:
// a directory or a dangling symlink under the transcript's name is there (as before, when
// each row was an lstat), and a missing one lists the archives beside it.
func TestMissingTranscriptByListing(t *testing.T) {
	dir := sessionsDir(t, map[string]string{"sessions.json": store(row(idA, ""), row(idB, ""), row(idC, "")),
		idB + ".jsonl/x": "", idC + ".jsonl.reset.2026-05-01T10-00-00.000Z": clean, idC + ".jsonl.bak.2026-05-02T10-00-00Z": clean})
	if err := os.Symlink("nowhere", filepath.Join(dir, idA+".jsonl")); err != nil {
		t.Fatal(err)
	}
	got := byRule(runDir(t, dir), "store.missing-transcript")
	if len(got) != 1 || got[0].EntryID != idC {
		t.Fatalf("missing transcripts %v, want only %s", got, idC)
	}
	want := []string{idC + ".jsonl.bak.2026-05-02T10-00-00Z", idC + ".jsonl.reset.2026-05-01T10-00-00.000Z"}
	if diff := cmp.Diff(want, got[0].Evidence["archives"]); diff != "" {
		t.Errorf("archives (-want +got):\n%s", diff)
	}
}

func TestParsedStoreOddTexts(t *testing.T) {
	for name, text := range map[string]string{
		"repeated key":  `{"agent:main:a":` + row(idA, "") + `,"agent:main:b":"x","agent:main:a":` + row(idB, "") + `}`,
		"escaped keys":  "{\"agent:main:\\u00e9\":" + row(idA, "") + ",\n\"agent:\\\"q\\\"\" :\n\n" + row("../x", "") + "}",
		"spacing":       "\n\n  {\r\n\"k\"\t:\t" + row(idA, "") + "\n,\n\n\"k2\": 3 }\n",
		"non-ascii key": `{"日本": ` + row(idB, "") + `}`,
	} {
		t.Run(name, func(t *testing.T) {
			sameWithParsedStore(t, sessionsDir(t, map[string]string{"sessions.json": text, idA + ".jsonl": clean}))
		})
	}
}

func TestCorruptStoreSkipsOrphanCheck(t *testing.T) {
	res := runDir(t, sessionsDir(t, map[string]string{"sessions.json": `{"a": {`, idA + ".jsonl": clean}))
	if len(byRule(res, "store.corrupt")) != 1 || len(byRule(res, "store.orphan-transcript")) != 0 {
		t.Errorf("findings %v: want store.corrupt and no orphan guesses", res.Findings)
	}
}

func TestSQLiteEra(t *testing.T) {
	dir := sessionsDir(t, map[string]string{"sessions.json": store(row(idA, "")), idA + ".jsonl": clean})
	if len(byRule(runDir(t, dir), "store.sqlite-era")) != 0 {
		t.Fatal("fired without a database")
	}
	agent := filepath.Join(filepath.Dir(dir), "agent")
	// A real 2026.6.11 agent database (schema 1, auth and memory only) is no evidence.
	if err := fixtures.WriteAgentDB(fixtures.JSONL611, agent); err != nil {
		t.Fatal(err)
	}
	if len(byRule(runDir(t, dir), "store.sqlite-era")) != 0 {
		t.Fatal("fired with a 2026.6.11 agent database")
	}
	if err := os.RemoveAll(agent); err != nil {
		t.Fatal(err)
	}
	if err := fixtures.WriteAgentDB(fixtures.SQLite96, agent); err != nil {
		t.Fatal(err)
	}
	if len(byRule(runDir(t, dir), "store.sqlite-era")) != 1 {
		t.Fatal("did not fire with a 2026.9.6 agent database")
	}
}

func TestDirectoryScanReadsArchivesAndCompressed(t *testing.T) {
	dir := sessionsDir(t, map[string]string{
		"sessions.json": store(row(idA, "")),
		idA + ".jsonl":  clean,
		idA + ".jsonl.reset.2026-03-14T09-05-33.123Z": jl(user("u1", "", "no header")),
		idB + ".jsonl.deleted.2026-03-14T09-05-33Z":   jl(hdr(), user("u1", "", "x"), result("r1", "u1", "nope")),
		idB + ".trajectory.jsonl":                     `{"type":"session.started"}` + "\n",
	})
	gz := filepath.Join(dir, "x.jsonl.bak-1-2")
	writeGzip(t, gz, jl(hdr(), user("u1", "", "hi"), asst("a1", "zz", "stop", text("yo"))))
	res := runDir(t, dir)
	want := map[string]string{
		idA + ".jsonl.reset.2026-03-14T09-05-33.123Z": "header.missing",
		idB + ".jsonl.deleted.2026-03-14T09-05-33Z":   "tool.orphan-result",
		"x.jsonl.bak-1-2": "tree.dangling-parent",
	}
	for name, rule := range want {
		found := false
		for _, f := range byRule(res, rule) {
			if filepath.Base(f.Path) == name {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no %s; findings %v", name, rule, res.Findings)
		}
	}
	for _, f := range res.Findings {
		if strings.Contains(f.Path, "trajectory") {
			t.Errorf("trajectory sidecar read as a transcript: %v", f)
		}
	}
	if res.Summary.Files != 5 { // store + 4 transcripts
		t.Errorf("files %d, want 5", res.Summary.Files)
	}
}

func TestMissingPathIsAnError(t *testing.T) {
	_, err := audit.Run(context.Background(), []string{filepath.Join(t.TempDir(), "nope")}, audit.Options{}, nil)
	if err == nil {
		t.Fatal("no error for a missing path")
	}
}

func writeGzip(t *testing.T, path, body string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	if _, err := zw.Write([]byte(body)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

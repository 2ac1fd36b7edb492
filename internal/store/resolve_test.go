package store_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

func TestNormalizeAgentID(t *testing.T) {
	for in, want := range map[string]string{
		"":          "main",
		"  ":        "main",
		"Main":      "main",
		"ops_2-x":   "ops_2-x",
		"My Agent!": "my-agent",
		"--a..b--":  "a-b",
		"!!!":       "main",
		"Ünïcode":   "n-code",
		"x" + "y234567890123456789012345678901234567890123456789012345678901234567890": "xy23456789012345678901234567890123456789012345678901234567890123",
	} {
		if got := store.NormalizeAgentID(in); got != want {
			t.Errorf("NormalizeAgentID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestResolve(t *testing.T) {
	state := t.TempDir()
	dir := filepath.Join(state, "agents", "main", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := store.NewResolver(dir, "", "")
	dir = r.SessionsDir // symlinks of the temp dir resolved
	state = r.StateDir
	if r.AgentID != "main" {
		t.Fatalf("agent from layout = %q", r.AgentID)
	}
	const sid = "3f0c2a9e-6b1d-4c55-9a0e-1c2d3e4f5a6b"
	const other = "9d1e0000-0000-4000-8000-0000000077aa"
	in := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		name, sid, file string
		want            store.Transcript
	}{
		{"default", sid, "", store.Transcript{Path: in(sid + ".jsonl"), Via: store.ViaDefault}},
		{"relative", sid, sid + ".jsonl", store.Transcript{Path: in(sid + ".jsonl"), Via: store.ViaSessionFile}},
		{"relative topic", sid, sid + "-topic-42.jsonl", store.Transcript{Path: in(sid + "-topic-42.jsonl"), Via: store.ViaSessionFile}},
		{"absolute inside", sid, in(sid + ".jsonl"), store.Transcript{Path: in(sid + ".jsonl"), Via: store.ViaSessionFile}},
		{"dotdot escape", sid, "../../etc/passwd", store.Transcript{Path: in(sid + ".jsonl"), Via: store.ViaFallback, Rejected: "relative sessionFile leaves the sessions dir"}},
		{"hidden dotdot escape", sid, "a/../../x.jsonl", store.Transcript{Path: in(sid + ".jsonl"), Via: store.ViaFallback, Rejected: "relative sessionFile leaves the sessions dir"}},
		{"other root same agent", sid, "/home/u/.openclaw/agents/main/sessions/" + sid + ".jsonl",
			store.Transcript{Path: in(sid + ".jsonl"), Via: store.ViaRemapped}},
		{"windows path", sid, `C:\Users\u\.openclaw\agents\main\sessions\` + sid + ".jsonl",
			store.Transcript{Path: in(sid + ".jsonl"), Via: store.ViaRemapped, Foreign: true}},
		{"sibling agent", sid, filepath.Join(state, "agents", "ops", "sessions", sid+".jsonl"),
			store.Transcript{Path: filepath.Join(state, "agents", "ops", "sessions", sid+".jsonl"), Via: store.ViaSessionFile, Outside: true}},
		{"other root other agent", sid, "/srv/x/agents/ops/sessions/" + sid + ".jsonl",
			store.Transcript{Path: "/srv/x/agents/ops/sessions/" + sid + ".jsonl", Via: store.ViaStructural, Outside: true}},
		{"absolute elsewhere", sid, "/etc/passwd", store.Transcript{Path: in(sid + ".jsonl"), Via: store.ViaFallback, Rejected: "absolute sessionFile outside the sessions dir"}},
		{"stale generated name", sid, other + ".jsonl", store.Transcript{Path: in(other + ".jsonl"), Via: store.ViaSessionFile, Stale: true}},
		{"no session id", "", "", store.Transcript{Via: store.ViaFallback, Rejected: "no valid sessionId"}},
		{"unsafe session id", "../x", "", store.Transcript{Via: store.ViaFallback, Rejected: "no valid sessionId"}},
		{"routing row with file", "", sid + ".jsonl", store.Transcript{Path: in(sid + ".jsonl"), Via: store.ViaSessionFile}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, r.Resolve(tc.sid, tc.file)); diff != "" {
				t.Errorf("Resolve(%q, %q) (-want +got):\n%s", tc.sid, tc.file, diff)
			}
		})
	}
}

func TestReferencesAndCandidates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agents", "main", "sessions")
	os.MkdirAll(dir, 0o755)
	r := store.NewResolver(dir, "", "")
	s, err := store.Parse([]byte(`{
  "a": {"sessionId": "aaa", "compactionCheckpoints": [{"preCompaction": {"sessionFile": "aaa.checkpoint.11111111-2222-4333-8444-555555555555.jsonl"}}]},
  "b": {"sessionId": "bbb", "sessionFile": "zzz.jsonl"},
  "c": {"sessionId": "aaa"},
  "d": {"sessionId": "ddd", "sessionFile": "/etc/passwd"}
}`), "s")
	if err != nil {
		t.Fatal(err)
	}
	got := r.References(s.Entries())
	want := map[string][]string{
		"aaa.jsonl": {"a", "c"}, "aaa.trajectory.jsonl": {"a", "c"}, "aaa.trajectory-path.json": {"a", "c"},
		"aaa.checkpoint.11111111-2222-4333-8444-555555555555.jsonl": {"a"},
		"zzz.jsonl": {"b"}, "zzz.trajectory.jsonl": {"b"}, "zzz.trajectory-path.json": {"b"},
		"ddd.jsonl": {"d"}, "ddd.trajectory.jsonl": {"d"}, "ddd.trajectory-path.json": {"d"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("References (-want +got):\n%s", diff)
	}
	b, _ := s.Get("b")
	wantC := []string{filepath.Join(r.SessionsDir, "bbb.jsonl"), filepath.Join(r.SessionsDir, "zzz.jsonl")}
	if diff := cmp.Diff(wantC, r.Candidates(b)); diff != "" {
		t.Errorf("Candidates of a stale entry (-want +got):\n%s", diff)
	}
}

func TestAgentsAndSelect(t *testing.T) {
	state := t.TempDir()
	for _, id := range []string{"zeta", "main", "ops"} {
		os.MkdirAll(filepath.Join(state, "agents", id, "sessions"), 0o755)
	}
	os.MkdirAll(filepath.Join(state, "agents", "nosessions"), 0o755)
	os.Symlink(filepath.Join(state, "agents", "ops"), filepath.Join(state, "agents", "link"))
	agents, err := store.Agents(state, []string{"Ops", "work", "ops"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range agents {
		ids = append(ids, a.ID)
	}
	if diff := cmp.Diff([]string{"ops", "work", "main", "zeta"}, ids); diff != "" {
		t.Errorf("agents (-want +got):\n%s", diff)
	}
	if !agents[0].Configured || !agents[0].OnDisk || agents[1].OnDisk || agents[2].Configured {
		t.Errorf("flags wrong: %+v", agents)
	}
	sel, _ := store.Select(agents, "", false)
	if len(sel) != 1 || sel[0].ID != "main" {
		t.Errorf("default selection = %+v, want main", sel)
	}
	sel, _ = store.Select(agents, "", true)
	if len(sel) != 4 {
		t.Errorf("--all-agents selected %d", len(sel))
	}
	sel, _ = store.Select(agents, "ZETA", false)
	if len(sel) != 1 || sel[0].ID != "zeta" {
		t.Errorf("--agent ZETA = %+v", sel)
	}
	if _, err := store.Select(agents, "nope", false); err == nil {
		t.Error("unknown agent accepted")
	}
	noMain := []store.Agent{agents[0], agents[3]}
	if sel, _ := store.Select(noMain, "", false); len(sel) != 2 {
		t.Errorf("without main the default should be every agent, got %+v", sel)
	}
}

package store_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

var now = time.Date(2026, 5, 5, 12, 0, 0, 0, time.UTC)

// corpusStores lists every sessions.json in the corpus.
func corpusStores(t *testing.T) []string {
	dir := corpusDir(t)
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "sessions.json" {
			out = append(out, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 15 {
		t.Fatalf("found %d sessions.json in the corpus, want 15", len(out))
	}
	return out
}

// TestCorpusRoundTrip: every sessions.json of the corpus loads, re-serializes byte for byte,
// is recognised as OpenClaw's own formatting, keeps its keys in file order, and survives an
// untouched WriteFile byte for byte.
func TestCorpusRoundTrip(t *testing.T) {
	for _, path := range corpusStores(t) {
		t.Run(strings.TrimPrefix(path, corpusDir(t)), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s, err := store.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Marshal()
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("Marshal differs from the file (%v)", err)
			}
			if !s.Canonical() {
				t.Errorf("not recognised as JSON.stringify(store, null, 2) output")
			}
			// Independent check of key order and count: a token scan with encoding/json.
			dec := json.NewDecoder(bytes.NewReader(data))
			var keys []string
			depth := 0
			for {
				tok, err := dec.Token()
				if err != nil {
					break
				}
				switch v := tok.(type) {
				case json.Delim:
					if v == '{' || v == '[' {
						depth++
					} else {
						depth--
					}
				case string:
					if depth == 1 {
						keys = append(keys, v)
						// the value is read whole, so every depth-1 string is a key
						var raw json.RawMessage
						if err := dec.Decode(&raw); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			if diff := cmp.Diff(keys, s.Keys()); diff != "" {
				t.Errorf("keys (-encoding/json +store):\n%s", diff)
			}
			// A re-marshal through a changed-then-restored store is still byte-exact: the JS
			// writer, not the cached bytes, produces it.
			keys0 := s.Keys()
			e, _ := s.Get(keys0[0])
			if err := s.Set(keys0[0], e); err != nil {
				t.Fatal(err)
			}
			if !s.Changed() {
				t.Fatal("Set did not mark the store changed")
			}
			again, err := s.Marshal()
			if err != nil || !bytes.Equal(again, data) {
				t.Errorf("JS re-serialization differs from the file (%v)", err)
			}
		})
	}
}

func TestEditKeepsOrder(t *testing.T) {
	in := "{\n  \"agent:main:main\": {\n    \"sessionId\": \"a\",\n    \"updatedAt\": 1,\n    \"x-plugin\": {\n      \"k\": [\n        1\n      ]\n    }\n  },\n  \"agent:main:b\": {\n    \"sessionId\": \"b\",\n    \"updatedAt\": 2\n  }\n}"
	s, err := store.Parse([]byte(in), "sessions.json")
	if err != nil {
		t.Fatal(err)
	}
	e, _ := s.Get("agent:main:main")
	if err := e.Obj.SetValue("updatedAt", 5); err != nil {
		t.Fatal(err)
	}
	if err := e.Obj.SetValue("label", "é\u2028<"); err != nil {
		t.Fatal(err)
	}
	if err := s.Set("agent:main:main", e); err != nil {
		t.Fatal(err)
	}
	s.Delete("agent:main:b")
	if err := s.Set("agent:main:c", store.Entry{Raw: json.RawMessage(`{"sessionId":"c"}`)}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"agent:main:main\": {\n    \"sessionId\": \"a\",\n    \"updatedAt\": 5,\n    \"x-plugin\": {\n      \"k\": [\n        1\n      ]\n    },\n    \"label\": \"é\u2028<\"\n  },\n  \"agent:main:c\": {\n    \"sessionId\": \"c\"\n  }\n}"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseCorrupt(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "sessions.json:1:1: sessions.json is not a valid JSON object: unexpected end of input"},
		{"{\n  \"a\": {\n}", "sessions.json:3:2: sessions.json is not a valid JSON object"},
		{"[]", "sessions.json: sessions.json is not a valid JSON object: not a JSON object (found an array)"},
		{"\x00\x00\x00", "sessions.json:1:1: sessions.json is not a valid JSON object: unexpected byte 0x00"},
	} {
		_, err := store.Parse([]byte(tc.in), "sessions.json")
		if !errors.Is(err, store.ErrCorrupt) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want %q…", tc.in, err, tc.want)
		}
	}
}

func TestLoadMissing(t *testing.T) {
	s, err := store.Load(filepath.Join(t.TempDir(), "sessions.json"))
	if err != nil || !s.Missing || s.Len() != 0 {
		t.Fatalf("Load(missing) = %+v, %v", s, err)
	}
	if b, _ := s.Marshal(); string(b) != "{}" {
		t.Errorf("empty store marshals as %s", b)
	}
}

func writeStoreDir(t *testing.T, content string) (dir, path string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "agents", "main", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, "sessions.json")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

func TestWriteFile(t *testing.T) {
	orig := "{\n  \"k\": {\n    \"sessionId\": \"a\",\n    \"updatedAt\": 1\n  }\n}"
	_, path := writeStoreDir(t, orig)
	s, err := store.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Delete("k")
	backup, err := s.WriteFile(path, now)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "{}" {
		t.Errorf("written %q, want {}", got)
	}
	if got, _ := os.ReadFile(backup); string(got) != orig {
		t.Errorf("backup %s holds %q", backup, got)
	}
	if !strings.Contains(filepath.Base(backup), "sessions.json.bak-") || store.Classify(filepath.Base(backup)).Kind != store.KindRepairBackup {
		t.Errorf("backup name %s", backup)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the original 0600 kept", st.Mode().Perm())
	}
	// Writing again from the same Store works (its stat was refreshed), with a new backup.
	if _, err := s.WriteFile(path, now.Add(time.Second)); err != nil {
		t.Errorf("second write: %v", err)
	}
}

func TestWriteFileRefusesChangedFile(t *testing.T) {
	_, path := writeStoreDir(t, `{"k":{"sessionId":"a"}}`)
	s, err := store.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Delete("k")
	// The gateway writes meanwhile.
	if err := os.WriteFile(path, []byte(`{"k":{"sessionId":"a"},"new":{"sessionId":"b"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WriteFile(path, now); !errors.Is(err, store.ErrChanged) {
		t.Fatalf("WriteFile = %v, want ErrChanged", err)
	}
	if got, _ := os.ReadFile(path); !strings.Contains(string(got), `"new"`) {
		t.Error("the gateway's write was lost")
	}
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))
	if len(matches) != 1 {
		t.Errorf("refused write left files behind: %v", matches)
	}
}

func TestWriteFileRefusesLiveStoreLock(t *testing.T) {
	dir, path := writeStoreDir(t, `{}`)
	payload, _ := json.Marshal(map[string]any{"pid": os.Getpid(), "createdAt": now.Add(-time.Second).Format(time.RFC3339Nano)})
	if err := os.WriteFile(filepath.Join(dir, "sessions.json.lock"), payload, 0o600); err != nil {
		t.Fatal(err)
	}
	s, _ := store.Load(path)
	s.Set("x", store.Entry{Raw: json.RawMessage(`{}`)})
	if _, err := s.WriteFile(path, now); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("WriteFile = %v, want ErrLocked", err)
	}
}

func TestEntryAccessors(t *testing.T) {
	raw := `{"sessionId":" abc ","sessionFile":"abc.jsonl","updatedAt":1741939200000.7,"sessionStartedAt":"x",
	"skillsSnapshot":{"prompt":"12345"},"systemPromptReport":[1,2],
	"cliSessionBindings":{"claude-cli":{"sessionId":"b1"},"codex":{"sessionId":"c1"}},
	"cliSessionIds":{"claude-cli":"b0"},"claudeCliSessionId":"b0",
	"compactionCheckpoints":[{"checkpointId":"cp1","reason":"manual","preCompaction":{"sessionId":"abc","sessionFile":"abc.checkpoint.x.jsonl"},"postCompaction":{"sessionFile":"abc.jsonl"}}]}`
	obj, err := jsonobj.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	e := store.Entry{Key: "k", Raw: json.RawMessage(raw), Obj: obj}
	if e.SessionID() != "abc" || e.SessionFile() != "abc.jsonl" {
		t.Errorf("SessionID/SessionFile = %q %q", e.SessionID(), e.SessionFile())
	}
	if ms, ok := e.UpdatedAt(); !ok || ms != 1741939200000 {
		t.Errorf("UpdatedAt = %d %v", ms, ok)
	}
	if _, ok := e.SessionStartedAt(); ok {
		t.Error("a string sessionStartedAt read as a number")
	}
	if e.SkillsSnapshotSize() != len(`{"prompt":"12345"}`) || e.SystemPromptReportSize() != 5 {
		t.Errorf("sizes %d %d", e.SkillsSnapshotSize(), e.SystemPromptReportSize())
	}
	want := []store.CLISession{
		{Provider: "claude-cli", SessionID: "b1", Source: "cliSessionBindings"},
		{Provider: "codex", SessionID: "c1", Source: "cliSessionBindings"},
		{Provider: "claude-cli", SessionID: "b0", Source: "cliSessionIds"},
		{Provider: "claude-cli", SessionID: "b0", Source: "claudeCliSessionId"},
	}
	if diff := cmp.Diff(want, e.CLISessions()); diff != "" {
		t.Errorf("CLISessions (-want +got):\n%s", diff)
	}
	cps := e.CompactionCheckpoints()
	if len(cps) != 1 || cps[0].CheckpointID != "cp1" || cps[0].Pre.SessionFile != "abc.checkpoint.x.jsonl" || cps[0].Post.SessionFile != "abc.jsonl" {
		t.Errorf("CompactionCheckpoints = %+v", cps)
	}
}

func TestDropReason(t *testing.T) {
	s, err := store.Parse([]byte(`{"a":{"sessionId":"ok-1"},"b":"str","c":{"sessionId":"../x"},"d":{"sessionId":7},"e":{}}`), "s")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range s.Entries() {
		got = append(got, e.Key+"="+e.DropReason())
	}
	want := []string{"a=", "b=value is not an object", "c=sessionId is not a safe id", "d=sessionId is not a string", "e="}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestWriteFileNewStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agents", "main", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "sessions.json")
	s, err := store.Load(path)
	if err != nil || !s.Missing {
		t.Fatalf("Load = %v, %v", s, err)
	}
	if err := s.Set("agent:main:main", store.Entry{Raw: json.RawMessage(`{"sessionId":"a","updatedAt":1}`)}); err != nil {
		t.Fatal(err)
	}
	// Another writer creates the file first: refused.
	os.WriteFile(path, []byte(`{}`), 0o600)
	if _, err := s.WriteFile(path, now); !errors.Is(err, store.ErrChanged) {
		t.Fatalf("WriteFile over a file created meanwhile = %v, want ErrChanged", err)
	}
	os.Remove(path)
	backup, err := s.WriteFile(path, now)
	if err != nil || backup != "" {
		t.Fatalf("WriteFile = %q, %v", backup, err)
	}
	want := "{\n  \"agent:main:main\": {\n    \"sessionId\": \"a\",\n    \"updatedAt\": 1\n  }\n}"
	if got, _ := os.ReadFile(path); string(got) != want {
		t.Errorf("written %q", got)
	}
}

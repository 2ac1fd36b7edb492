package store_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

func FuzzClassify(f *testing.F) {
	for _, s := range []string{"sessions.json", "a.jsonl", "a-topic-1.jsonl", "a.jsonl.reset.2026-03-14T09-05-33.123Z",
		"a.jsonl.deleted.2026-03-14T09-05-33Z.zst", "a.jsonl.bak-1-2", "a.checkpoint.11111111-2222-3333-4444-555555555555.jsonl",
		"a.trajectory.jsonl", "sessions.json.bak.12", "skills-prompts/sha256/ab/x.txt", "x.jsonl.lock", ".a.jsonl.clawdoctor-1.tmp"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		n := store.Classify(name)
		if n != store.Classify(name) {
			t.Fatalf("not deterministic: %q", name)
		}
		switch n.Kind {
		case store.KindResetArchive, store.KindDeletedArchive, store.KindBakArchive:
			if !strings.Contains(name, store.ArchiveTime(n.Time)[:19]) || !strings.HasPrefix(name, n.Base) {
				t.Fatalf("%q: archive time %v / base %q not in the name", name, n.Time, n.Base)
			}
		case store.KindTranscript, store.KindTopic, store.KindCheckpoint, store.KindTrajectory:
			if !strings.HasSuffix(name, ".jsonl") {
				t.Fatalf("%q classified %s without .jsonl", name, n.Kind)
			}
		case store.KindTranscriptLock:
			if !strings.HasSuffix(name, ".jsonl.lock") {
				t.Fatalf("%q classified as a lock", name)
			}
		case "":
			t.Fatalf("%q has no kind", name)
		}
	})
}

func FuzzStoreRoundTrip(f *testing.F) {
	f.Add([]byte("{\n  \"k\": {\n    \"sessionId\": \"a\"\n  }\n}"))
	f.Add([]byte(`{"k":1,"2":[],"k":{"x":"\u2028"}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := store.Parse(data, "sessions.json")
		if err != nil {
			return
		}
		out, err := s.Marshal()
		if err != nil || !bytes.Equal(out, data) {
			t.Fatalf("untouched store not byte-exact: %q -> %q (%v)", data, out, err)
		}
		keys := s.Keys()
		if len(keys) == 0 {
			return
		}
		e, _ := s.Get(keys[0])
		if err := s.Set(keys[0], e); err != nil {
			t.Fatal(err)
		}
		s.Delete(keys[len(keys)-1])
		out, err = s.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		again, err := jsonobj.Stringify(out, "  ")
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("changed store is not in JS form: %q (%v)", out, err)
		}
		s2, err := store.Parse(out, "sessions.json")
		if err != nil || s2.Len() != len(keys)-1 || !s2.Canonical() {
			t.Fatalf("changed store does not parse back: %q (%v)", out, err)
		}
	})
}

// FuzzResolve: whatever sessionFile says, a transcript not flagged Outside is directly inside
// the sessions dir, so writers that skip Outside paths never leave it.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"a.jsonl", "../../etc/passwd", "/etc/passwd", `C:\Users\u\.openclaw\agents\main\sessions\a.jsonl`,
		"/x/agents/main/sessions/a.jsonl", "/x/agents/ops/sessions/a.jsonl", "a/../../b", "sub/a.jsonl", "..", ".", "~", `\\srv\share\a.jsonl`} {
		f.Add("sid", s)
	}
	dir := filepath.Join(f.TempDir(), "agents", "main", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.Fatal(err)
	}
	r := store.NewResolver(dir, "", "")
	f.Fuzz(func(t *testing.T, sid, file string) {
		tr := r.Resolve(sid, file)
		if tr.Path == "" {
			if tr.Rejected == "" {
				t.Fatalf("no path and no reason for %q %q", sid, file)
			}
			return
		}
		if !tr.Outside && filepath.Dir(tr.Path) != r.SessionsDir {
			t.Fatalf("sessionFile %q resolved to %s, outside %s, without the Outside flag", file, tr.Path, r.SessionsDir)
		}
		if !filepath.IsAbs(tr.Path) {
			t.Fatalf("relative result %s", tr.Path)
		}
	})
}

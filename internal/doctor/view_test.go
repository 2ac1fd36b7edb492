package doctor

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

// TestViewReadsWhatTheEntryHolds: the checks' compact view of each entry answers every
// accessor they use as the fully parsed entry does, on a generated store with every fault
// kind and on odd rows (repeated and escaped field names, a row that is not an object).
func TestViewReadsWhatTheEntryHolds(t *testing.T) {
	gen := generated(t, 1, 120, 9)
	s, err := store.Load(filepath.Join(gen, "agents", "main", "sessions", "sessions.json"))
	if err != nil {
		t.Fatal(err)
	}
	odd, err := store.Parse([]byte(`{
  "dup": {"sessionId": "a", "sessionFile": "x.jsonl", "sessionId": "b", "skillsSnapshot": {"p": 1}, "skillsSnapshot": "longer value"},
  "escaped": {"session\u0049d": "c", "cliSessionIds": {"claude-cli": "q"}, "updatedAt": 1.5e12},
  "scalar": "not an object",
  "array": [1, {"sessionId": "d"}],
  "full": {"sessionId": " e ", "sessionStartedAt": 17, "claudeCliSessionId": "z", "cliSessionBindings": {"codex": {"sessionId": "w"}},
    "compactionCheckpoints": [{"pre": {"sessionFile": "p.jsonl"}, "post": {"sessionFile": "q.jsonl"}}], "systemPromptReport": {"r": [1, 2, 3]}}
}`), "sessions.json")
	if err != nil {
		t.Fatal(err)
	}
	type answers struct {
		Obj                bool
		SessionID, File    string
		Started, Updated   int64
		HasStart, HasUpd   bool
		CLI                []store.CLISession
		Checkpoints        []store.Checkpoint
		Skills, PromptRept int
	}
	ask := func(e store.Entry, blob func(int) int) answers {
		a := answers{Obj: e.Obj != nil, SessionID: e.SessionID(), File: e.SessionFile(), CLI: e.CLISessions(), Checkpoints: e.CompactionCheckpoints()}
		a.Started, a.HasStart = e.SessionStartedAt()
		a.Updated, a.HasUpd = e.UpdatedAt()
		a.Skills, a.PromptRept = blob(0), blob(1)
		return a
	}
	n := 0
	for _, st := range []*store.Store{s, odd} {
		a := &agentState{store: st}
		for _, v := range a.storeEntries() {
			full, ok := st.Get(v.Key)
			if !ok {
				t.Fatalf("no entry %q", v.Key)
			}
			want := ask(full, func(i int) int { return full.FieldSize(blobFields[i]) })
			if diff := cmp.Diff(want, ask(v.Entry, v.blobSize)); diff != "" {
				t.Errorf("%s (-full +view):\n%s", v.Key, diff)
			}
			n++
		}
	}
	if n < 100 {
		t.Fatalf("%d entries compared", n)
	}
}

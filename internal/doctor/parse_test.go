package doctor

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

// TestParsesEachStoreOnce: a dry run parses each agent's sessions.json once; audit's store
// check and the cleanup plan take doctor's parse (store.Parses counts every parse of a store
// text, theirs included). A store that does not parse is split once more by audit, which
// reports where it breaks. Tests of this package run one at a time, so the counter is ours.
func TestParsesEachStoreOnce(t *testing.T) {
	gen := generated(t, 3, 90, 7)
	stores, _ := filepath.Glob(filepath.Join(gen, "agents", "*", "sessions", "sessions.json"))
	var parsable int
	for _, p := range stores {
		if _, err := store.Load(p); err == nil {
			parsable++
		}
	}
	if parsable < 2 {
		t.Fatalf("%d of %d generated stores parse: the test checks too little", parsable, len(stores))
	}
	before := store.Parses()
	res := run(t, gen, false, false)
	want := int64(parsable + 2*(len(stores)-parsable))
	if n := store.Parses() - before; n != want {
		t.Errorf("doctor parsed %d store texts for %d stores (%d of them parse), want %d", n, len(stores), parsable, want)
	}
	seen := map[string]bool{}
	for _, p := range res.Problems {
		seen[p.Check] = true
	}
	for _, c := range []string{"cleanup.would-remove", "audit.store.outside-path"} {
		if !seen[c] {
			t.Errorf("no %s problem: the check that reads the shared parse did not report", c)
		}
	}
}

// generated makes a state dir with the fixtures generator, every fault kind included.
func generated(t *testing.T, agents, sessions int, seed uint64) string {
	t.Helper()
	gen := filepath.Join(t.TempDir(), "gen")
	all, err := fixtures.ParseFaults("all")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fixtures.Generate(context.Background(), gen, fixtures.Options{Agents: agents, Sessions: sessions, Seed: seed, Faults: all, Now: now}); err != nil {
		t.Fatal(err)
	}
	return gen
}

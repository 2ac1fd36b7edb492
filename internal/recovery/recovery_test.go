package recovery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/export"
	"github.com/clawdoctor/clawdoctor/internal/recovery"
)

var now = time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)

func realState(t *testing.T, name string) (state, sessions string) {
	t.Helper()
	state = filepath.Join(t.TempDir(), "state")
	if err := fixtures.WriteRealState(name, state); err != nil {
		t.Fatal(err)
	}
	return state, filepath.Join(state, "agents", "main", "sessions")
}

func run(t *testing.T, state, sessions, out string) *recovery.Result {
	t.Helper()
	res, err := recovery.Run(context.Background(), recovery.Options{StateDir: state, SessionsDir: sessions, Out: out, Now: now,
		NewID: func() string { return "feedc0de" }}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// dbBytes is the session's events as the database gives them (clawdoctor export's bytes).
func dbBytes(t *testing.T, sessions, session string) []byte {
	t.Helper()
	db, err := agentdb.OpenSessions(context.Background(), filepath.Join(filepath.Dir(sessions), "agent", "openclaw-agent.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tr, err := db.Transcript(context.Background(), session)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	b, err := io.ReadAll(tr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// lines returns the file's lines from..to (1-based, inclusive), newlines kept.
func lines(t *testing.T, path string, from, to int) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.SplitAfter(string(data), "\n")
	return []byte(strings.Join(all[from-1:to], ""))
}

func only(t *testing.T, res *recovery.Result, state recovery.State) recovery.Session {
	t.Helper()
	var got []recovery.Session
	for _, s := range res.Sessions {
		if s.State == state {
			got = append(got, s)
		}
	}
	if len(got) != 1 {
		t.Fatalf("%d sessions %s, want 1: %+v", len(got), state, res.Sessions)
	}
	return got[0]
}

// The real 2026.9.6 import stopped at line 31 of 35 (a garbled line) and the gateway wrote two
// events after it. The file recover writes is the database's 32 events byte for byte, the
// original's lines 32-35 (31 dropped, as repair drops it), and a custom entry whose parent is
// the database's last event; nothing in the state dir changes. OpenClaw 2026.9.6's own
// recover imports such a file (internal/conformance TestLiveRecover).
func TestRecoverKeepsTheLeafTheGatewayWroteAfter(t *testing.T) {
	state, sessions := realState(t, fixtures.Recover96)
	before, _ := fixtures.Tree(state)
	out := filepath.Join(t.TempDir(), "out")
	res := run(t, state, sessions, out)
	s := only(t, res, recovery.Recovered)
	if s.FirstLost != 31 || s.Lines != 35 || s.DBEvents != 32 || s.ImportKept != 30 || s.AddedLines != 4 || s.Repair.DroppedLines != 1 || s.Leaf != "feedc0de" {
		t.Errorf("session %+v", s)
	}
	if len(s.Changes) != 1 || s.Changes[0].Line != 31 || s.Changes[0].Action != "drop" {
		t.Errorf("changes %+v: want line 31 of the original dropped", s.Changes)
	}
	got, err := os.ReadFile(s.File)
	if err != nil {
		t.Fatal(err)
	}
	db := dbBytes(t, sessions, s.Session)
	if !bytes.HasPrefix(got, db) {
		t.Fatal("the database's events are not the file's prefix: OpenClaw would refuse it")
	}
	rest := got[len(db):]
	if tail := lines(t, s.Original, 32, 35); !bytes.HasPrefix(rest, tail) {
		t.Errorf("the lost lines are not the original's 32-35 byte for byte:\n%s", rest)
	} else {
		var leaf struct {
			Type, CustomType, ID, ParentID string
		}
		if err := json.Unmarshal(rest[len(tail):], &leaf); err != nil || leaf.Type != "custom" || leaf.CustomType != recovery.LeafType || leaf.ID != "feedc0de" || leaf.ParentID != "a1f0c002" {
			t.Errorf("leaf %s (%v): want a custom entry under a1f0c002, the gateway's last event", rest[len(tail):], err)
		}
	}
	orig, _ := os.ReadFile(s.Original)
	if cp, err := os.ReadFile(s.OriginalCopy); err != nil || !bytes.Equal(cp, orig) {
		t.Errorf("copy of the original %s: %v", s.OriginalCopy, err)
	}
	if s.Install != filepath.Join(sessions, s.Session+".jsonl") {
		t.Errorf("install %s", s.Install)
	}
	if after, _ := fixtures.Tree(state); !maps.Equal(before, after) {
		t.Error("recover wrote into the state dir")
	}
	// never overwrites: a second run into the same dir writes nothing
	_, err = recovery.Run(context.Background(), recovery.Options{StateDir: state, SessionsDir: sessions, Out: out, Now: now}, nil)
	if !errors.Is(err, export.ErrExists) {
		t.Errorf("second run: %v, want ErrExists", err)
	}
}

// The real 2026.9.6 import of damaged transcripts, left half-migrated: one file it cut short
// at a garbled line (nothing written after: no leaf entry), four it only rewrote (BOM, CRLF,
// a second header, a torn last line), which the database holds whole.
func TestRecoverHalfMigrated(t *testing.T) {
	state, sessions := realState(t, fixtures.Half96)
	res := run(t, state, sessions, filepath.Join(t.TempDir(), "out"))
	s := only(t, res, recovery.Recovered)
	if s.Leaf != "" || s.FirstLost != 27 || s.Lines != 29 || s.AddedLines != 2 {
		t.Errorf("session %+v", s)
	}
	got, _ := os.ReadFile(s.File)
	want := append(dbBytes(t, sessions, s.Session), lines(t, s.Original, 28, 29)...)
	if !bytes.Equal(got, want) {
		t.Errorf("file:\n%s\nwant the database's events and lines 28-29 of the original:\n%s", got, want)
	}
	if n := res.Count(recovery.Complete); n != 4 {
		t.Errorf("%d complete, want 4: %+v", n, res.Sessions)
	}
	for _, c := range res.Sessions {
		if c.State == recovery.Complete && c.File != "" {
			t.Errorf("%s is complete, yet a file was written", c.Session)
		}
	}
	if res.Count(recovery.Incomplete) != 0 || len(res.Unchecked) != 0 {
		t.Errorf("incomplete or unchecked: %+v %v", res.Sessions, res.Unchecked)
	}
}

// Assess (doctor's view, through Run) calls an original complete once the database holds
// every entry of it: here the original without the lines after the import's stop, as it is
// after OpenClaw's recover imported them (TestLiveRecover shows that live).
func TestAssess(t *testing.T) {
	state, sessions := realState(t, fixtures.Recover96)
	res := run(t, state, sessions, filepath.Join(t.TempDir(), "out"))
	s := only(t, res, recovery.Recovered)
	data, _ := os.ReadFile(s.Original)
	all := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(s.Original, []byte(strings.Join(all[:30], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	res2 := run(t, state, sessions, filepath.Join(t.TempDir(), "out2"))
	for _, x := range res2.Sessions {
		if x.Original == s.Original && x.State != recovery.Complete {
			t.Errorf("an original the database holds whole: %s (%s)", x.State, x.Reason)
		}
	}
}

func TestRecoverRefusals(t *testing.T) {
	state, sessions := realState(t, fixtures.Recover96)
	_, err := recovery.Run(context.Background(), recovery.Options{StateDir: state, SessionsDir: sessions, Out: filepath.Join(state, "agents", "x")}, nil)
	if !errors.Is(err, export.ErrInsideState) {
		t.Errorf("out inside agents/: %v", err)
	}
	jstate, jsessions := realState(t, fixtures.JSONL611)
	_, err = recovery.Run(context.Background(), recovery.Options{StateDir: jstate, SessionsDir: jsessions, Out: t.TempDir()}, nil)
	if !errors.Is(err, recovery.ErrNotSQLite) {
		t.Errorf("JSONL era: %v", err)
	}
}

package replaycheck

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeTool writes a stand-in for openclaw-reference that runs body as the driver (a shell
// script reading the requests on stdin).
func fakeTool(t *testing.T, body string) string {
	p := filepath.Join(t.TempDir(), "ref")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestStreamAnswersInOrder: with several driver processes every answer reaches the index of
// its request, each exactly once.
func TestStreamAnswersInOrder(t *testing.T) {
	o := Oracle{Tool: fakeTool(t, "cat"), Release: "x", Script: "replay.mjs"}
	var reqs []any
	for i := range 50 {
		reqs = append(reqs, map[string]int{"id": i})
	}
	var mu sync.Mutex
	got := map[int]int{}
	err := o.Stream(context.Background(), reqs, 3, func(i int, ans json.RawMessage) error {
		var a struct{ ID int }
		if err := json.Unmarshal(ans, &a); err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if a.ID != i {
			t.Errorf("answer %d delivered as %d", a.ID, i)
		}
		got[i]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range reqs {
		if got[i] != 1 {
			t.Errorf("request %d answered %d times", i, got[i])
		}
	}
}

// TestStreamShortDriverFails: a driver that stops answering is an error with its stderr, not
// a shorter run.
func TestStreamShortDriverFails(t *testing.T) {
	o := Oracle{Tool: fakeTool(t, "head -n 2; echo 'driver broke' >&2; exit 3"), Release: "x", Script: "replay.mjs"}
	reqs := []any{1, 2, 3, 4}
	err := o.Stream(context.Background(), reqs, 1, func(int, json.RawMessage) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "2 of 4 answers") || !strings.Contains(err.Error(), "driver broke") {
		t.Fatalf("err = %v", err)
	}
}

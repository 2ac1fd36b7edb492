package replaycheck

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
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

// TestStreamStalledDriver: a driver that stops answering without exiting is killed after
// Stall; its request is answered Stalled and a new driver answers the rest.
func TestStreamStalledDriver(t *testing.T) {
	// each driver answers its first request, then hangs on the next
	// (more requests than inFlight: the writer waits on answers that never come, and a killed
	// driver must still let the stream end)
	o := Oracle{Tool: fakeTool(t, "head -n 1; sleep 60"), Release: "x", Script: "replay.mjs", Stall: 200 * time.Millisecond}
	var reqs []any
	var want []string
	for i := range inFlight + 4 {
		reqs = append(reqs, 100+i)
		if i%2 == 0 {
			want = append(want, fmt.Sprintf("%d:%d", i, 100+i))
		} else {
			want = append(want, fmt.Sprintf("%d:%s", i, Stalled))
		}
	}
	var got []string
	err := o.Stream(context.Background(), reqs, 1, func(i int, ans json.RawMessage) error {
		got = append(got, fmt.Sprintf("%d:%s", i, ans))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("answers %q, want %q", got, want)
	}
}

// TestStreamSlowStart: a driver's start-up is not a stall (2026.3.13 takes 9 s to start, more
// under load): its first answer may come later than Stall.
func TestStreamSlowStart(t *testing.T) {
	o := Oracle{Tool: fakeTool(t, "sleep 0.6; cat"), Release: "x", Script: "replay.mjs", Stall: 200 * time.Millisecond}
	var got []string
	err := o.Stream(context.Background(), []any{1, 2, 3}, 1, func(i int, ans json.RawMessage) error {
		got = append(got, fmt.Sprintf("%d:%s", i, ans))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"0:1", "1:2", "2:3"}; !slices.Equal(got, want) {
		t.Errorf("answers %q, want %q", got, want)
	}
}

// TestStreamHalfAnswer: a driver killed as stalled while writing an answer gave no answer
// (a 2026.4.24 run under load failed on the half line: "unexpected end of JSON input").
func TestStreamHalfAnswer(t *testing.T) {
	o := Oracle{Tool: fakeTool(t, `head -n 1; read -r x; printf '{"half'; sleep 60`), Release: "x", Script: "replay.mjs", Stall: 300 * time.Millisecond}
	var got []string
	err := o.Stream(context.Background(), []any{1, 2}, 1, func(i int, ans json.RawMessage) error {
		got = append(got, fmt.Sprintf("%d:%s", i, ans))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"0:1", "1:" + Stalled}; !slices.Equal(got, want) {
		t.Errorf("answers %q, want %q", got, want)
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

// TestStalledVerdict: an input the oracle never answered is a deliberate difference only when
// it has a parentId cycle (what makes OpenClaw 2026.3.13 and 2026.4.24 loop); otherwise it
// is a difference.
func TestStalledVerdict(t *testing.T) {
	hdr := `{"type":"session","version":3,"id":"s","timestamp":"2026-04-28T00:00:00.000Z","cwd":"/"}` + "\n"
	msg := func(id, parent string) string {
		return `{"type":"message","id":"` + id + `","parentId":"` + parent + `","timestamp":"2026-04-28T00:00:01.000Z","message":{"role":"user","content":"hi"}}` + "\n"
	}
	cycle := Input{Key: "cycle", Data: []byte(hdr + msg("a", "b") + msg("b", "a"))}
	chain := Input{Key: "chain", Data: []byte(hdr + `{"type":"message","id":"a","parentId":null,"timestamp":"2026-04-28T00:00:01.000Z","message":{"role":"user","content":"hi"}}` + "\n" + msg("b", "a"))}
	if v := stalledVerdict(context.Background(), cycle); !v.Equal || !slices.Equal(v.Deliberate, []string{DeliberateCycleHang}) {
		t.Errorf("cycle: %+v, want deliberate %q", v, DeliberateCycleHang)
	}
	if v := stalledVerdict(context.Background(), chain); v.Equal || v.Diff == "" {
		t.Errorf("chain: %+v, want a difference", v)
	}
}

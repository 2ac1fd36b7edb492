package harness

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeReference writes a stand-in for openclaw-reference: it answers every request line with
// {"id":N,"version":...,"echo":<the request>}, answers op "fail" with a driver error, and
// exits 3 on op "die".
func fakeReference(t *testing.T, version string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "openclaw-reference")
	script := `#!/usr/bin/env bash
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -E 's/^\{"id":([0-9]+),.*/\1/')
  case $line in
    *'"op":"die"'*) echo "boom" >&2; exit 3 ;;
    *'"op":"fail"'*) printf '{"id":%s,"error":"no such thing"}\n' "$id" ;;
    *) printf '{"id":%s,"version":"` + version + `","echo":%s}\n' "$id" "$(printf '%s' "$line" | sed -E 's/^\{"id":[0-9]+,/{/')" ;;
  esac
done
`
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENCLAW_REFERENCE", p)
}

func TestOracleProtocol(t *testing.T) {
	fakeReference(t, "2026.6.11")
	ctx := context.Background()
	o, err := Start(ctx, "none.mjs", "2026.6.11", 2)
	if err != nil {
		t.Fatal(err)
	}
	ans, err := o.Call(ctx, Request{"data": "abc", "n": 1})
	if err != nil {
		t.Fatal(err)
	}
	var a struct{ Echo map[string]any }
	if json.Unmarshal(ans, &a) != nil || a.Echo["data"] != "abc" || strings.Contains(string(ans), `"id"`) {
		t.Fatalf("answer %s", ans)
	}
	// A driver error answers the request; the process goes on.
	if _, err := o.Call(ctx, Request{"op": "fail"}); err == nil || !strings.Contains(err.Error(), "no such thing") {
		t.Fatalf("driver error: %v", err)
	}
	if _, err := o.Call(ctx, Request{"x": 1}); err != nil {
		t.Fatalf("after a driver error: %v", err)
	}
	// A process that dies is dropped; when none is left, calls fail instead of hanging.
	done := make(chan error)
	go func() {
		for {
			if _, err := o.Call(ctx, Request{"op": "die"}); err != nil && strings.Contains(err.Error(), "no driver process left") {
				done <- err
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("calls hang once every driver process died")
	}
	o.Close()
}

func TestOracleWrongRelease(t *testing.T) {
	fakeReference(t, "2026.4.24")
	if _, err := Start(context.Background(), "none.mjs", "2026.6.11", 1); err == nil || !strings.Contains(err.Error(), "not 2026.6.11") {
		t.Fatalf("a reference running another release must fail: %v", err)
	}
}

func TestGoldensRoundTrip(t *testing.T) {
	fakeReference(t, "2026.6.11")
	ctx := context.Background()
	o, err := Start(ctx, "none.mjs", "2026.6.11", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	rec := &Recorder{Live: o}
	reqs := []Request{{"data": "a"}, {"data": "b", "now": 5}}
	var want []string
	for _, r := range reqs {
		ans, err := rec.Call(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, string(ans))
	}
	path := filepath.Join(t.TempDir(), "g.jsonl.zst")
	if err := rec.Save(path); err != nil {
		t.Fatal(err)
	}
	g, err := LoadGoldens(path)
	if err != nil {
		t.Fatal(err)
	}
	if g.Unused() != 2 {
		t.Fatalf("unused %d", g.Unused())
	}
	for i, r := range reqs {
		ans, err := g.Call(ctx, r)
		if err != nil || string(ans) != want[i] {
			t.Fatalf("recorded %s, got %s (%v)", want[i], ans, err)
		}
	}
	if g.Unused() != 0 {
		t.Fatalf("unused %d after asking all", g.Unused())
	}
	if _, err := g.Call(ctx, Request{"data": "c"}); err == nil || !strings.Contains(err.Error(), ErrNotRecorded.Error()) {
		t.Fatalf("unrecorded request: %v", err)
	}
}

func TestCount(t *testing.T) {
	c := Count([]Result{
		{Verdict: Verdict{Kind: Equal}},
		{Verdict: Verdict{Kind: Deliberate, Detail: "salvage: BOM stripped, glued values split (counts only: x); serialisation: CRLF kept"}},
		{Verdict: Verdict{Kind: Deliberate, Detail: "serialisation: CRLF kept"}},
		{Verdict: Verdict{Kind: Differ}},
		{Verdict: Verdict{Kind: Failed}},
	})
	if c.Inputs != 5 || c.Equal != 1 || c.Deliberate != 2 || c.Differ != 1 || c.Failed != 1 {
		t.Fatalf("%+v", c)
	}
	for k, n := range map[string]int{"salvage: BOM stripped": 1, "salvage: glued values split": 1, "serialisation: CRLF kept": 2} {
		if c.ByDeliberate[k] != n {
			t.Errorf("%s = %d, want %d (%v)", k, c.ByDeliberate[k], n, c.ByDeliberate)
		}
	}
}

// The golden inputs are made without the corpus and the same every time.
func TestGoldenSetsStable(t *testing.T) {
	a, err := Collect(context.Background(), GoldenSets)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Collect(context.Background(), GoldenSets)
	if len(a) != len(b) || len(a) < 400 {
		t.Fatalf("%d and %d inputs", len(a), len(b))
	}
	for i := range a {
		if a[i].ID() != b[i].ID() || string(a[i].Data) != string(b[i].Data) || a[i].Private || a[i].Set == "corpus" {
			t.Fatalf("input %d: %s vs %s", i, a[i].ID(), b[i].ID())
		}
	}
}

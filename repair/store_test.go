package repair

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const goodStore = `{
  "agent:main:main": {
    "sessionId": "aaa",
    "updatedAt": 1741939200000
  },
  "agent:main:telegram:direct:1": {
    "sessionId": "bbb",
    "updatedAt": 1741000000000,
    "deliveryContext": {
      "channel": "telegram"
    }
  },
  "agent:main:cron:x": {
    "sessionId": "ccc",
    "updatedAt": 5
  }
}`

func storeKeys(t *testing.T, data string) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatalf("repaired store does not parse: %v\n%s", err, data)
	}
	var keys []string
	for _, k := range []string{"agent:main:main", "agent:main:telegram:direct:1", "agent:main:cron:x"} {
		if _, ok := m[k]; ok {
			keys = append(keys, k)
		}
	}
	return keys
}

func TestRepairStoreSalvage(t *testing.T) {
	all := []string{"agent:main:main", "agent:main:telegram:direct:1", "agent:main:cron:x"}
	for _, tc := range []struct {
		name     string
		in       string
		keys     []string
		salvaged int
	}{
		{"truncated", goodStore[:strings.Index(goodStore, `"updatedAt": 5`)+6], all[:2], 2},
		{"garbage tail", goodStore + "\x00\x00garbage", all, 3},
		{"one bad entry", strings.Replace(goodStore, `"sessionId": "bbb",`, `"sessionId": "bbb" oops`, 1), []string{all[0], all[2]}, 2},
		{"garbage head", "xx" + goodStore[1:], all, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := sessionsDir(t)
			p := filepath.Join(dir, "sessions.json")
			write(t, p, tc.in, 0o600)
			res := RepairStore(context.Background(), dir, "main", testOpts())
			if res.Status != StatusRepaired || res.SalvagedEntries != tc.salvaged {
				t.Fatalf("result %+v", res)
			}
			got := read(t, p)
			if diff := cmp.Diff(tc.keys, storeKeys(t, got)); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
			if read(t, res.BackupPath) != tc.in {
				t.Error("backup differs from the original")
			}
			if strings.HasSuffix(got, "\n") || !strings.HasPrefix(got, "{\n  \"agent:main:main\": {\n    \"sessionId\": \"aaa\",") {
				t.Errorf("not in OpenClaw's format:\n%s", got)
			}
			// Idempotent: the salvaged store parses, so a second run does nothing.
			if r := RepairStore(context.Background(), dir, "main", testOpts()); r.Status != StatusClean {
				t.Errorf("second run: %+v", r)
			}
		})
	}
}

func TestRepairStoreCleanIsUntouched(t *testing.T) {
	dir := sessionsDir(t)
	p := filepath.Join(dir, "sessions.json")
	write(t, p, goodStore, 0o600)
	res := RepairStore(context.Background(), dir, "main", testOpts())
	if res.Status != StatusClean || read(t, p) != goodStore {
		t.Fatalf("result %+v", res)
	}
}

func TestRepairStoreRebuild(t *testing.T) {
	dir := sessionsDir(t)
	p := filepath.Join(dir, "sessions.json")
	write(t, p, goodStore[:40], 0o600) // truncated inside the first entry: everything lost
	write(t, filepath.Join(dir, "aaa.jsonl"), lines(hdr, `{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-02T03:04:05.000Z","message":{"role":"user","content":"x"}}`), 0o644)
	write(t, filepath.Join(dir, "ddd-topic-42.jsonl"), lines(hdr), 0o644)
	write(t, filepath.Join(dir, "aaa.trajectory.jsonl"), "{}\n", 0o644)
	opts := testOpts()
	opts.RebuildStore = true
	res := RepairStore(context.Background(), dir, "main", opts)
	if res.Status != StatusRepaired || res.RebuiltEntries != 2 {
		t.Fatalf("result %+v", res)
	}
	var m map[string]map[string]any
	if err := json.Unmarshal([]byte(read(t, p)), &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]any{
		"agent:main:recovered:aaa": {"sessionId": "aaa", "sessionFile": "aaa.jsonl", "updatedAt": float64(1767323045000), "sessionStartedAt": float64(1767225600000)},
		"agent:main:recovered:ddd-topic-42": {"sessionId": "ddd", "sessionFile": "ddd-topic-42.jsonl",
			"updatedAt": float64(1767225600000), "sessionStartedAt": float64(1767225600000)},
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("rebuilt store (-want +got):\n%s", diff)
	}
	// A second run finds every transcript referenced.
	if r := RepairStore(context.Background(), dir, "main", opts); r.Status != StatusClean {
		t.Errorf("second run: %+v", r)
	}
	if _, err := os.Stat(res.BackupPath); err != nil {
		t.Error(err)
	}
}

func TestRepairStoreRebuildKeepsExistingBytes(t *testing.T) {
	dir := sessionsDir(t)
	p := filepath.Join(dir, "sessions.json")
	write(t, p, goodStore, 0o600)
	write(t, filepath.Join(dir, "zzz.jsonl"), lines(hdr), 0o644)
	write(t, filepath.Join(dir, "aaa.jsonl"), lines(hdr), 0o644) // referenced by agent:main:main
	opts := testOpts()
	opts.RebuildStore = true
	res := RepairStore(context.Background(), dir, "main", opts)
	if res.Status != StatusRepaired || res.RebuiltEntries != 1 {
		t.Fatalf("result %+v", res)
	}
	got := read(t, p)
	head := strings.TrimSuffix(goodStore, "\n}")
	if !strings.HasPrefix(got, head+",\n  \"agent:main:recovered:zzz\": {") {
		t.Errorf("existing entries not kept byte for byte:\n%s", got)
	}
}

// TestRebuildCreatesMissingStore: a sessions dir with transcripts and no sessions.json gets
// one with --rebuild-store, and none without.
func TestRebuildCreatesMissingStore(t *testing.T) {
	dir := sessionsDir(t)
	write(t, filepath.Join(dir, "aaa.jsonl"), lines(hdr), 0o644)
	res, err := Run(context.Background(), Target{Paths: []string{dir}}, testOpts(), nil)
	if err != nil || len(res.Files) != 1 {
		t.Fatalf("without --rebuild-store: %v %+v", err, res)
	}
	if _, err := os.Stat(filepath.Join(dir, "sessions.json")); err == nil {
		t.Fatal("sessions.json created without --rebuild-store")
	}
	opts := testOpts()
	opts.RebuildStore = true
	res, err = Run(context.Background(), Target{Paths: []string{dir}}, opts, nil)
	if err != nil || res.Summary.Repaired != 1 || res.Summary.RebuiltEntries != 1 {
		t.Fatalf("with --rebuild-store: %v %+v", err, res.Summary)
	}
	st, err := os.Stat(filepath.Join(dir, "sessions.json"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("new store: %v %v", err, st)
	}
	if keys := read(t, filepath.Join(dir, "sessions.json")); !strings.Contains(keys, `"agent:main:recovered:aaa"`) {
		t.Errorf("store %s", keys)
	}
}

package retention_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/retention"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

// listing lists dir as a caller of GatherOptions.Listing does.
func listing(t *testing.T, dir string) []retention.DirEntry {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := []retention.DirEntry{}
	for _, de := range des {
		e := retention.DirEntry{Name: de.Name()}
		if info, err := de.Info(); err == nil {
			e.Stated, e.Type, e.Regular = true, info.Mode().Type(), info.Mode().IsRegular()
			e.Size, e.ModTime = info.Size(), info.ModTime()
		}
		out = append(out, e)
	}
	return out
}

// TestGatherStoreMatchesGather: gathering from a store doctor already parsed (and a listing
// it already made) gives what reading the file and listing the dir give, on a generated state dir with every fault kind and on odd texts
// (array-index keys that JS orders first, escaped keys, a repeated key, a row that is not an
// object), without parsing the store again when its rows can be taken.
func TestGatherStoreMatchesGather(t *testing.T) {
	gen := filepath.Join(t.TempDir(), "gen")
	all, err := fixtures.ParseFaults("all")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 5, 5, 12, 0, 0, 0, time.UTC)
	if _, err := fixtures.Generate(context.Background(), gen, fixtures.Options{Agents: 1, Sessions: 80, Seed: 5, Faults: all, Now: at}); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{"generated": filepath.Join(gen, "agents", "main", "sessions", "sessions.json")}
	const sid = `{"sessionId":"3f0c2a9e-6b1d-4c55-9a0e-1c2d3e4f5a6b","updatedAt":1741939200000}`
	for name, text := range map[string]string{
		"array-index keys": `{"b":` + sid + `,"10":` + sid + `,"2":` + sid + `}`,
		"escaped keys":     "{\"agent:\\u00e9\":" + sid + ",\n \"q\\\"x\" : " + sid + "}",
		"repeated key":     `{"a":` + sid + `,"b":1,"a":{"sessionId":"other"}}`,
		"not an object":    `{"a":"x","b":` + sid + `}`,
	} {
		dir := filepath.Join(t.TempDir(), "sessions")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "sessions.json")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		cases[name] = p
	}
	for name, path := range cases {
		t.Run(name, func(t *testing.T) {
			want, err := retention.Gather(context.Background(), path, "main")
			if err != nil {
				t.Fatal(err)
			}
			s, err := store.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			before := store.Parses()
			got, err := retention.GatherStore(context.Background(), path, "main", s, retention.GatherOptions{FixMissing: true, Listing: listing(t, filepath.Dir(path))})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := s.Rows(); ok && store.Parses() != before {
				t.Errorf("GatherStore parsed the store again")
			}
			// File.class included: both paths list the dir with the same classes
			if diff := cmp.Diff(want.Input, got.Input, cmp.AllowUnexported(retention.File{}, retention.Input{})); diff != "" {
				t.Errorf("input (-Gather +GatherStore):\n%s", diff)
			}
			if diff := cmp.Diff(want.Dropped, got.Dropped); diff != "" {
				t.Errorf("dropped (-Gather +GatherStore):\n%s", diff)
			}
			if want.Digest != got.Digest || want.Missing != got.Missing {
				t.Errorf("digest or missing differ")
			}
		})
	}
}

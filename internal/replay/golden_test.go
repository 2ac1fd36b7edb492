package replay_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/conformance/replaycheck"
	"github.com/clawdoctor/clawdoctor/internal/replay"
)

// corpusDir is <repo>/../shared/corpus; tests skip when it is absent.
func corpusDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("corpus not found at %s (it lives beside the repo as shared/corpus)", dir)
	}
	return dir
}

// corpusTranscripts lists the pi transcripts of the corpus (live, archived, topic and
// checkpoint files), relative to the corpus dir.
func corpusTranscripts(t testing.TB) (string, []string) {
	dir := corpusDir(t)
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := d.Name()
		if !strings.Contains(name, ".jsonl") || strings.HasSuffix(name, ".lock") ||
			strings.Contains(name, ".trajectory") || strings.HasPrefix(name, "rollout-") {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		files = append(files, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 50 {
		t.Fatalf("found only %d corpus transcripts", len(files))
	}
	return dir, files
}

// target is one provider/model the corpus is replayed for: the seven targets the oracle
// checks (internal/conformance/replaycheck).
type target struct{ name, provider, model, api string }

var targets = func() []target {
	var out []target
	for _, t := range replaycheck.Targets {
		out = append(out, target{t.Name, t.Provider, t.Model, t.API})
	}
	return out
}()

const testNow = int64(1777982400000) // 2026-05-05T12:00:00Z

func options(tg target) replay.Options {
	return replay.Options{Provider: tg.provider, Model: tg.model, API: tg.api, NowMs: testNow,
		Recheck: tg.name == "anthropic"}
}

// short is a 12-hex sha256 of s: corpus texts and paths are only ever recorded by hash.
func short(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:6])
}

// TestRunFileAgreesWithRun: the index-based file replay (light entries before the kept region,
// only the needed lines read) gives the same result as the all-in-memory one on every corpus
// transcript, for every target. (Equality with OpenClaw itself is internal/conformance/replaycheck's.)
func TestRunFileAgreesWithRun(t *testing.T) {
	dir, files := corpusTranscripts(t)
	for _, rel := range files {
		for _, tg := range targets {
			p := filepath.Join(dir, rel)
			res, err := replay.RunFile(context.Background(), p, options(tg))
			if err != nil {
				t.Fatalf("%s %s: %v", short(rel), tg.name, err)
			}
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			mem, err := replay.Run(context.Background(), f, p, options(tg))
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(res)
			b, _ := json.Marshal(mem)
			if !bytes.Equal(a, b) {
				t.Errorf("%s %s: RunFile and Run differ", short(filepath.ToSlash(rel)), tg.name)
			}
		}
	}
}

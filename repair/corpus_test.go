package repair

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// corpusDir is the shared corpus of real session folders beside the repo.
func corpusDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("corpus not found at %s (it lives beside the repo as shared/corpus): %v", dir, err)
	}
	return dir
}

func corpusTranscripts(t *testing.T) []string {
	var out []string
	err := filepath.WalkDir(corpusDir(t), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && IsTranscriptName(d.Name()) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no transcripts in the corpus")
	}
	return out
}

// independent reads a transcript with encoding/json and says what repair must find: whether
// line 1 is a session header, and how many empty assistant error turns FR-v6 rewrites.
func independent(t *testing.T, data []byte) (header bool, emptyErrors int, bad int) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 256<<20)
	first := true
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e struct {
			Type    string `json:"type"`
			ID      any    `json:"id"`
			Message *struct {
				Role       any             `json:"role"`
				Content    json.RawMessage `json:"content"`
				StopReason string          `json:"stopReason"`
			} `json:"message"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			bad++
			continue
		}
		if first {
			id, _ := e.ID.(string)
			header = e.Type == "session" && id != ""
			first = false
			continue
		}
		if e.Type == "message" && e.Message != nil && e.Message.Role == "assistant" &&
			string(bytes.Join(bytes.Fields(e.Message.Content), nil)) == "[]" && e.Message.StopReason == "error" {
			emptyErrors++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return header, emptyErrors, bad
}

// TestCorpus runs repair over every real transcript (copied to a temp dir). The corpus holds
// no malformed line, so nothing is dropped, salvaged, inserted or relinked, and every file
// without an empty assistant error turn is left byte-identical with no backup. Files with
// such turns get exactly OpenClaw's FR-v6 rewrite of those lines, nothing else; files whose
// first line is not a header are skipped untouched, as OpenClaw does.
func TestCorpus(t *testing.T) {
	var clean, rewritten, skipped int
	for _, src := range corpusTranscripts(t) {
		rel, _ := filepath.Rel(corpusDir(t), src)
		t.Run(rel, func(t *testing.T) {
			orig, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			header, emptyErrors, bad := independent(t, orig)
			if bad != 0 {
				t.Fatalf("corpus file has %d unparseable lines; the corpus README says none", bad)
			}
			dir := filepath.Join(t.TempDir(), "agents", "main", "sessions")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, filepath.Base(src))
			if err := os.WriteFile(path, orig, 0o644); err != nil {
				t.Fatal(err)
			}
			res := RepairFile(context.Background(), dir, path, testOpts(), nil)
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			c := res.Counts
			if c.DroppedLines+c.SalvagedLines+c.InsertedToolResults+c.RelinkedParents+c.SynthesizedHeaders+c.RewrittenUserMessages != 0 {
				t.Errorf("unexpected changes: %+v %+v", c, res.Changes)
			}
			switch {
			case !header:
				skipped++
				if res.Status != StatusSkipped || !strings.Contains(res.Reason, "header") {
					t.Errorf("status %s (%s), want skipped for a missing header", res.Status, res.Reason)
				}
				if !bytes.Equal(got, orig) {
					t.Error("skipped file changed")
				}
			case emptyErrors == 0:
				clean++
				if res.Status != StatusClean {
					t.Errorf("status %s (%s), want clean; changes %+v", res.Status, res.Reason, res.Changes)
				}
				if !bytes.Equal(got, orig) {
					t.Error("clean file changed")
				}
				if res.BackupPath != "" {
					t.Errorf("backup %s made for a clean file", res.BackupPath)
				}
			default:
				rewritten++
				if res.Status != StatusRepaired || c.RewrittenAssistantMessages != emptyErrors {
					t.Fatalf("status %s, rewrote %d, want repaired with %d rewrites", res.Status, c.RewrittenAssistantMessages, emptyErrors)
				}
				backup, err := os.ReadFile(res.BackupPath)
				if err != nil || !bytes.Equal(backup, orig) {
					t.Fatalf("backup %s does not hold the original (%v)", res.BackupPath, err)
				}
				checkOnlyFallbackRewrites(t, orig, got)
			}
		})
	}
	t.Logf("corpus: %d clean (byte-identical), %d with FR-v6 empty-error rewrites, %d skipped (no header)", clean, rewritten, skipped)
}

// checkOnlyFallbackRewrites checks line by line that got differs from orig only where an
// empty assistant content became the fallback text block.
func checkOnlyFallbackRewrites(t *testing.T, orig, got []byte) {
	t.Helper()
	ol := bytes.Split(orig, []byte("\n"))
	gl := bytes.Split(got, []byte("\n"))
	if len(ol) != len(gl) {
		t.Fatalf("line count %d -> %d", len(ol), len(gl))
	}
	for i := range ol {
		if bytes.Equal(ol[i], gl[i]) {
			continue
		}
		var a, b map[string]any
		if json.Unmarshal(ol[i], &a) != nil || json.Unmarshal(gl[i], &b) != nil {
			t.Fatalf("line %d: not JSON", i+1)
		}
		am, bm := a["message"].(map[string]any), b["message"].(map[string]any)
		want := []any{map[string]any{"type": "text", "text": StreamErrorFallbackText}}
		if diff := cmp.Diff(want, bm["content"]); diff != "" {
			t.Errorf("line %d content (-want +got):\n%s", i+1, diff)
		}
		am["content"], bm["content"] = nil, nil
		if diff := cmp.Diff(a, b); diff != "" {
			t.Errorf("line %d changed beyond content:\n%s", i+1, diff)
		}
		// Key order is kept: the line with the fallback spliced in by hand is identical.
		if !bytes.Equal(bytes.Replace(ol[i], []byte(`"content":[]`), []byte(`"content":`+fbA), 1), gl[i]) {
			t.Errorf("line %d: key order or bytes changed:\n%s\n%s", i+1, ol[i], gl[i])
		}
	}
}

// TestCorpusIdempotent repairs every corpus transcript twice in memory (with every flag):
// the second run must plan nothing.
func TestCorpusIdempotent(t *testing.T) {
	for _, src := range corpusTranscripts(t) {
		orig, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		opts := testOpts()
		opts.Relink, opts.SynthesizeHeader = true, true
		out, p := repairBytes(t, orig, opts)
		if p.Skip != "" {
			continue
		}
		_, p2 := repairBytes(t, out, opts)
		if p2.Changed() {
			t.Errorf("%s: second repair changes %+v", src, p2.Changes)
		}
	}
}

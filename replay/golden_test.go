package replay_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/hygiene"
	"github.com/clawdoctor/clawdoctor/replay"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// corpusDir is <repo>/../shared/corpus; tests skip when it is absent.
func corpusDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "shared", "corpus"))
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

// target is one provider/model the corpus is replayed for.
type target struct{ name, provider, model, api string }

var targets = []target{
	{"anthropic", "anthropic", "claude-sonnet-4-5", "anthropic-messages"},
	{"google", "google", "gemini-2.5-pro", "google-generative-ai"},
	{"mistral", "mistral", "mistral-large-latest", "openai-completions"},
	{"openai", "openai", "gpt-5", "openai-responses"},
	{"openrouter-gemini", "openrouter", "google/gemini-2.5-pro", "openai-completions"},
}

const testNow = int64(1777982400000) // 2026-05-05T12:00:00Z

func options(tg target) replay.Options {
	return replay.Options{Provider: tg.provider, Model: tg.model, API: tg.api, NowMs: testNow,
		Recheck: tg.name == "anthropic"}
}

// short is a 12-hex sha256 of s: texts are recorded by length and hash only, so no corpus
// text (personal data) enters the repo.
func short(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:6])
}

// Shape renders the structure of replayed messages: roles, block types, tool-call ids after
// sanitization, text lengths and hashes, and which steps changed how much.
func Shape(res *replay.Result) string {
	var b strings.Builder
	p := res.Policy
	fmt.Fprintf(&b, "policy: family=%s sanitize=%s ids=%s pairing=%v google=%v gemini=%v anthropic=%v\n",
		strings.Join(p.Family, ","), p.SanitizeMode, p.ToolCallIDMode, p.RepairToolUseResultPairing,
		p.ApplyGoogleTurnOrdering, p.ValidateGeminiTurns, p.ValidateAnthropicTurns)
	fmt.Fprintf(&b, "context: leaf=%s path=%d/%d messages=%d compaction=%s skipped=%d snapshot=%v append=%v\n", res.Context.Leaf,
		res.Context.PathEntries, res.Context.FileEntries, res.Context.Messages, res.Context.Compaction, res.Context.SkippedLines,
		res.Context.ModelSnapshot.Found, res.Context.ModelSnapshot.WouldAppend)
	var steps []string
	for _, s := range res.Steps {
		steps = append(steps, fmt.Sprintf("%s=%d", s.Name, s.Changed))
	}
	fmt.Fprintf(&b, "steps: %s\n", strings.Join(steps, " "))
	for i, m := range res.Messages {
		fmt.Fprintf(&b, "%d %s %s", i, res.Refs[i], hygiene.Role(m))
		if hygiene.Role(m) == "toolResult" {
			name, _ := hygiene.Str(m, "toolName")
			isErr, _ := m["isError"].(bool)
			fmt.Fprintf(&b, " id=%s name=%s err=%v", hygiene.ResultID(m, false), name, isErr)
		}
		if r := hygiene.StopReason(m); r != "" {
			fmt.Fprintf(&b, " stop=%s", r)
		}
		switch c := m["content"].(type) {
		case string:
			fmt.Fprintf(&b, " str(%d,%s)", len(c), short(c))
		case []any:
			for _, v := range c {
				blk, ok := hygiene.Block(v)
				if !ok {
					b.WriteString(" ?")
					continue
				}
				typ, _ := hygiene.Str(blk, "type")
				switch typ {
				case "text":
					s, _ := hygiene.Str(blk, "text")
					fmt.Fprintf(&b, " text(%d,%s)", len(s), short(s))
				case "thinking":
					s, _ := hygiene.Str(blk, "thinking")
					_, sig := blk["thinkingSignature"]
					fmt.Fprintf(&b, " thinking(%d,%s,sig=%v)", len(s), short(s), sig)
				case "toolCall", "toolUse", "functionCall":
					id, _ := hygiene.Str(blk, "id")
					name, _ := hygiene.Str(blk, "name")
					args, _ := json.Marshal(blk["arguments"])
					fmt.Fprintf(&b, " %s(%s,%s,args=%s)", typ, id, name, short(string(args)))
				default:
					fmt.Fprintf(&b, " %s", typ)
				}
			}
		default:
			fmt.Fprintf(&b, " content=%T", c)
		}
		b.WriteByte('\n')
	}
	cp := res.Compaction
	fmt.Fprintf(&b, "tokens: sent=%d context=%d source=%s\n", res.Tokens.EstimatedSent, res.Tokens.ContextTokens, res.Tokens.Source)
	fmt.Fprintf(&b, "compaction: would=%v blocked=%q start=%d cut=%s split=%v summarize=%d kept=%d stages=%d lost=%d flush=%v\n",
		cp.Trigger.WouldCompact, cp.Blocked, cp.BoundaryStart, cp.FirstKeptEntryID, cp.Cut.IsSplitTurn,
		cp.Summarize.Len(), cp.Kept.Len(), len(cp.Stages.Parts), len(cp.Lost), cp.MemoryFlush.WouldRun)
	for _, ck := range res.Rechecked {
		fmt.Fprintf(&b, "recheck: %s stored=%s pi-0.58=%s late=%s hook=%v matches=%s\n", ck.ID, ck.StoredFirstKept,
			ck.Pi058, ck.Late, ck.FromHook, strings.Join(ck.Matches, ","))
	}
	return b.String()
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (run go test ./replay -update)", path, err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs (-want +got):\n%s", path, cmp.Diff(string(want), string(got)))
	}
}

// TestCorpusGolden replays every corpus transcript for each of the five target providers and
// compares the structure of the messages as sent with testdata/corpus/<hash>.golden.
func TestCorpusGolden(t *testing.T) {
	dir, files := corpusTranscripts(t)
	for _, rel := range files {
		key := short(filepath.ToSlash(rel)) // the corpus path names people: only its hash
		t.Run(key, func(t *testing.T) {
			var out bytes.Buffer
			for _, tg := range targets {
				res, err := replay.RunFile(context.Background(), filepath.Join(dir, rel), options(tg))
				if err != nil {
					t.Fatalf("%s: %v", tg.name, err)
				}
				fmt.Fprintf(&out, "== %s %s/%s %s\n", tg.name, tg.provider, tg.model, tg.api)
				out.WriteString(Shape(res))
				if tg.name == "anthropic" {
					// the index-based file path (light entries before the kept region) and the
					// all-in-memory path must agree
					f, err := os.Open(filepath.Join(dir, rel))
					if err != nil {
						t.Fatal(err)
					}
					mem, err := replay.Run(context.Background(), f, filepath.Join(dir, rel), options(tg))
					f.Close()
					if err != nil {
						t.Fatal(err)
					}
					if a, b := Shape(res), Shape(mem); a != b {
						t.Errorf("RunFile and Run differ:\n%s", cmp.Diff(a, b))
					}
				}
			}
			golden(t, filepath.Join("testdata", "corpus", key+".golden"), out.Bytes())
		})
	}
}

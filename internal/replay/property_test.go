package replay_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/hygiene"
	"github.com/clawdoctor/clawdoctor/internal/replay"
)

// TestCorpusInvariants: for every corpus transcript, the history sent after hygiene (and
// convertToLlm) keeps each provider's invariants (Anthropic pairing and no consecutive users, Gemini user-first and
// alternating, Mistral 9-character ids still matched).
func TestCorpusInvariants(t *testing.T) {
	dir, files := corpusTranscripts(t)
	checks := map[string]func([]hygiene.Message) error{
		"anthropic": hygiene.CheckAnthropic, "google": hygiene.CheckGemini, "mistral": hygiene.CheckMistral,
	}
	violatedBefore := map[string]int{}
	for _, rel := range files {
		for _, tg := range targets {
			check := checks[tg.name]
			if check == nil {
				continue
			}
			res, err := replay.RunFile(context.Background(), filepath.Join(dir, rel), options(tg))
			if err != nil {
				t.Fatalf("%s: %v", short(rel), err)
			}
			if err := check(replay.ToLLM(res.Messages)); err != nil {
				t.Errorf("%s %s: %v", short(filepath.ToSlash(rel)), tg.name, err)
			}
			// the context before hygiene, for the record that the corpus needs the hygiene
			if check(replay.ToLLM(res.Context.Projected)) != nil {
				violatedBefore[tg.name]++
			}
		}
	}
	for _, name := range []string{"anthropic", "google", "mistral"} {
		if violatedBefore[name] == 0 {
			t.Errorf("%s: no corpus transcript breaks the invariant before hygiene; the test proves nothing", name)
		}
		t.Logf("%s: %d transcripts break the invariant before hygiene", name, violatedBefore[name])
	}
}

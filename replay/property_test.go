package replay_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/clawdoctor/clawdoctor/hygiene"
	"github.com/clawdoctor/clawdoctor/replay"
)

// TestCorpusInvariants: for every corpus transcript, the history sent after hygiene keeps each
// provider's invariants (Anthropic pairing and no consecutive users, Gemini user-first and
// alternating, Mistral 9-character ids still matched), with both pairing algorithms.
func TestCorpusInvariants(t *testing.T) {
	dir, files := corpusTranscripts(t)
	checks := map[string]func([]hygiene.Message) error{
		"anthropic": hygiene.CheckAnthropic, "google": hygiene.CheckGemini, "mistral": hygiene.CheckMistral,
	}
	violatedBefore := map[string]int{}
	for _, rel := range files {
		// the fallback policy of an unknown provider (pairing repair only), for the record that
		// the corpus needs each provider's own hygiene
		plain, err := replay.RunFile(context.Background(), filepath.Join(dir, rel), replay.Options{Provider: "none", API: "none", Model: "none", NowMs: testNow})
		if err != nil {
			t.Fatal(err)
		}
		for _, tg := range targets {
			check := checks[tg.name]
			if check == nil {
				continue
			}
			for _, alg := range []hygiene.Pairing{hygiene.PairingClassic, hygiene.PairingFrames} {
				o := options(tg)
				o.Pairing = alg
				res, err := replay.RunFile(context.Background(), filepath.Join(dir, rel), o)
				if err != nil {
					t.Fatalf("%s: %v", short(rel), err)
				}
				if err := check(res.Messages); err != nil {
					t.Errorf("%s %s/%s: %v", short(filepath.ToSlash(rel)), tg.name, alg, err)
				}
				if check(plain.Messages) != nil {
					violatedBefore[tg.name]++
				}
			}
		}
	}
	for _, name := range []string{"anthropic", "google", "mistral"} {
		if violatedBefore[name] == 0 {
			t.Errorf("%s: no corpus transcript breaks the invariant with the fallback policy only; the test proves nothing", name)
		}
		t.Logf("%s: %d transcript/pairing runs break the invariant with the fallback policy only", name, violatedBefore[name])
	}
}

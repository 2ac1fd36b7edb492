package replaycheck

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/hygiene"
)

// minRecorded is the fewest comparisons a golden must give (without the corpus, whose lines
// are skipped where it is absent), so a golden that lost its lines cannot pass by comparing
// nothing.
const minRecorded = 200

func checkGolden(t *testing.T, engine string, offline func(context.Context, string, []GoldenLine, map[string]Input, *strings.Builder) (tally, int, error)) {
	for _, rel := range RecordedReleases {
		t.Run(rel, func(t *testing.T) {
			lines, err := ReadGolden(GoldenPath(rel, engine))
			if err != nil {
				t.Fatal(err)
			}
			inputs, err := ResolveInputs(lines)
			if err != nil {
				t.Fatal(err)
			}
			var log strings.Builder
			tl, skipped, err := offline(context.Background(), rel, lines, inputs, &log)
			if err != nil {
				t.Fatal(err)
			}
			if tl.compared < minRecorded {
				t.Fatalf("%s holds %d comparisons here; re-record with scripts/conformance.sh %s --release %s --golden", GoldenPath(rel, engine), tl.compared, engine, rel)
			}
			for _, l := range strings.Split(log.String(), "\n") {
				if strings.Contains(l, ": differs: ") {
					t.Error(l)
				}
			}
			t.Logf("%s %s: %s; %d lines skipped (their corpus transcript is not here)", engine, rel, tl, skipped)
		})
	}
}

// TestReplayGoldens: for every recorded input, target and release, our replay sends exactly
// what OpenClaw sent when the golden was recorded (the digest of the messages as JSON), or
// differs only where conformance.md lists a deliberate difference.
func TestReplayGoldens(t *testing.T) {
	checkGolden(t, "replay", func(ctx context.Context, rel string, lines []GoldenLine, in map[string]Input, w *strings.Builder) (tally, int, error) {
		return OfflineReplay(ctx, rel, lines, in, w)
	})
}

// TestCompactionGoldens: for every recorded input, setting and release, our compaction
// decision (settings, trigger, estimate, cut and entry ids) equals OpenClaw's.
func TestCompactionGoldens(t *testing.T) {
	checkGolden(t, "compaction", func(ctx context.Context, rel string, lines []GoldenLine, in map[string]Input, w *strings.Builder) (tally, int, error) {
		return OfflineCompaction(ctx, rel, lines, in, w)
	})
}

// TestReusedCallIDGolden: what our replay does to the later real result of a reused tool-call
// id is what each OpenClaw release did when testdata/reused-call-id.golden was recorded (the
// finding the audit rule tool.reused-call-id builds on).
func TestReusedCallIDGolden(t *testing.T) {
	b, err := os.ReadFile(ReusedGoldenPath())
	if err != nil {
		t.Fatal(err)
	}
	inputs := InputsByKey(ReusedInputs())
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 || strings.HasPrefix(line, "#") {
			continue
		}
		rel, key, target, want := f[0], f[1], f[2], f[3]
		tg, ok := TargetNamed(target)
		in, ok2 := inputs[key]
		if !ok || !ok2 {
			t.Fatalf("unknown target or probe in %q", line)
		}
		got, err := ourReusedVerdict(context.Background(), in, tg, rel)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s %s %s: ours %s, OpenClaw %s", rel, key, target, got, want)
		}
		n++
	}
	if n < len(RecordedReleases)*len(ReusedInputs())*len(Targets) {
		t.Fatalf("%s holds %d outcomes", ReusedGoldenPath(), n)
	}
}

// TestFallbackRetryGolden: the prompt hygiene.FallbackRetryPrompt builds for a model fallback
// retry is what each release's resolveFallbackRetryPrompt returned when
// testdata/fallback-retry.golden was recorded (2026.3.13 loses the prompt; 2026.4.24 marks it
// when the session has history; 2026.6.11 also puts the Claude CLI context prelude first).
func TestFallbackRetryGolden(t *testing.T) {
	b, err := os.ReadFile(RetryGoldenPath())
	if err != nil {
		t.Fatal(err)
	}
	cases := RetryCases()
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		rel, i, want, err := ParseRetryLine(line)
		if err != nil || i >= len(cases) {
			t.Fatalf("bad line %q: %v", line, err)
		}
		if got := hygiene.FallbackRetryPrompt(cases[i], hygiene.Release(rel)); got != want {
			t.Errorf("%s case %+v: ours %q, OpenClaw %q", rel, cases[i], got, want)
		}
		n++
	}
	if n != len(RecordedReleases)*len(cases) {
		t.Fatalf("%s holds %d prompts, want %d", RetryGoldenPath(), n, len(RecordedReleases)*len(cases))
	}
}

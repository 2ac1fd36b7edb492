package replaycheck

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/conformance/harness"
)

// The golden input sets: every corpus transcript (recorded by digest and shape only), every
// fixture, the reused-id probes, the spellings, the first GoldenGenerated transcripts of seed 1
// and its first GoldenMutations mutations.
const GoldenSets = "corpus,fixtures,reused,spellings,generated,matrix,mutations"

const (
	GoldenGenerated = 100
	GoldenMutations = 100
	GoldenMatrix    = 1 // rounds
)

// Main is the command line of the live comparisons (internal/conformance/cmd/replay and
// internal/conformance/cmd/compaction; scripts/conformance.sh replay|compaction runs them):
//
//	replay|compaction [--release R] [--seed N] [--generated N] [--mutations N]
//	                  [--corpus-mutations N] [--sets LIST] [--jobs N]
//	                  [--golden] [--all=false] [PATH...]
//	replay --reused [--golden]
//	replay --retry [--golden]
//
// It prints one line per comparison (input, target or setting, verdict; never a text of the
// input), then the count line, and exits 0 when every comparison is equal or a listed
// deliberate difference, 1 otherwise, 2 on usage errors. --golden runs the golden input sets
// and rewrites testdata/<release>/<engine>.golden from the oracle's answers (--reused:
// testdata/reused-call-id.golden, --retry: testdata/fallback-retry.golden, every recorded
// release).
func Main(engine string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(engine, flag.ContinueOnError)
	fs.SetOutput(stderr)
	release := fs.String("release", DefaultRelease, "OpenClaw release to compare with (OPENCLAW_REF_VERSION)")
	fs.StringVar(release, "openclaw-version", DefaultRelease, "same as --release")
	seed := fs.Uint64("seed", 1, "seed of the generated transcripts")
	generated := fs.Int("generated", 10000, "number of generated transcripts")
	matrix := fs.Int("matrix", 2, "rounds of the provider × block matrix (the matrix set)")
	mutations := fs.Int("mutations", 10000, "number of seeded byte-level mutations (the mutations set)")
	corpusMutations := fs.Int("corpus-mutations", 2000, "number of seeded mutations of the corpus transcripts (the corpus-mutations set)")
	sets := fs.String("sets", "corpus,fixtures,reused,spellings,generated", "input sets (corpus, fixtures, reused, spellings, generated, matrix, mutations, corpus-mutations)")
	jobs := fs.Int("jobs", 2, "oracle processes")
	stall := fs.Duration("stall", DefaultStall, "kill a driver that gives no answer for this long; its input is compared as stalled")
	golden := fs.Bool("golden", false, "run the golden input sets and rewrite the offline golden from the oracle's answers")
	all := fs.Bool("all", true, "print equal comparisons too")
	reused, retry := false, false
	if engine == "replay" {
		fs.BoolVar(&reused, "reused", false, "check what every release does with a reused tool-call id (testdata/reused-call-id.golden)")
		fs.BoolVar(&retry, "retry", false, "check the prompt of a model fallback retry in every release (testdata/fallback-retry.golden)")
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ref, err := ReferenceTool()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v: the live comparison needs the reference (../shared/tools/openclaw-reference)\n", engine, err)
		return 1
	}
	ctx, stop := harness.SignalContext()
	defer stop()
	if reused {
		return reusedMain(ctx, ref, *golden, stdout, stderr)
	}
	if retry {
		return retryMain(ctx, ref, *golden, stdout, stderr)
	}
	if *golden && fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: --golden records the golden input sets, not PATHs\n", engine)
		return 2
	}
	var inputs []Input
	switch {
	case fs.NArg() > 0:
		inputs, err = PathInputs(fs.Args())
	case *golden:
		*seed = 1
		inputs, err = collect(ctx, GoldenSets, 1, counts{GoldenGenerated, GoldenMatrix, GoldenMutations, 0})
	default:
		inputs, err = collect(ctx, *sets, *seed, counts{*generated, *matrix, *mutations, *corpusMutations})
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", engine, err)
		return 2
	}
	live := Live{Jobs: *jobs, Out: stdout, All: *all}
	start := time.Now()
	var tl tally
	var lines []GoldenLine
	switch engine {
	case "replay":
		live.Oracle = Oracle{Tool: ref, Release: *release, Script: "replay.mjs", Stall: *stall}
		tl, lines, err = LiveReplay(ctx, live, inputs, Targets)
	case "compaction":
		live.Oracle = Oracle{Tool: ref, Release: *release, Script: "compaction.mjs", Stall: *stall}
		tl, lines, err = LiveCompaction(ctx, live, inputs)
	default:
		fmt.Fprintf(stderr, "unknown engine %q\n", engine)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s %s: %v\n", engine, *release, err)
		return 1
	}
	per := "targets"
	if engine == "compaction" {
		per = "settings"
	}
	fmt.Fprintf(stdout, "%s %s: %s (%d inputs × %s; %s)\n", engine, *release, tl, len(inputs), per, time.Since(start).Round(time.Second))
	fmt.Fprintf(stdout, "  inputs: %s\n", setCounts(inputs))
	for _, l := range tl.deliberateLines() {
		fmt.Fprintln(stdout, l)
	}
	if *golden {
		header := fmt.Sprintf("%d oracle answers of OpenClaw %s for %s (%d inputs), recorded by\n  scripts/conformance.sh %s --release %s --golden",
			len(lines), *release, engine, len(inputs), engine, *release)
		if err := WriteGolden(GoldenPath(*release, engine), header, lines); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", engine, err)
			return 1
		}
	}
	if tl.compared != tl.equal+tl.deliberate {
		return 1
	}
	return 0
}

// counts are the sizes of the made input sets.
type counts struct{ generated, matrix, mutations, corpusMutations int }

// collect gathers the named input sets, in a stable order.
func collect(ctx context.Context, sets string, seed uint64, n counts) ([]Input, error) {
	var in []Input
	for _, s := range strings.Split(sets, ",") {
		s = strings.TrimSpace(s)
		switch s {
		case "corpus":
			c, err := CorpusInputs()
			if err != nil {
				return nil, err
			}
			if len(c) == 0 {
				return nil, fmt.Errorf("no corpus at %s (set CLAWDOCTOR_CORPUS, or leave the corpus set out with --sets)", filepath.Join(repoDir(), "..", "shared", "corpus"))
			}
			in = append(in, c...)
		case "fixtures":
			fx, err := FixtureInputs()
			if err != nil {
				return nil, err
			}
			in = append(in, fx...)
		case "reused":
			in = append(in, ReusedInputs()...)
		case "spellings":
			in = append(in, SpellingInputs()...)
		case "generated":
			in = append(in, GeneratedInputs(seed, n.generated)...)
		case "matrix":
			in = append(in, MatrixInputs(seed, n.matrix)...)
		case "mutations", "corpus-mutations":
			corpus := s == "corpus-mutations"
			k := n.mutations
			if corpus {
				k = n.corpusMutations
			}
			m, err := MutationInputs(ctx, seed, k, corpus)
			if err != nil {
				return nil, err
			}
			in = append(in, m...)
		case "":
		default:
			return nil, fmt.Errorf("unknown input set %q (corpus, fixtures, reused, spellings, generated, matrix, mutations, corpus-mutations)", s)
		}
	}
	return in, nil
}

// setCounts is "corpus 70, fixture 35, ...": the inputs per set.
func setCounts(inputs []Input) string {
	var order []string
	n := map[string]int{}
	for _, in := range inputs {
		set, _, _ := strings.Cut(in.Key, "/")
		if n[set] == 0 {
			order = append(order, set)
		}
		n[set]++
	}
	parts := make([]string, len(order))
	for i, s := range order {
		parts[i] = fmt.Sprintf("%s %d", s, n[s])
	}
	return strings.Join(parts, ", ")
}

// reusedMain asks every recorded release what happens to the later real result when a later
// turn reuses a tool-call id, for every target, and checks our engine agrees.
func reusedMain(ctx context.Context, ref string, record bool, stdout, stderr io.Writer) int {
	var out []string
	bad := 0
	for _, rel := range RecordedReleases {
		o := Oracle{Tool: ref, Release: rel, Script: "replay.mjs"}
		var reqs []any
		for _, in := range ReusedInputs() {
			for _, tg := range Targets {
				reqs = append(reqs, NewReplayRequest(len(reqs), "", in.Data, tg, NowMs))
			}
		}
		ans, err := o.Run(ctx, reqs)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		k := 0
		for _, in := range ReusedInputs() {
			for _, tg := range Targets {
				want, err := reusedAnswerVerdict(ans[k])
				k++
				if err != nil {
					fmt.Fprintln(stderr, err)
					return 1
				}
				got, err := ourReusedVerdict(ctx, in, tg, rel)
				if err != nil {
					fmt.Fprintln(stderr, err)
					return 1
				}
				if got != want {
					bad++
					fmt.Fprintf(stdout, "%s %s %s: DIFFERS (oracle %s, ours %s)\n", rel, in.Key, tg.Name, want, got)
				}
				out = append(out, ReusedLine(rel, in.Key, tg.Name, want))
			}
		}
	}
	sort.Strings(out)
	fmt.Fprintln(stdout, strings.Join(out, "\n"))
	fmt.Fprintf(stdout, "reused ids: %d outcomes, %d differ from OpenClaw\n", len(out), bad)
	if record {
		header := "# what happens to the later real tool result when a later assistant turn reuses a tool-call id\n" +
			"# (internal/conformance/replaycheck/reused.go), per OpenClaw release, probe and target; recorded by\n" +
			"#   scripts/conformance.sh replay --reused --golden\n"
		if err := os.WriteFile(ReusedGoldenPath(), []byte(header+strings.Join(out, "\n")+"\n"), 0o644); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
	}
	if bad > 0 {
		return 1
	}
	return 0
}

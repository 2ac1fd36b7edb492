package harness

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/openclaw"
)

// Kind classifies one comparison.
type Kind int

const (
	Equal      Kind = iota // the same result
	Deliberate             // a difference docs/conformance.md lists, with the test that pins it
	Differ                 // any other difference: a bug on one side
	Failed                 // one side could not run
)

func (k Kind) String() string {
	return [...]string{"equal", "deliberate", "DIFFERS", "ERROR"}[k]
}

// Verdict is the outcome for one input.
type Verdict struct {
	Kind   Kind
	Detail string // Deliberate: which listed difference; Differ: the first difference; Failed: why
}

// Engine is one engine's comparison: it asks the oracle what it needs and compares with what
// clawdoctor does. It must be safe for concurrent use.
type Engine interface {
	Name() string
	Driver() string // file under internal/conformance/oracle/
	Check(ctx context.Context, o Caller, rel openclaw.Release, in Input) Verdict
}

// GoldenSets are the inputs whose oracle answers are recorded for offline tests: every fixture
// and fault kind, one matrix round and the first 300 mutations of seed 1 (a few hundred inputs,
// no corpus: the recording is committed and the corpus is private).
var GoldenSets = Sets{Fixtures: true, Faults: true, Spellings: true, Matrix: 1, Mutations: 300, Seed: 1}

// GoldenPath is where an engine's recorded answers for release live:
// internal/conformance/<engine>check/testdata/oracle-<release>.jsonl.zst.
func GoldenPath(engine, release string) (string, error) {
	root, err := Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "internal", "conformance", engine+"check", "testdata", "oracle-"+release+".jsonl.zst"), nil
}

// Result is one input's verdict.
type Result struct {
	Input   Input
	Verdict Verdict
}

// Counts sums results.
type Counts struct {
	Inputs, Equal, Deliberate, Differ, Failed int
	ByDeliberate                              map[string]int
}

// Count sums rs. A deliberate detail is "category: item, item; category: item" (a
// parenthesised remark ignored); ByDeliberate counts the inputs showing each "category: item".
func Count(rs []Result) Counts {
	c := Counts{ByDeliberate: map[string]int{}}
	for _, r := range rs {
		c.Inputs++
		switch r.Verdict.Kind {
		case Equal:
			c.Equal++
		case Deliberate:
			c.Deliberate++
			seen := map[string]bool{}
			for _, part := range strings.Split(r.Verdict.Detail, "; ") {
				if i := strings.Index(part, " ("); i >= 0 {
					part = part[:i]
				}
				cat, items, ok := strings.Cut(part, ": ")
				if !ok {
					seen[part] = true
					continue
				}
				for _, it := range strings.Split(items, ", ") {
					seen[cat+": "+it] = true
				}
			}
			for k := range seen {
				c.ByDeliberate[k]++
			}
		case Differ:
			c.Differ++
		default:
			c.Failed++
		}
	}
	return c
}

// Run checks every input with workers goroutines and returns the results in input order.
func Run(ctx context.Context, e Engine, o Caller, rel openclaw.Release, ins []Input, workers int) []Result {
	out := make([]Result, len(ins))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(workers, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = Result{ins[i], e.Check(ctx, o, rel, ins[i])}
			}
		}()
	}
	for i := range ins {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// Print writes one line per result (equal lines only when all is set) and the count line.
func Print(w io.Writer, engine string, rel openclaw.Release, rs []Result, all bool) Counts {
	for _, r := range rs {
		if !all && r.Verdict.Kind == Equal {
			continue
		}
		line := r.Input.ID() + ": " + r.Verdict.Kind.String()
		if r.Verdict.Detail != "" {
			line += " (" + r.Verdict.Detail + ")"
		}
		if r.Verdict.Kind >= Differ && r.Input.Note != "" {
			line += " [" + r.Input.Note + "]"
		}
		fmt.Fprintln(w, line)
	}
	c := Count(rs)
	fmt.Fprintf(w, "%s %s: %d inputs, %d equal, %d deliberate, %d differ, %d failed\n",
		engine, rel, c.Inputs, c.Equal, c.Deliberate, c.Differ, c.Failed)
	sets, order := map[string]int{}, []string{}
	for _, r := range rs {
		if sets[r.Input.Set] == 0 {
			order = append(order, r.Input.Set)
		}
		sets[r.Input.Set]++
	}
	parts := make([]string, len(order))
	for i, s := range order {
		parts[i] = fmt.Sprintf("%s %d", s, sets[s])
	}
	fmt.Fprintf(w, "  inputs: %s\n", strings.Join(parts, ", "))
	keys := make([]string, 0, len(c.ByDeliberate))
	for k := range c.ByDeliberate {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  deliberate, %s: %d\n", k, c.ByDeliberate[k])
	}
	return c
}

// Main is the command line of an engine's conformance run (internal/conformance/cmd/<engine>):
//
//	<engine> [--release R] [--seed N] [--mutations N] [--corpus-mutations N] [--matrix N]
//	         [--sets LIST] [--jobs N] [--record FILE] [--goldens FILE] [--golden] [--all=false]
//	         [PATH...]
//
// With PATHs only those transcripts are checked. It exits 0 when every input is equal or a
// listed deliberate difference, 1 otherwise, 2 on usage errors.
func Main(e Engine, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(e.Name(), flag.ContinueOnError)
	fs.SetOutput(stderr)
	release := fs.String("release", openclaw.DefaultVersion, "OpenClaw release to compare with")
	fs.StringVar(release, "openclaw-version", openclaw.DefaultVersion, "same as --release")
	seed := fs.Uint64("seed", 1, "seed of the matrix and the mutations")
	muts := fs.Int("mutations", 10000, "seeded mutations of fixtures, fault transcripts and matrix")
	cmuts := fs.Int("corpus-mutations", 2000, "seeded mutations of corpus transcripts (0 without a corpus)")
	matrix := fs.Int("matrix", 2, "rounds of the provider × block matrix")
	sets := fs.String("sets", "corpus,fixtures,faults,spellings,matrix,mutations", "input sets (corpus, fixtures, faults, spellings, matrix, mutations)")
	jobs := fs.Int("jobs", min(runtime.NumCPU(), 2), "oracle processes and comparison workers")
	record := fs.String("record", "", "save the oracle's answers to this golden file")
	goldens := fs.String("goldens", "", "answer from this golden file instead of running OpenClaw")
	golden := fs.Bool("golden", false, "use the golden input sets (GoldenSets) and record the answers to GoldenPath")
	all := fs.Bool("all", true, "print equal inputs too")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	rel, err := openclaw.Parse(*release)
	if err != nil {
		fmt.Fprintf(stderr, "conformance: %v\n", err)
		return 2
	}
	s := Sets{Seed: *seed, Paths: fs.Args()}
	if *golden {
		s = GoldenSets
		if *record == "" {
			if *record, err = GoldenPath(e.Name(), rel.String()); err != nil {
				fmt.Fprintf(stderr, "conformance: %v\n", err)
				return 1
			}
		}
	} else if len(s.Paths) == 0 {
		has := func(n string) bool { return strings.Contains(","+*sets+",", ","+n+",") }
		s.Fixtures, s.Faults, s.Spellings = has("fixtures"), has("faults"), has("spellings")
		if has("matrix") {
			s.Matrix = *matrix
		}
		if has("mutations") {
			s.Mutations = *muts
		}
		if has("corpus") {
			if _, err := os.Stat(CorpusDir()); err == nil {
				s.Corpus, s.CorpusMutations = true, *cmuts
			} else {
				fmt.Fprintf(stderr, "conformance: no corpus at %s: corpus sets skipped\n", CorpusDir())
			}
		}
	}
	ctx, stop := SignalContext()
	defer stop()
	t0 := time.Now()
	ins, err := Collect(ctx, s)
	if err != nil {
		fmt.Fprintf(stderr, "conformance: inputs: %v\n", err)
		return 1
	}
	var caller Caller
	var rec *Recorder
	var oracle *Oracle
	switch {
	case *goldens != "":
		g, err := LoadGoldens(*goldens)
		if err != nil {
			fmt.Fprintf(stderr, "conformance: %v\n", err)
			return 1
		}
		caller = g
	default:
		oracle, err = Start(ctx, e.Driver(), rel.String(), *jobs)
		if err != nil {
			fmt.Fprintf(stderr, "conformance: %v\n", err)
			return 1
		}
		caller = oracle
		if *record != "" {
			rec = &Recorder{Live: oracle}
			caller = rec
		}
	}
	rs := Run(ctx, e, caller, rel, ins, *jobs)
	c := Print(stdout, e.Name(), rel, rs, *all)
	if oracle != nil {
		if err := oracle.Close(); err != nil {
			fmt.Fprintf(stderr, "conformance: %v\n", err)
		}
	}
	if rec != nil {
		if err := rec.Save(*record); err != nil {
			fmt.Fprintf(stderr, "conformance: save %s: %v\n", *record, err)
			return 1
		}
		abs, _ := filepath.Abs(*record)
		fmt.Fprintf(stderr, "conformance: recorded %d answers in %s\n", len(rec.ans), abs)
	}
	fmt.Fprintf(stderr, "conformance: %s %s took %s\n", e.Name(), rel, time.Since(t0).Round(time.Second))
	if c.Differ > 0 || c.Failed > 0 {
		return 1
	}
	return 0
}

package replaycheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/clawdoctor/clawdoctor/internal/replay"
)

// NowMs is the clock of every comparison (synthetic results and bootstrap turns carry it).
const NowMs = int64(1777982400000) // 2026-05-05T12:00:00Z

// runOurs replays an input with our engine.
func runOurs(ctx context.Context, in Input, o replay.Options) (*replay.Result, error) {
	if in.Data != nil {
		return replay.Run(ctx, bytes.NewReader(in.Data), in.Key, o)
	}
	return replay.RunFile(ctx, in.File, o)
}

// Live is one live run's settings: the oracle, its driver processes, where the per-comparison
// lines go (never any text of an input) and whether equal ones are printed too.
type Live struct {
	Oracle Oracle
	Jobs   int
	Out    io.Writer
	All    bool
}

// collector gathers the verdicts of a live run from the oracle's reading goroutines.
type collector struct {
	mu    sync.Mutex
	live  Live
	tl    tally
	lines []GoldenLine // by request
}

func (c *collector) add(i int, key, target string, v Verdict, g GoldenLine) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.live.Out
	if v.Equal && len(v.Deliberate) == 0 && !c.live.All {
		w = nil
	}
	c.tl.add(w, key, target, v)
	c.lines[i] = g
}

// LiveReplay replays every input for every target with OpenClaw (the oracle) and with our
// engine, and returns the counts and the golden lines to record.
func LiveReplay(ctx context.Context, l Live, inputs []Input, targets []Target) (tally, []GoldenLine, error) {
	type job struct {
		in Input
		t  Target
	}
	var reqs []any
	var jobs []job
	for _, in := range inputs {
		for _, t := range targets {
			reqs = append(reqs, NewReplayRequest(len(reqs), in.File, in.Data, t, NowMs))
			jobs = append(jobs, job{in, t})
		}
	}
	c := &collector{live: l, lines: make([]GoldenLine, len(reqs))}
	err := l.Oracle.Stream(ctx, reqs, l.Jobs, func(i int, raw json.RawMessage) error {
		in, t := jobs[i].in, jobs[i].t
		got, err := runOurs(ctx, in, ReplayOptions(t, l.Oracle.Release, NowMs))
		if err != nil {
			return fmt.Errorf("%s %s: %w", in.Key, t.Name, err)
		}
		g := GoldenLine{Input: in.Key, Target: t.Name}
		var v Verdict
		if IsStalled(raw) {
			v = stalledVerdict(ctx, in)
			g.Digest = "stalled"
		} else {
			var want ReplayAnswer
			if err := json.Unmarshal(raw, &want); err != nil {
				return fmt.Errorf("%s %s: oracle answer: %w", in.Key, t.Name, err)
			}
			v = CompareReplay(want, got, l.Oracle.Release)
			g.Digest, g.Shape = AnswerDigest(want)
		}
		if v.Equal && len(v.Deliberate) > 0 {
			g.OurDigest, _ = OursDigest(got)
			g.Deliberate = v.Deliberate[0]
		}
		c.add(i, in.Key, t.Name, v, g)
		return nil
	})
	return c.tl, c.lines, err
}

// OfflineReplay checks our engine against recorded golden lines. Lines whose input is not
// available (the corpus is absent) are skipped and counted.
func OfflineReplay(ctx context.Context, release string, lines []GoldenLine, inputs map[string]Input, w io.Writer) (tl tally, skipped int, err error) {
	for _, g := range lines {
		in, ok := inputs[g.Input]
		if !ok {
			skipped++
			continue
		}
		t, ok := TargetNamed(g.Target)
		if !ok {
			return tl, skipped, fmt.Errorf("golden line for unknown target %q", g.Target)
		}
		res, err := runOurs(ctx, in, ReplayOptions(t, release, NowMs))
		if err != nil {
			return tl, skipped, fmt.Errorf("%s %s: %w", g.Input, g.Target, err)
		}
		digest, shape := OursDigest(res)
		var v Verdict
		switch {
		case g.Deliberate != "" && digest == g.OurDigest:
			v = Verdict{Equal: true, Deliberate: []string{g.Deliberate}}
		case g.Deliberate == "" && digest == g.Digest:
			v = Verdict{Equal: true}
		default:
			v = Verdict{Diff: fmt.Sprintf("digest %s, recorded %s\n  oracle %s\n  ours   %s", digest, g.Digest, g.Shape, shape)}
		}
		tl.add(w, g.Input, g.Target, v)
	}
	return tl, skipped, nil
}

// InputsByKey indexes inputs by Key.
func InputsByKey(lists ...[]Input) map[string]Input {
	m := map[string]Input{}
	for _, l := range lists {
		for _, in := range l {
			m[in.Key] = in
		}
	}
	return m
}

// CompactionTarget is the model compaction is checked for (only an overflow error's model
// matters to the decision).
var CompactionTarget = Targets[0]

func settingNamed(name string) (CompactionSetting, bool) {
	for _, s := range CompactionSettings {
		if s.Name == name {
			return s, true
		}
	}
	return CompactionSetting{}, false
}

func compactionOptions(s CompactionSetting, release string) replay.Options {
	o := ReplayOptions(CompactionTarget, release, NowMs)
	o.Compaction = CompactionSettingsFor(s)
	return o
}

func canonicalAnswer(a CompactionAnswer) (string, error) {
	a.NormalizeErrors()
	b, err := Canonical(a)
	return string(b), err
}

// LiveCompaction asks OpenClaw and our engine what compaction would decide for every input
// under every setting, and returns the counts and the golden lines to record.
func LiveCompaction(ctx context.Context, l Live, inputs []Input) (tally, []GoldenLine, error) {
	type job struct {
		in Input
		s  CompactionSetting
	}
	var reqs []any
	var jobs []job
	for _, in := range inputs {
		for _, s := range CompactionSettings {
			reqs = append(reqs, NewCompactionRequest(len(reqs), in.File, in.Data, CompactionTarget, s, NowMs))
			jobs = append(jobs, job{in, s})
		}
	}
	c := &collector{live: l, lines: make([]GoldenLine, len(reqs))}
	err := l.Oracle.Stream(ctx, reqs, l.Jobs, func(i int, raw json.RawMessage) error {
		in, s := jobs[i].in, jobs[i].s
		if IsStalled(raw) {
			c.add(i, in.Key, s.Name, stalledVerdict(ctx, in), GoldenLine{Input: in.Key, Target: s.Name, JSON: Stalled})
			return nil
		}
		var want CompactionAnswer
		if err := json.Unmarshal(raw, &want); err != nil {
			// An answer of another shape (entry ids that are numbers: a mutation that dropped
			// an id's quotes) is a difference for this input, not the end of the run.
			c.add(i, in.Key, s.Name, Verdict{Diff: "oracle answer of another shape: " + err.Error()},
				GoldenLine{Input: in.Key, Target: s.Name, JSON: string(raw)})
			return nil
		}
		got, err := runOurs(ctx, in, compactionOptions(s, l.Oracle.Release))
		if err != nil {
			return fmt.Errorf("%s %s: %w", in.Key, s.Name, err)
		}
		data, err := in.ReadData()
		if err != nil {
			return err
		}
		known := inputIDs(data)
		want.NormalizeGeneratedIDs(known)
		ours := OursCompaction(got)
		ours.NormalizeGeneratedIDs(known)
		wj, err1 := canonicalAnswer(want)
		gj, err2 := canonicalAnswer(ours)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("%s %s: %v %v", in.Key, s.Name, err1, err2)
		}
		v := Verdict{Equal: wj == gj}
		if !v.Equal {
			v.Diff = FirstDiff(json.RawMessage(wj), json.RawMessage(gj))
		}
		c.add(i, in.Key, s.Name, v, GoldenLine{Input: in.Key, Target: s.Name, JSON: wj})
		return nil
	})
	return c.tl, c.lines, err
}

// OfflineCompaction checks our compaction decisions against recorded golden lines.
func OfflineCompaction(ctx context.Context, release string, lines []GoldenLine, inputs map[string]Input, w io.Writer) (tl tally, skipped int, err error) {
	for _, g := range lines {
		in, ok := inputs[g.Input]
		if !ok {
			skipped++
			continue
		}
		s, ok := settingNamed(g.Target)
		if !ok {
			return tl, skipped, fmt.Errorf("golden line for unknown setting %q", g.Target)
		}
		if g.JSON == Stalled {
			tl.add(w, g.Input, g.Target, stalledVerdict(ctx, in))
			continue
		}
		res, err := runOurs(ctx, in, compactionOptions(s, release))
		if err != nil {
			return tl, skipped, fmt.Errorf("%s %s: %w", g.Input, g.Target, err)
		}
		data, err := in.ReadData()
		if err != nil {
			return tl, skipped, err
		}
		ours := OursCompaction(res)
		ours.NormalizeGeneratedIDs(inputIDs(data)) // as the recorded answer was
		gj, err := canonicalAnswer(ours)
		if err != nil {
			return tl, skipped, err
		}
		v := Verdict{Equal: gj == g.JSON}
		if !v.Equal {
			v.Diff = FirstDiff(json.RawMessage(g.JSON), json.RawMessage(gj))
		}
		tl.add(w, g.Input, g.Target, v)
	}
	return tl, skipped, nil
}

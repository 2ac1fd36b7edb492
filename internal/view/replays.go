package view

import (
	"bufio"
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"

	"github.com/clawdoctor/clawdoctor/internal/compaction"
	"github.com/clawdoctor/clawdoctor/internal/hygiene"
	"github.com/clawdoctor/clawdoctor/internal/replay"
	"github.com/clawdoctor/clawdoctor/internal/safefile"
	"github.com/clawdoctor/clawdoctor/internal/session"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// Target is a provider and model a page shows the replay for ("what OpenClaw would send").
type Target struct {
	Provider string
	Model    string
}

func (t Target) String() string { return t.Provider + "/" + t.Model }

// ParseTarget reads "provider/model" (the model may itself hold slashes:
// "openrouter/google/gemini-2.5-pro").
func ParseTarget(s string) (Target, error) {
	p, m, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok || p == "" || m == "" {
		return Target{}, fmt.Errorf("replay target %q: want provider/model, e.g. anthropic/claude-sonnet-4-5", s)
	}
	return Target{Provider: p, Model: m}, nil
}

// DefaultReplays are the targets a page shows besides the session's own model: one of each
// hygiene family that changes the most (Anthropic turns, OpenAI Responses ids and reasoning,
// Google turn ordering).
var DefaultReplays = []Target{
	{"anthropic", "claude-sonnet-4-5"},
	{"openai", "gpt-5"},
	{"google", "gemini-2.5-pro"},
}

// sent message status (sentRec.S)
const (
	sentSame      = 0 // as stored
	sentChanged   = 1 // a hygiene step changed it
	sentInserted  = 2 // synthetic (a missing tool result, a bootstrap turn)
	sentConverted = 3 // a summary or custom message sent as a user message
	sentMerged    = 4 // consecutive turns merged into one
)

type replayRec struct {
	Target       string     `json:"target"`
	API          string     `json:"api"`
	Family       []string   `json:"family"`
	Steps        []stepRec  `json:"steps"`
	Sent         []sentRec  `json:"sent"`
	Dropped      []int32    `json:"dropped"` // context entries no sent message comes from
	Tokens       int        `json:"tokens"`  // estimated tokens sent
	Context      int        `json:"contextTokens"`
	WouldCompact bool       `json:"wouldCompact"`
	Warnings     []string   `json:"warnings"`
	Error        string     `json:"error,omitempty"`
	Leaf         string     `json:"leaf,omitempty"`
	Compaction   string     `json:"compaction,omitempty"`
	Window       int        `json:"window"`
	Reserve      int        `json:"reserve"`
	Snapshot     string     `json:"snapshot,omitempty"`
	Policy       policyFlag `json:"policy"`
}

type policyFlag struct {
	IDs       string `json:"ids,omitempty"`
	Pairing   bool   `json:"pairing"`
	DropThink bool   `json:"dropThinking"`
	Google    bool   `json:"google"`
	Anthropic bool   `json:"anthropic"`
}

type stepRec struct {
	Name    string   `json:"name"`
	Changed int      `json:"changed"`
	Details []string `json:"details,omitempty"`
}

type sentRec struct {
	E   int32     `json:"e"` // source entry, -1 when synthetic
	R   string    `json:"r"` // role as sent
	S   int       `json:"s"`
	Ref string    `json:"ref,omitempty"` // hygiene's reference, for synthetic and merged messages
	J   *textPart `json:"j,omitempty"`   // the message as sent (JSON), for every message not sent as stored
}

// ownTarget is the session's own last model on the active path, when there is one.
func (b *builder) ownTarget() (Target, bool) {
	es := b.d.Entries
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].Fl&flActive != 0 && es[i].R == session.RoleAssistant && es[i].M > 0 {
			t, err := ParseTarget(b.d.Models[es[i].M-1])
			return t, err == nil && t.Provider != "openclaw"
		}
	}
	return Target{}, false
}

type replayRun struct {
	t   Target
	res *replay.Result
	err error
}

// startReplays runs replay.RunFile for each target, two at a time, in goroutines: the
// replays overlap with reading the transcript for the page.
func startReplays(ctx context.Context, path string, ts []Target, nowMs int64) <-chan []replayRun {
	ch := make(chan []replayRun, 1)
	go func() {
		out := make([]replayRun, len(ts))
		var wg sync.WaitGroup
		sem := make(chan struct{}, 2)
		for k, t := range ts {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				if err := ctx.Err(); err != nil {
					out[k] = replayRun{t: t, err: err}
					return
				}
				res, err := runReplay(ctx, path, t, nowMs)
				out[k] = replayRun{t: t, res: res, err: err}
			}()
		}
		wg.Wait()
		ch <- out
	}()
	return ch
}

// ownModel reads the last assistant turn of the active path (one line, from the plain file)
// for its model, so the replay of the session's own model can start with the others.
func ownModel(idx *session.Index, path string) (Target, bool) {
	p := idx.ActivePath()
	for k := len(p) - 1; k >= 0; k-- {
		nd := idx.Node(p[k])
		if nd.Type != session.TypeMessage || nd.Role != session.RoleAssistant {
			continue
		}
		f, err := safefile.Open(path)
		if err != nil {
			return Target{}, false
		}
		defer f.Close()
		if jsonl.Detect(bufio.NewReaderSize(f, 16)) != jsonl.Plain {
			return Target{}, false // a compressed file: known once the entries are read
		}
		e, err := idx.ReadEntry(f, p[k])
		if err != nil || e.Message == nil || e.Message.Provider == "" || e.Message.Model == "" || e.Message.Provider == "openclaw" {
			return Target{}, false
		}
		return Target{Provider: e.Message.Provider, Model: e.Message.Model}, true
	}
	return Target{}, false
}

// BigSession is the entry count above which a page replays, by default, only the session's
// own model (or the first of DefaultReplays): each replay of a huge session costs about as
// much as an audit of it. Options.Replays chooses any targets.
const BigSession = 20000

// replayTargets are the targets started with the page build: Options.Replays, else the
// session's own model (when it can be read now) and DefaultReplays.
func replayTargets(o Options, idx *session.Index, path string) ([]Target, bool) {
	if o.Replays != nil {
		return o.Replays, true
	}
	own, ok := ownModel(idx, path)
	if idx.Len() > BigSession {
		if !ok {
			own = DefaultReplays[0]
		}
		return []Target{own}, true
	}
	if !ok {
		return DefaultReplays, false
	}
	out := []Target{own}
	for _, t := range DefaultReplays {
		if hygiene.NormalizeProvider(t.Provider) != hygiene.NormalizeProvider(own.Provider) {
			out = append(out, t)
		}
	}
	return out, true
}

func runReplay(ctx context.Context, path string, t Target, nowMs int64) (*replay.Result, error) {
	return replay.RunFile(ctx, path, replay.Options{Provider: t.Provider, Model: t.Model,
		NowMs: nowMs,
		Compaction: compaction.Settings{ContextWindow: compaction.DefaultContextWindow,
			ReserveTokens: compaction.DefaultReserveTokens, KeepRecentTokens: compaction.DefaultKeepRecentTokens,
			Boundary: compaction.DefaultBoundary, Estimator: compaction.EstimatorPi}})
}

// replays records the started replays and, with the default targets, the session's own
// model first (run now: it is known only once the entries are read).
func (b *builder) replays(ctx context.Context, idx *session.Index, path string, started <-chan []replayRun, complete bool) {
	var runs []replayRun
	if !complete {
		if own, ok := b.ownTarget(); ok {
			covered := false
			for _, t := range DefaultReplays {
				covered = covered || hygiene.NormalizeProvider(t.Provider) == hygiene.NormalizeProvider(own.Provider)
			}
			if !covered {
				res, err := runReplay(ctx, path, own, b.o.Now.UnixMilli())
				runs = append(runs, replayRun{t: own, res: res, err: err})
			}
		}
	}
	runs = append(runs, <-started...)
	for _, r := range runs {
		rec := replayRec{Target: r.t.String(), Family: []string{}, Steps: []stepRec{}, Sent: []sentRec{}, Dropped: []int32{}, Warnings: []string{}}
		if r.err != nil {
			rec.Error = r.err.Error()
			if b.red != nil {
				rec.Error = "replay failed"
			}
		} else {
			b.replay(&rec, idx, r.res, path)
		}
		b.d.Replays = append(b.d.Replays, rec)
	}
}

func (b *builder) replay(rec *replayRec, idx *session.Index, res *replay.Result, path string) {
	rec.API = res.API
	if res.Policy.Owner != "" { // the provider plugin whose replay policy applies
		rec.Family = append(rec.Family, res.Policy.Owner)
	}
	p := res.Policy
	rec.Policy = policyFlag{Pairing: p.RepairToolUseResultPairing, DropThink: p.DropThinkingBlocks,
		Google: p.ApplyGoogleTurnOrdering || p.ValidateGeminiTurns, Anthropic: p.ValidateAnthropicTurns}
	if p.SanitizeToolCallIDs {
		rec.Policy.IDs = p.ToolCallIDMode
	}
	rec.Tokens = res.Tokens.EstimatedSent
	rec.Context = res.Compaction.Trigger.ContextTokens.Int()
	rec.WouldCompact = res.Compaction.Trigger.WouldCompact
	rec.Leaf, rec.Compaction = res.Context.Leaf, res.Context.Compaction
	rec.Window = res.Compaction.Trigger.ContextWindow
	rec.Reserve = res.Compaction.Trigger.ReserveTokens
	if ms := res.Context.ModelSnapshot; ms.WouldAppend {
		rec.Snapshot = ms.Reason
	}
	for _, w := range res.Context.Warnings {
		if b.red != nil {
			w = strings.ReplaceAll(w, path, filepath.Base(path))
		}
		rec.Warnings = append(rec.Warnings, w)
	}
	for _, s := range res.Steps {
		st := stepRec{Name: s.Name, Changed: s.Changed}
		if b.red == nil {
			st.Details = s.Details
		}
		rec.Steps = append(rec.Steps, st)
	}
	stored := map[string]compaction.Item{}
	for _, it := range res.Context.Path {
		if it.Msg != nil {
			stored[it.ID] = it
		}
	}
	lookup := func(id string) int32 {
		if i, ok := idx.Lookup(id); ok {
			return int32(i)
		}
		return -1
	}
	sentFrom := map[string]bool{}
	for k, m := range res.Messages {
		ref := res.Refs[k]
		sr := sentRec{E: -1, R: hygiene.Role(m), S: sentSame}
		switch {
		case strings.HasPrefix(ref, "summary:"):
			id := strings.TrimPrefix(ref, "summary:")
			sr.E, sr.S = lookup(id), sentConverted
			sentFrom[id] = true
		case strings.HasPrefix(ref, "synthetic:"):
			sr.S, sr.Ref = sentInserted, ref
			if loc, ok := b.calls[strings.TrimPrefix(ref, "synthetic:")]; ok {
				sr.E = loc[0]
			}
		case ref == "bootstrap" || ref == "?":
			sr.S, sr.Ref = sentInserted, ref
		case strings.Contains(ref, "+"):
			sr.S, sr.Ref = sentMerged, ref
			for _, id := range strings.Split(ref, "+") {
				if id == "…" {
					continue
				}
				sentFrom[id] = true
				if sr.E < 0 {
					sr.E = lookup(id)
				}
			}
		default:
			sentFrom[ref] = true
			sr.E = lookup(ref)
			if it, ok := stored[ref]; ok {
				switch {
				case hygiene.Role(it.Msg) != sr.R:
					sr.S = sentConverted
				case !reflect.DeepEqual(map[string]any(it.Msg), map[string]any(m)):
					sr.S = sentChanged
				}
			} else {
				sr.S = sentConverted // built in memory (custom or branch summary)
			}
		}
		if sr.S != sentSame {
			if js, err := marshal(m); err == nil {
				sr.J = b.jsonText(js)
			}
		}
		rec.Sent = append(rec.Sent, sr)
	}
	for _, it := range res.Context.Path {
		if it.Msg != nil && it.Kind != compaction.KindCompaction && !sentFrom[it.ID] {
			if e := lookup(it.ID); e >= 0 {
				rec.Dropped = append(rec.Dropped, e)
			}
		}
	}
}

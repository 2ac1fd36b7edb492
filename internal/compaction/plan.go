package compaction

import (
	"fmt"
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"math"

	"github.com/clawdoctor/clawdoctor/internal/hygiene"
)

// Defaults of pi and OpenClaw (§2.4, §2.11).
const (
	DefaultContextWindow    = 200000
	DefaultReserveTokens    = 16384 // pi
	DefaultKeepRecentTokens = 20000 // pi
	ReserveTokensFloor      = 20000 // OpenClaw DEFAULT_PI_COMPACTION_RESERVE_TOKENS_FLOOR
	MinPromptBudgetTokens   = 8000
	MemoryFlushSoftTokens   = 4000
)

// Boundary selects where the next compaction starts summarizing (§2.7).
type Boundary string

const (
	// BoundaryPi058: the entry after the previous compaction; what it kept silently vanishes.
	BoundaryPi058 Boundary = "pi-0.58"
	// BoundaryLate: the previous compaction's firstKeptEntryId (pi-late, OC-core).
	BoundaryLate Boundary = "late"
)

// DefaultBoundary is the late boundary: re-running the cut of the corpus' stored compactions
// reproduces 256 of 274 only with it and 3 only with pi-0.58 (replay --recheck-compactions).
// It is what OpenClaw 2026.4.24 (pi 0.70) and 2026.6.11 run; 2026.3.13 (pi 0.58) runs pi-0.58.
const DefaultBoundary = BoundaryLate

// ReleaseBoundary is the boundary release r's compaction uses.
func ReleaseBoundary(r hygiene.Release) Boundary {
	if compareRelease(r, hygiene.Release20260424) < 0 {
		return BoundaryPi058
	}
	return BoundaryLate
}

// ParseBoundary returns the Boundary named s ("" is DefaultBoundary).
func ParseBoundary(s string) (Boundary, error) {
	switch Boundary(s) {
	case "":
		return DefaultBoundary, nil
	case BoundaryPi058:
		return BoundaryPi058, nil
	case BoundaryLate:
		return BoundaryLate, nil
	}
	return "", fmt.Errorf("unknown boundary %q (want pi-0.58 or late)", s)
}

// Settings are the compaction inputs.
type Settings struct {
	ContextWindow    int
	ReserveTokens    int // configured; 0 means pi's 16384
	KeepRecentTokens int // 0 means 20000
	ReserveFloor     int // OpenClaw floor; negative disables, 0 means 20000
	Boundary         Boundary
	Estimator        Estimator
	// Provider and Model are the target: an overflow error only triggers a compaction when it
	// came from the current model ("" skips that check).
	Provider, Model string
	// Release is the OpenClaw release whose compaction code is followed ("" the default): it
	// picks the boundary when none is set, and how estimateTokens counts user images.
	Release hygiene.Release
	// EmptyBranch: the session manager's branch is empty although the context is not (pi
	// before 2026.6.11 when the last entry's id is not truthy): the trigger is checked on
	// the context, and nothing is prepared.
	EmptyBranch bool
}

func (s Settings) withDefaults() Settings {
	if s.ContextWindow <= 0 {
		s.ContextWindow = DefaultContextWindow
	}
	if s.ReserveTokens <= 0 {
		s.ReserveTokens = DefaultReserveTokens
	}
	if s.KeepRecentTokens <= 0 {
		s.KeepRecentTokens = DefaultKeepRecentTokens
	}
	if s.ReserveFloor == 0 {
		s.ReserveFloor = ReserveTokensFloor
	}
	if s.Boundary == "" {
		s.Boundary = ReleaseBoundary(s.Release)
	}
	if s.Estimator == "" {
		s.Estimator = EstimatorPi
	}
	return s
}

// EffectiveFloor caps the floor for small windows as later OpenClaw does: at least
// min(8000, window/2) tokens stay for the prompt.
func EffectiveFloor(floor, window int) int {
	if floor <= 0 {
		return 0
	}
	minPrompt := min(MinPromptBudgetTokens, max(1, window/2))
	return min(floor, max(0, window-minPrompt))
}

// EffectiveReserve is max(configured reserve, OpenClaw's floor).
func EffectiveReserve(reserve, floor, window int) int {
	return max(reserve, EffectiveFloor(floor, window))
}

// ShouldCompact is pi's trigger: contextTokens > contextWindow − reserveTokens (strictly).
func ShouldCompact(contextTokens, window, reserve int) bool {
	if window <= 0 {
		return false
	}
	return contextTokens > window-reserve
}

// Range is a half-open range of item indices.
type Range struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// Len is the number of indices in r.
func (r Range) Len() int { return max(0, r.To-r.From) }

// Trigger is pi's _checkCompaction on the last assistant message of the path, as it runs
// before the next prompt.
type Trigger struct {
	ContextTokens JSNum  `json:"context_tokens"`
	Source        string `json:"source"` // "usage" (the last assistant's), "estimate" (after an error turn) or "none"
	// Checked: there is an assistant message to check (pi's findLastAssistantMessage).
	Checked bool `json:"checked"`
	// Error is set when OpenClaw's check itself would throw (a last assistant without usage).
	Error string `json:"error,omitempty"`
	// Estimate is estimateContextTokens over the context: the last usable usage plus the
	// estimates of the messages after it (what OpenClaw's status and tokensBefore use).
	Estimate       ContextEstimate `json:"estimate"`
	Overflow       string          `json:"overflow,omitempty"` // the overflow pattern the last error matched
	ContextWindow  int             `json:"context_window"`
	ReserveTokens  int             `json:"reserve_tokens"` // effective, floor applied
	Threshold      int             `json:"threshold"`      // window − reserve
	WouldCompact   bool            `json:"would_compact"`
	Reason         string          `json:"reason"`
	LastUsageEntry string          `json:"last_usage_entry,omitempty"`
}

// MemoryFlush is the pre-compaction memory flush decision (§2.11).
type MemoryFlush struct {
	Threshold int  `json:"threshold"`
	WouldRun  bool `json:"would_run"`
}

// Plan is what a compaction run now would do.
type Plan struct {
	Trigger             Trigger     `json:"trigger"`
	MemoryFlush         MemoryFlush `json:"memory_flush"`
	Boundary            Boundary    `json:"boundary"`
	KeepRecentTokens    int         `json:"keep_recent_tokens"`
	PrevCompactionIndex int         `json:"prev_compaction_index"` // -1 when none
	BoundaryStart       int         `json:"boundary_start"`
	Blocked             string      `json:"blocked,omitempty"` // why no compaction can be prepared
	// Failed: OpenClaw's preparation would throw (Blocked says where).
	Failed           bool   `json:"failed,omitempty"`
	Cut              Cut    `json:"cut"`
	FirstKeptEntryID string `json:"first_kept_entry_id,omitempty"`
	Summarize        Range  `json:"summarize"`   // history to summarize
	TurnPrefix       Range  `json:"turn_prefix"` // split-turn prefix, empty when not split
	Kept             Range  `json:"kept"`
	TokensBefore     JSNum  `json:"tokens_before"`
	SummarizeTokens  int    `json:"summarize_tokens"`
	KeptTokens       int    `json:"kept_tokens"`
	// Lost lists entries the previous compaction kept that pi-0.58 neither keeps nor summarizes.
	Lost   []string `json:"lost_from_previous_kept,omitempty"`
	Stages Stages   `json:"stages"`
}

// Prepare computes the plan over the active path (root first) and the context messages sent
// before hygiene (for the trigger's usage and trailing estimate).
func Prepare(items []Item, context []hygiene.Message, s Settings) Plan {
	s = s.withDefaults()
	est := s.Estimator
	reserve := EffectiveReserve(s.ReserveTokens, s.ReserveFloor, s.ContextWindow)
	if compareRelease(s.Release, hygiene.Release20260424) < 0 && s.ReserveFloor > 0 {
		// 2026.3.x applies the floor whatever the window (a 16k window keeps 20k in reserve)
		reserve = max(s.ReserveTokens, s.ReserveFloor)
	}
	p := Plan{Boundary: s.Boundary, KeepRecentTokens: s.KeepRecentTokens, PrevCompactionIndex: -1,
		Cut: Cut{TurnStartIndex: -1}}

	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Kind == KindCompaction {
			p.PrevCompactionIndex = i
			break
		}
	}
	// trigger: usage of the last usable assistant after the latest compaction, plus trailing
	p.Trigger = trigger(items, context, p.PrevCompactionIndex, reserve, s)

	flush := max(0, s.ContextWindow-EffectiveFloor(s.ReserveFloor, s.ContextWindow)-MemoryFlushSoftTokens)
	total := p.Trigger.ContextTokens.Int()
	p.MemoryFlush = MemoryFlush{Threshold: flush, WouldRun: total > 0 && flush > 0 && total >= flush}

	if len(items) == 0 {
		p.Blocked = "empty path"
		return p
	}
	if s.EmptyBranch {
		p.Blocked = "pi's branch is empty: the last entry's id is not truthy, so getBranch() finds no leaf"
		return p
	}
	if items[len(items)-1].Kind == KindCompaction {
		p.Blocked = "the last entry on the path is a compaction"
		return p
	}
	p.BoundaryStart = p.PrevCompactionIndex + 1
	if p.PrevCompactionIndex >= 0 {
		prev := items[p.PrevCompactionIndex]
		keptFrom := -1
		for i := range items {
			if items[i].ID == prev.FirstKeptID {
				keptFrom = i
				break
			}
		}
		if s.Boundary == BoundaryLate && keptFrom >= 0 {
			p.BoundaryStart = keptFrom
		}
		if s.Boundary == BoundaryPi058 && keptFrom >= 0 && keptFrom < p.PrevCompactionIndex {
			for _, it := range items[keptFrom:p.PrevCompactionIndex] {
				if it.Msg != nil {
					p.Lost = append(p.Lost, it.ID)
				}
			}
		}
	}
	// tokensBefore: pi-0.58 from the previous compaction (as its summary) to the end; late
	// from the whole context.
	var before []hygiene.Message
	if s.Boundary == BoundaryLate {
		before = context
	} else {
		from := max(p.PrevCompactionIndex, 0)
		for _, it := range items[from:] {
			if it.Msg != nil {
				before = append(before, it.Msg)
			}
		}
	}
	if est == EstimatorPi {
		ce, err := JSEstimateContext(before, s.Release)
		if err != nil {
			p.Blocked, p.Failed = "OpenClaw's token estimate of the context throws on a malformed message", true
			return p
		}
		p.TokensBefore = ce.Tokens
	} else {
		p.TokensBefore = est.EstimateContext(before).Tokens
	}

	cut, err := findCut(items, p.BoundaryStart, len(items), s.KeepRecentTokens, est == EstimatorPi, s.Release)
	if err != nil {
		p.Blocked, p.Failed = "OpenClaw's cut-point walk throws on a malformed message", true
		return p
	}
	p.Cut = cut
	if p.Cut.FirstKeptIndex >= len(items) || items[p.Cut.FirstKeptIndex].ID == "" {
		p.Blocked = "the first kept entry has no id"
		return p
	}
	p.FirstKeptEntryID = items[p.Cut.FirstKeptIndex].ID
	historyEnd := p.Cut.FirstKeptIndex
	if p.Cut.IsSplitTurn {
		historyEnd = p.Cut.TurnStartIndex
		p.TurnPrefix = Range{p.Cut.TurnStartIndex, p.Cut.FirstKeptIndex}
	}
	p.Summarize = Range{p.BoundaryStart, historyEnd}
	p.Kept = Range{p.Cut.FirstKeptIndex, len(items)}
	var toSummarize []Item
	for i := p.Summarize.From; i < p.Summarize.To; i++ {
		if items[i].Msg != nil {
			toSummarize = append(toSummarize, items[i])
			p.SummarizeTokens += items[i].Tokens
		}
	}
	for _, it := range items[p.Kept.From:] {
		if it.Msg != nil && it.Kind != KindCompaction {
			p.KeptTokens += it.Tokens
		}
	}
	p.Stages = PlanStages(toSummarize, s.ContextWindow)
	return p
}

// trigger is AgentSession.checkCompaction(lastAssistant, false) as it runs before the next
// prompt, over the context messages (the agent's state): no assistant, no check; an assistant
// at or before the latest compaction's time is not checked; an overflow error from the current
// model compacts and retries; an error turn uses the context estimate (giving up without
// usage, or with usage from before the compaction); any other turn uses its own usage. The
// arithmetic is OpenClaw's (a usage that is not numeric gives NaN, which never compacts).
func trigger(items []Item, context []hygiene.Message, prev, reserve int, s Settings) Trigger {
	tr := Trigger{ContextWindow: s.ContextWindow, ReserveTokens: reserve, Threshold: s.ContextWindow - reserve, Source: "none"}
	strict := s.Estimator == EstimatorPi
	if strict {
		ce, err := JSEstimateContext(context, s.Release)
		if err != nil {
			ce.Error = err.Error()
		}
		tr.Estimate = ce
	} else {
		tr.Estimate = s.Estimator.EstimateContext(context)
	}
	var last hygiene.Message
	for i := len(context) - 1; i >= 0; i-- {
		if hygiene.Role(context[i]) == "assistant" {
			last = context[i]
			break
		}
	}
	if last == nil {
		tr.Reason = "no assistant message in the context: nothing to check"
		return tr
	}
	tr.Checked = true
	if hygiene.Ref(last) != "?" {
		tr.LastUsageEntry = hygiene.Ref(last)
	}
	compTS := math.NaN()
	if prev >= 0 {
		compTS = items[prev].Timestamp
	}
	msgTS := func(m hygiene.Message) float64 { v, has := m["timestamp"]; return jsToNumber(v, has) }
	if prev >= 0 && msgTS(last) <= compTS {
		tr.Reason = "the last assistant message is not newer than the latest compaction: no check"
		return tr
	}
	provider, _ := hygiene.Str(last, "provider")
	model, _ := hygiene.Str(last, "model")
	current := s.Provider == "" || (provider == s.Provider && model == s.Model)
	if current {
		pat, err := Overflow(last, s.ContextWindow)
		if err != nil {
			tr.Error = "OpenClaw's overflow check throws: the last assistant message has no usage"
			return tr
		}
		if pat != "" {
			tr.Overflow, tr.WouldCompact = pat, true
			tr.Reason = "the last assistant turn is a context overflow (" + pat + "): compact and retry"
			return tr
		}
	}
	if hygiene.StopReason(last) == "error" {
		if tr.Estimate.Error != "" {
			tr.Error = tr.Estimate.Error
			return tr
		}
		if tr.Estimate.LastUsageIndex < 0 {
			tr.Reason = "the last assistant turn failed and no usage is left to estimate from: no check"
			return tr
		}
		if um := context[tr.Estimate.LastUsageIndex]; prev >= 0 && hygiene.Role(um) == "assistant" && msgTS(um) <= compTS {
			tr.Reason = "the last assistant turn failed and the usage left predates the latest compaction: no check"
			return tr
		}
		tr.ContextTokens, tr.Source = tr.Estimate.Tokens, "estimate"
	} else {
		u, has := last["usage"]
		if !has || u == nil {
			tr.Error = "OpenClaw's check throws: the last assistant message has no usage"
			return tr
		}
		tr.ContextTokens, tr.Source = JSContextTokens(u), "usage"
	}
	tr.WouldCompact = float64(tr.ContextTokens) > float64(s.ContextWindow-reserve)
	if tr.WouldCompact {
		tr.Reason = fmt.Sprintf("%d context tokens > window %d − reserve %d", tr.ContextTokens.Int(), s.ContextWindow, reserve)
	} else if !tr.ContextTokens.Valid() {
		tr.Reason = "the last usage is not a number (NaN in OpenClaw): no compaction"
	} else {
		tr.Reason = fmt.Sprintf("%d context tokens ≤ window %d − reserve %d", tr.ContextTokens.Int(), s.ContextWindow, reserve)
	}
	return tr
}

var overflowPatterns = func() []*lazyre.Regexp {
	var out []*lazyre.Regexp
	for _, p := range []string{
		`prompt is too long`, `request_too_large`, `input is too long for requested model`,
		`exceeds the context window`, `exceeds (?:the )?(?:model'?s )?maximum context length of [\d,]+ tokens?`,
		`input token count.*exceeds the maximum`, `maximum prompt length is \d+`,
		`reduce the length of the messages`, `maximum context length is \d+ tokens`,
		`input \(\d+ tokens\) is longer than the model'?s context length \(\d+ tokens\)`,
		`exceeds the limit of \d+`, `exceeds the available context size`, `greater than the context length`,
		`context window exceeds limit`, `exceeded model token limit`,
		`too large for model with \d+ maximum context length`, `model_context_window_exceeded`,
		`prompt too long; exceeded (?:max )?context length`,
		`context[_ ]length[_ ]exceeded`, `too many tokens`, `token limit exceeded`,
		`^4(?:00|13)\s*(?:status code)?\s*\(no body\)`,
	} {
		out = append(out, lazyre.New(`(?i)`+p))
	}
	return out
}()

var nonOverflowPatterns = []*lazyre.Regexp{
	lazyre.New(`(?i)^(Throttling error|Service unavailable):`),
	lazyre.New(`(?i)rate limit`),
	lazyre.New(`(?i)too many requests`),
}

// Overflow is isContextOverflow (2026.6.11): an error turn whose errorMessage matches an
// overflow pattern and no rate-limit pattern; a silent overflow (a "stop" turn whose input
// plus cache reads exceed the window); or a "length" turn with no output that filled 99% of
// the window. It returns what matched ("" for none), and an error where OpenClaw's check
// throws (a stop or length turn without usage).
func Overflow(m hygiene.Message, window int) (string, error) {
	if hygiene.StopReason(m) == "error" {
		if msg, ok := m["errorMessage"].(string); ok && msg != "" {
			rate := false
			for _, re := range nonOverflowPatterns {
				rate = rate || re.MatchString(msg)
			}
			for _, re := range overflowPatterns {
				if !rate && re.MatchString(msg) {
					return re.String()[4:], nil
				}
			}
		}
	}
	usageNum := func(k string) (float64, error) {
		u, has := m["usage"]
		if !has || u == nil {
			return 0, errThrows
		}
		um, _ := u.(map[string]any)
		v, p := um[k]
		return jsToNumber(v, p), nil
	}
	if window != 0 && hygiene.StopReason(m) == "stop" {
		in, err := usageNum("input")
		if err != nil {
			return "", err
		}
		cr, _ := usageNum("cacheRead")
		if in+cr > float64(window) {
			return "silent overflow: input + cacheRead > context window", nil
		}
	}
	if window != 0 && hygiene.StopReason(m) == "length" {
		out, err := usageNum("output")
		if err != nil {
			return "", err
		}
		if out == 0 {
			in, _ := usageNum("input")
			cr, _ := usageNum("cacheRead")
			if in+cr >= float64(window)*0.99 {
				return "length stop with no output at a full context window", nil
			}
		}
	}
	return "", nil
}

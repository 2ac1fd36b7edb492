package compaction

import (
	"fmt"

	"github.com/clawdoctor/clawdoctor/hygiene"
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

// ParseBoundary returns the Boundary named s ("" is pi-0.58).
func ParseBoundary(s string) (Boundary, error) {
	switch Boundary(s) {
	case "", BoundaryPi058:
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
		s.Boundary = BoundaryPi058
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

// Trigger is the threshold decision.
type Trigger struct {
	ContextTokens  int    `json:"context_tokens"`
	Source         string `json:"source"` // "usage+trailing" or "estimate"
	ContextWindow  int    `json:"context_window"`
	ReserveTokens  int    `json:"reserve_tokens"` // effective, floor applied
	Threshold      int    `json:"threshold"`      // window − reserve
	WouldCompact   bool   `json:"would_compact"`
	Reason         string `json:"reason"`
	LastUsageEntry string `json:"last_usage_entry,omitempty"`
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
	Cut                 Cut         `json:"cut"`
	FirstKeptEntryID    string      `json:"first_kept_entry_id,omitempty"`
	Summarize           Range       `json:"summarize"`   // history to summarize
	TurnPrefix          Range       `json:"turn_prefix"` // split-turn prefix, empty when not split
	Kept                Range       `json:"kept"`
	TokensBefore        int         `json:"tokens_before"`
	SummarizeTokens     int         `json:"summarize_tokens"`
	KeptTokens          int         `json:"kept_tokens"`
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
	p := Plan{Boundary: s.Boundary, KeepRecentTokens: s.KeepRecentTokens, PrevCompactionIndex: -1,
		Cut: Cut{TurnStartIndex: -1}}

	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Kind == KindCompaction {
			p.PrevCompactionIndex = i
			break
		}
	}
	// trigger: usage of the last usable assistant after the latest compaction, plus trailing
	tr := Trigger{ContextWindow: s.ContextWindow, ReserveTokens: reserve, Threshold: s.ContextWindow - reserve}
	usageAt := -1
	for i := len(items) - 1; i > p.PrevCompactionIndex; i-- {
		if items[i].Kind != KindMessage {
			continue
		}
		if _, ok := usable(items[i].Msg); ok {
			usageAt = i
			break
		}
	}
	if usageAt >= 0 {
		u, _ := usable(items[usageAt].Msg)
		tr.ContextTokens = ContextTokens(u)
		for _, it := range items[usageAt+1:] {
			if it.Msg != nil && it.Kind != KindCompaction {
				tr.ContextTokens += it.Tokens
			}
		}
		tr.Source = "usage+trailing"
		tr.LastUsageEntry = items[usageAt].ID
	} else {
		for _, m := range context { // no usage since the latest compaction: estimate it all
			tr.ContextTokens += est.Tokens(m)
		}
		tr.Source = "estimate"
	}
	tr.WouldCompact = ShouldCompact(tr.ContextTokens, s.ContextWindow, reserve)
	if tr.WouldCompact {
		tr.Reason = fmt.Sprintf("%d context tokens > window %d − reserve %d", tr.ContextTokens, s.ContextWindow, reserve)
	} else {
		tr.Reason = fmt.Sprintf("%d context tokens ≤ window %d − reserve %d", tr.ContextTokens, s.ContextWindow, reserve)
	}
	p.Trigger = tr

	flush := max(0, s.ContextWindow-EffectiveFloor(s.ReserveFloor, s.ContextWindow)-MemoryFlushSoftTokens)
	p.MemoryFlush = MemoryFlush{Threshold: flush, WouldRun: tr.ContextTokens > 0 && flush > 0 && tr.ContextTokens >= flush}

	if len(items) == 0 {
		p.Blocked = "empty path"
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
		for i := 0; i < p.PrevCompactionIndex; i++ {
			if items[i].ID == prev.FirstKeptID {
				keptFrom = i
				break
			}
		}
		if s.Boundary == BoundaryLate && keptFrom >= 0 {
			p.BoundaryStart = keptFrom
		}
		if s.Boundary == BoundaryPi058 && keptFrom >= 0 {
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
	p.TokensBefore = est.EstimateContext(before).Tokens

	p.Cut = FindCutPoint(items, p.BoundaryStart, len(items), s.KeepRecentTokens)
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

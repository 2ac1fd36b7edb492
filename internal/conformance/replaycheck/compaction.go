package replaycheck

import (
	"bytes"
	"fmt"

	"github.com/clawdoctor/clawdoctor/internal/compaction"
	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/internal/replay"
	"github.com/clawdoctor/clawdoctor/internal/session"
)

// CompactionRequest is one request line of internal/conformance/oracle/compaction.mjs.
type CompactionRequest struct {
	ID            int            `json:"id"`
	File          string         `json:"file,omitempty"`
	Data          []byte         `json:"data"` // base64; sent even when empty (an empty transcript)
	Provider      string         `json:"provider"`
	ModelID       string         `json:"modelId"`
	ContextWindow int            `json:"contextWindow"`
	Config        map[string]int `json:"config"`
	Now           int64          `json:"now"`
}

// CompactionSetting is one compaction configuration inputs are checked under.
type CompactionSetting struct {
	Name                                          string
	ContextWindow                                 int
	ReserveTokens, KeepRecentTokens, ReserveFloor int // 0: not configured
}

// CompactionSettings: OpenClaw's defaults on a 200k window, and a small window that makes
// the corpus compact (the trigger, the cut and split turns all get exercised).
var CompactionSettings = []CompactionSetting{
	{Name: "default", ContextWindow: 200000},
	{Name: "small", ContextWindow: 16000, ReserveTokens: 2000, KeepRecentTokens: 1500},
}

// NewCompactionRequest builds the request for a transcript under setting s.
func NewCompactionRequest(id int, file string, data []byte, t Target, s CompactionSetting, nowMs int64) CompactionRequest {
	cfg := map[string]int{}
	if s.ReserveTokens > 0 {
		cfg["reserveTokens"] = s.ReserveTokens
	}
	if s.KeepRecentTokens > 0 {
		cfg["keepRecentTokens"] = s.KeepRecentTokens
	}
	if s.ReserveFloor > 0 {
		cfg["reserveTokensFloor"] = s.ReserveFloor
	}
	return CompactionRequest{ID: id, File: file, Data: data, Provider: t.Provider, ModelID: t.Model,
		ContextWindow: s.ContextWindow, Config: cfg, Now: nowMs}
}

// CompactionSettingsFor are replay's compaction settings for s.
func CompactionSettingsFor(s CompactionSetting) compaction.Settings {
	return compaction.Settings{ContextWindow: s.ContextWindow, ReserveTokens: s.ReserveTokens,
		KeepRecentTokens: s.KeepRecentTokens, ReserveFloor: s.ReserveFloor}
}

// CompactionAnswer is the comparable part of a compaction answer: ours is built from a
// replay's compaction plan in the same shape.
type CompactionAnswer struct {
	Settings struct {
		ReserveTokens    int `json:"reserveTokens"`
		KeepRecentTokens int `json:"keepRecentTokens"`
	} `json:"settings"`
	Trigger struct {
		Checked   bool    `json:"checked"`
		Compact   bool    `json:"compact"`
		Reason    *string `json:"reason"`
		WillRetry bool    `json:"willRetry"`
		Error     string  `json:"error,omitempty"`
	} `json:"trigger"`
	Estimate struct {
		Tokens         compaction.JSNum `json:"tokens"`
		UsageTokens    compaction.JSNum `json:"usageTokens"`
		TrailingTokens compaction.JSNum `json:"trailingTokens"`
		LastUsageIndex *int             `json:"lastUsageIndex"`
		Error          string           `json:"error,omitempty"`
	} `json:"estimate"`
	Prepared *Prepared `json:"prepared"`
	Error    string    `json:"error,omitempty"`
}

// Prepared is prepareCompaction's answer with the entries named.
type Prepared struct {
	FirstKeptEntryID    string           `json:"firstKeptEntryId"`
	IsSplitTurn         bool             `json:"isSplitTurn"`
	TokensBefore        compaction.JSNum `json:"tokensBefore"`
	BoundaryStart       int              `json:"boundaryStart"`
	FirstKeptEntryIndex int              `json:"firstKeptEntryIndex"`
	TurnStartIndex      int              `json:"turnStartIndex"`
	Summarized          []string         `json:"summarized"`
	TurnPrefix          []string         `json:"turnPrefix"`
	Kept                []string         `json:"kept"`
	PreviousSummary     bool             `json:"previousSummary"`
	Error               string           `json:"error,omitempty"`
}

// OursCompaction renders our plan in the oracle's shape.
func OursCompaction(res *replay.Result) CompactionAnswer {
	var a CompactionAnswer
	if res.Context.Throws != "" {
		a.Error = res.Context.Throws // pi's buildSessionContext throws before anything is decided
		return a
	}
	p := res.Compaction
	a.Settings.ReserveTokens = p.Trigger.ReserveTokens
	a.Settings.KeepRecentTokens = p.KeepRecentTokens
	tr := p.Trigger
	a.Trigger.Checked = tr.Checked
	a.Trigger.Compact = tr.WouldCompact
	if tr.WouldCompact {
		r := "threshold"
		if tr.Overflow != "" {
			r = "overflow"
			a.Trigger.WillRetry = true
		}
		a.Trigger.Reason = &r
	}
	e := tr.Estimate
	a.Estimate.Tokens, a.Estimate.UsageTokens, a.Estimate.TrailingTokens = e.Tokens, e.UsageTokens, e.TrailingTokens
	if e.LastUsageIndex >= 0 {
		n := e.LastUsageIndex
		a.Estimate.LastUsageIndex = &n
	}
	if e.Error != "" {
		a.Estimate.Tokens, a.Estimate.UsageTokens, a.Estimate.TrailingTokens, a.Estimate.LastUsageIndex = 0, 0, 0, nil
		a.Estimate.Error = e.Error
	}
	a.Trigger.Error = tr.Error
	if p.Failed {
		a.Prepared = &Prepared{Error: p.Blocked}
		return a
	}
	if p.Blocked != "" {
		return a
	}
	path := res.Context.Path
	// Ids as the oracle's answer reads here (encoding/json: a lone surrogate is U+FFFD); ours
	// keep it apart (jsonobj.UnquoteJS), which the indexes below still check.
	utf8 := jsonobj.ToUTF8
	ids := func(r compaction.Range) []string {
		out := []string{}
		for i := r.From; i < r.To && i < len(path); i++ {
			switch path[i].Kind {
			case compaction.KindMessage, compaction.KindCustomMessage, compaction.KindBranchSummary:
				out = append(out, utf8(path[i].ID))
			}
		}
		return out
	}
	pr := &Prepared{FirstKeptEntryID: utf8(p.FirstKeptEntryID), IsSplitTurn: p.Cut.IsSplitTurn, TokensBefore: p.TokensBefore,
		BoundaryStart: p.BoundaryStart, FirstKeptEntryIndex: p.Cut.FirstKeptIndex, TurnStartIndex: p.Cut.TurnStartIndex,
		Summarized: ids(p.Summarize), TurnPrefix: ids(p.TurnPrefix), PreviousSummary: p.PrevCompactionIndex >= 0}
	pr.Kept = []string{}
	for _, it := range path[p.Cut.FirstKeptIndex:] {
		pr.Kept = append(pr.Kept, utf8(it.ID))
	}
	a.Prepared = pr
	return a
}

// NormalizeErrors keeps only whether each part threw: OpenClaw's TypeError texts are not ours.
func (a *CompactionAnswer) NormalizeErrors() {
	mark := func(s *string) {
		if *s != "" {
			*s = "throws"
		}
	}
	mark(&a.Error)
	mark(&a.Trigger.Error)
	mark(&a.Estimate.Error)
	if a.Prepared != nil {
		mark(&a.Prepared.Error)
		if a.Prepared.Error != "" {
			*a.Prepared = Prepared{Error: a.Prepared.Error}
		}
	}
}

// inputIDs are the entry ids a transcript holds (the "id" of every line that has one).
func inputIDs(data []byte) map[string]bool {
	ids := map[string]bool{}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if raw, ok, _ := session.GetField(line, "id"); ok {
			if s, ok := jsonobj.Unquote(raw); ok {
				ids[string(s)] = true
			}
		}
	}
	return ids
}

// NormalizeGeneratedIDs renames the entry ids of a that the input does not hold, in order of
// appearance: ids the loader made up (pi migrates a v1/v2 transcript, or one whose header lost
// its version, by giving every entry a new random id; ours are deterministic). Ids of the
// input are compared as they are.
func (a *CompactionAnswer) NormalizeGeneratedIDs(known map[string]bool) {
	if a.Prepared == nil {
		return
	}
	names := map[string]string{}
	name := func(id string) string {
		if id == "" || known[id] {
			return id
		}
		if n, ok := names[id]; ok {
			return n
		}
		names[id] = fmt.Sprintf("generated-%d", len(names)+1)
		return names[id]
	}
	p := a.Prepared
	p.FirstKeptEntryID = name(p.FirstKeptEntryID)
	for _, list := range [][]string{p.Summarized, p.TurnPrefix, p.Kept} {
		for i := range list {
			list[i] = name(list[i])
		}
	}
}

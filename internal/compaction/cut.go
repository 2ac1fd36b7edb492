package compaction

import "github.com/clawdoctor/clawdoctor/internal/hygiene"

// Entry kinds of an Item (session entry types).
const (
	KindMessage       = "message"
	KindCustomMessage = "custom_message"
	KindBranchSummary = "branch_summary"
	KindCompaction    = "compaction"
)

// Item is one entry of the active path, root first, as the compaction code sees it.
type Item struct {
	ID          string          // entry id
	Kind        string          // entry type
	Msg         hygiene.Message // the projected message (message, custom_message, non-empty branch_summary, compaction summary); nil otherwise
	Tokens      int             // estimated tokens of Msg
	Timestamp   float64         // entry time in ms (0 when unknown)
	FirstKeptID string          // compaction entries
	FromHook    bool            // compaction entries written by an extension (OpenClaw's safeguard)
	// MsgRole is the role when Msg was let go to save memory (items only Recheck looks at).
	MsgRole string
}

// Role returns the role of the item's message, "" when it has none.
func (it Item) Role() string {
	if it.Msg == nil {
		return it.MsgRole
	}
	return hygiene.Role(it.Msg)
}

// Cut is findCutPoint's answer.
type Cut struct {
	FirstKeptIndex int  `json:"first_kept_index"`
	TurnStartIndex int  `json:"turn_start_index"` // -1 when not split
	IsSplitTurn    bool `json:"is_split_turn"`
}

// validCut reports pi's cut points: messages with a role other than toolResult, and every
// branch_summary and custom_message entry.
func validCut(it Item) bool {
	switch it.Kind {
	case KindBranchSummary, KindCustomMessage:
		return true
	case KindMessage:
		switch it.Role() {
		case "user", "assistant", "custom", "bashExecution", "branchSummary", "compactionSummary":
			return true
		}
	}
	return false
}

// FindCutPoint is pi's findCutPoint over items[start:end] (§2.5): keep at least keepRecent
// estimated tokens of message entries, cut only where no tool result is separated from its
// call, and report a split turn. It sums the items' lenient token estimates.
func FindCutPoint(items []Item, start, end, keepRecent int) Cut {
	c, _ := findCut(items, start, end, keepRecent, false, "")
	return c
}

// findCut is findCutPoint; with strict it estimates each message as OpenClaw release r does
// (JSTokens: NaN sums never reach the budget, a malformed message throws).
func findCut(items []Item, start, end, keepRecent int, strict bool, r hygiene.Release) (Cut, error) {
	var cuts []int
	for i := start; i < end; i++ {
		if validCut(items[i]) {
			cuts = append(cuts, i)
		}
	}
	if len(cuts) == 0 {
		return Cut{FirstKeptIndex: start, TurnStartIndex: -1}, nil
	}
	cut := cuts[0]
	sum := JSNum(0)
	for i := end - 1; i >= start; i-- {
		if items[i].Kind != KindMessage {
			continue
		}
		if strict {
			if items[i].Msg == nil {
				return Cut{}, errThrows // estimateTokens of a message that is not an object
			}
			t, err := JSTokens(items[i].Msg, r)
			if err != nil {
				return Cut{}, err
			}
			sum += t
		} else {
			sum += JSNum(items[i].Tokens)
		}
		if float64(sum) >= float64(keepRecent) {
			if strict && compareRelease(r, hygiene.Release20260611) >= 0 {
				cut = cuts[len(cuts)-1] // 2026.6.11: with no cut point at or after i, the last one
			}
			for _, c := range cuts {
				if c >= i {
					cut = c
					break
				}
			}
			break
		}
	}
	for cut > start {
		k := items[cut-1].Kind
		if k == KindCompaction || k == KindMessage {
			break
		}
		cut--
	}
	c := Cut{FirstKeptIndex: cut, TurnStartIndex: -1}
	if items[cut].Kind == KindMessage && items[cut].Role() == "user" {
		return c, nil
	}
	for i := cut; i >= start; i-- {
		it := items[i]
		if it.Kind == KindBranchSummary || it.Kind == KindCustomMessage ||
			(it.Kind == KindMessage && (it.Role() == "user" || it.Role() == "bashExecution")) {
			c.TurnStartIndex, c.IsSplitTurn = i, true
			break
		}
	}
	return c, nil
}

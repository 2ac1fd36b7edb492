package compaction

import (
	"fmt"
	"math"

	"github.com/clawdoctor/clawdoctor/internal/hygiene"
)

// OpenClaw multi-stage summarization constants (§2.8).
const (
	BaseChunkRatio              = 0.4
	MinChunkRatio               = 0.15
	SafetyMargin                = 1.2
	DefaultParts                = 2
	MinMessagesForSplit         = 4
	SummarizationOverheadTokens = 4096
)

// Chunk is one summarization call: items [From, To) of the messages to summarize.
type Chunk struct {
	From     int    `json:"from"`
	To       int    `json:"to"`
	FirstID  string `json:"first_entry"`
	LastID   string `json:"last_entry"`
	Messages int    `json:"messages"`
	Tokens   int    `json:"tokens"`
}

// Stage is one part of summarizeInStages, summarized chunk by chunk.
type Stage struct {
	Part   int     `json:"part"`
	Tokens int     `json:"tokens"`
	Chunks []Chunk `json:"chunks"`
}

// Stages is the safeguard chunk plan for the messages to summarize.
type Stages struct {
	Messages       int      `json:"messages"`
	TotalTokens    int      `json:"total_tokens"`
	ChunkRatio     float64  `json:"chunk_ratio"`
	MaxChunkTokens int      `json:"max_chunk_tokens"`
	ChunkBudget    int      `json:"chunk_budget"` // floor(maxChunkTokens / 1.2)
	MultiStage     bool     `json:"multi_stage"`
	Parts          []Stage  `json:"parts"`
	Oversized      []string `json:"oversized,omitempty"` // notes of the oversized fallback
}

// AdaptiveChunkRatio is computeAdaptiveChunkRatio.
func AdaptiveChunkRatio(totalTokens, messages, window int) float64 {
	if messages == 0 || window <= 0 {
		return BaseChunkRatio
	}
	avg := float64(totalTokens) / float64(messages) * SafetyMargin / float64(window)
	if avg > 0.1 {
		return math.Max(MinChunkRatio, BaseChunkRatio-math.Min(2*avg, 0.25))
	}
	return BaseChunkRatio
}

// units groups items so an assistant with tool calls and the results after it stay together.
func units(items []Item) [][2]int {
	var out [][2]int
	for i := 0; i < len(items); {
		j := i + 1
		if len(hygiene.ToolCalls(items[i].Msg)) > 0 {
			for j < len(items) && items[j].Role() == "toolResult" {
				j++
			}
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

func tokens(items []Item, from, to int) int {
	n := 0
	for _, it := range items[from:to] {
		n += it.Tokens
	}
	return n
}

// PlanStages is the plan of summarizeInStages with the safeguard's chunk budget.
func PlanStages(items []Item, window int) Stages {
	st := Stages{Messages: len(items), Parts: []Stage{}}
	st.TotalTokens = tokens(items, 0, len(items))
	st.ChunkRatio = AdaptiveChunkRatio(st.TotalTokens, len(items), window)
	st.MaxChunkTokens = max(1, int(math.Floor(float64(window)*st.ChunkRatio))-SummarizationOverheadTokens)
	st.ChunkBudget = max(1, int(math.Floor(float64(st.MaxChunkTokens)/SafetyMargin)))
	for _, it := range items {
		if float64(it.Tokens)*SafetyMargin > float64(window)*0.5 {
			st.Oversized = append(st.Oversized, fmt.Sprintf("%s: [Large %s (~%dK tokens) omitted from summary]", it.ID, it.Role(), it.Tokens/1000))
		}
	}
	if len(items) == 0 {
		return st
	}
	us := units(items)
	var parts [][2]int
	if len(items) < MinMessagesForSplit || st.TotalTokens <= st.MaxChunkTokens {
		parts = [][2]int{{0, len(items)}}
	} else {
		st.MultiStage = true
		parts = split(items, us, DefaultParts, float64(st.TotalTokens)/DefaultParts)
	}
	for pi, p := range parts {
		stage := Stage{Part: pi + 1, Tokens: tokens(items, p[0], p[1])}
		var cur *Chunk
		for _, u := range us {
			if u[0] < p[0] || u[0] >= p[1] {
				continue
			}
			t := tokens(items, u[0], u[1])
			if cur != nil && cur.Tokens+t > st.ChunkBudget {
				stage.Chunks = append(stage.Chunks, *cur)
				cur = nil
			}
			if cur == nil {
				cur = &Chunk{From: u[0], FirstID: items[u[0]].ID}
			}
			cur.To, cur.LastID = u[1], items[u[1]-1].ID
			cur.Messages += u[1] - u[0]
			cur.Tokens += t
		}
		if cur != nil {
			stage.Chunks = append(stage.Chunks, *cur)
		}
		st.Parts = append(st.Parts, stage)
	}
	return st
}

// split is splitMessagesByTokenShare: up to n parts of about share tokens each, cutting only
// between units.
func split(items []Item, us [][2]int, n int, share float64) [][2]int {
	var parts [][2]int
	from, acc := 0, 0
	for _, u := range us {
		t := tokens(items, u[0], u[1])
		if len(parts) < n-1 && u[0] > from && float64(acc+t) > share {
			parts = append(parts, [2]int{from, u[0]})
			from, acc = u[0], 0
		}
		acc += t
	}
	return append(parts, [2]int{from, len(items)})
}

package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/hygiene"
	"github.com/clawdoctor/clawdoctor/internal/replay"
)

// ReplayDetailLimit caps the details printed per step in text output (JSON has them all).
const ReplayDetailLimit = 12

// Replay renders a replay result as text (steps table, compact transcript, tokens and the
// compaction decision) or JSON.
func Replay(w io.Writer, res *replay.Result, f Format) error {
	if f != JSON {
		res = escaped(res)
	}
	if f == JSON {
		return WriteJSON(w, res)
	}
	api := res.API
	if res.APIGuessed {
		api += " (guessed from the provider; set --api)"
	}
	fmt.Fprintf(w, "replay of %s for %s/%s, api %s\n", res.File, res.Provider, res.Model, api)
	if res.OpenClaw != nil {
		fmt.Fprintf(w, "pipeline of OpenClaw %s\n", res.OpenClaw.Describe())
	}
	p := res.Policy
	owner := "core fallback (no bundled provider plugin)"
	if p.Owner != "" {
		owner = p.Owner + " plugin"
	}
	ids := "kept"
	if p.SanitizeToolCallIDs {
		ids = p.ToolCallIDMode
	}
	fmt.Fprintf(w, "policy (OpenClaw %s, %s): sanitize %s, ids %s, pairing %s, google ordering %s, gemini turns %s, anthropic turns %s\n",
		p.Release, owner, p.SanitizeMode, ids, rpOnOff(p.RepairToolUseResultPairing), rpOnOff(p.ApplyGoogleTurnOrdering),
		rpOnOff(p.ValidateGeminiTurns), rpOnOff(p.ValidateAnthropicTurns))
	c := res.Context
	fmt.Fprintf(w, "context: leaf %s, %d of %d entries on the path, %d message(s) before hygiene, thinking %s\n",
		rpOrDash(c.Leaf), c.PathEntries, c.FileEntries, c.Messages, c.ThinkingLevel)
	if ms := c.ModelSnapshot; ms.WouldAppend {
		fmt.Fprintf(w, "model snapshot: OpenClaw would append one (%s); replay writes nothing\n", ms.Reason)
	} else {
		fmt.Fprintf(w, "model snapshot: unchanged (%s/%s, %s)\n", ms.Provider, ms.ModelID, ms.ModelAPI)
	}
	fmt.Fprintln(w)

	t := NewTable(w)
	t.Header("step", "changed", "what")
	for _, s := range res.Steps {
		first := ""
		if len(s.Details) > 0 {
			first = s.Details[0]
		}
		if err := t.Append(s.Name, s.Changed, first); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, s := range res.Steps {
		if len(s.Details) <= 1 {
			continue
		}
		fmt.Fprintf(w, "%s:\n", s.Name)
		for i, d := range s.Details {
			if i == ReplayDetailLimit {
				fmt.Fprintf(w, "  … %d more (see --json)\n", len(s.Details)-i)
				break
			}
			fmt.Fprintf(w, "  %s\n", d)
		}
	}

	fmt.Fprintf(w, "\nmessages as sent (%d):\n", len(res.Messages))
	mt := NewTable(w)
	mt.Header("#", "from", "role", "content")
	for i, m := range res.Messages {
		ref := ""
		if i < len(res.Refs) {
			ref = res.Refs[i]
		}
		if err := mt.Append(i, ref, hygiene.Role(m), MessageShape(m)); err != nil {
			return err
		}
	}
	if err := mt.Render(); err != nil {
		return err
	}

	tk := res.Tokens
	fmt.Fprintf(w, "\ntokens: %d estimated as sent, %d estimated before hygiene, %d context tokens (%s, %s estimator)\n",
		tk.EstimatedSent, tk.EstimatedContext, tk.ContextTokens.Int(), tk.Source, tk.Estimator)
	cp := res.Compaction
	tr := cp.Trigger
	verdict := "would not compact"
	if tr.WouldCompact {
		verdict = "WOULD COMPACT"
	}
	fmt.Fprintf(w, "compaction: %s: %s\n", verdict, tr.Reason)
	if cp.Blocked != "" {
		fmt.Fprintf(w, "  no compaction can be prepared: %s\n", cp.Blocked)
	} else {
		split := ""
		if cp.Cut.IsSplitTurn {
			split = fmt.Sprintf(" (split turn: prefix of %d entries summarized separately)", cp.TurnPrefix.Len())
		}
		fmt.Fprintf(w, "  %s boundary from entry %d; cut keeps from %s%s\n", cp.Boundary, cp.BoundaryStart, cp.FirstKeptEntryID, split)
		fmt.Fprintf(w, "  summarize %d entries (~%d tokens) in %d stage(s); keep %d entries (~%d tokens); chunk budget %d tokens\n",
			cp.Summarize.Len(), cp.SummarizeTokens, len(cp.Stages.Parts), cp.Kept.Len(), cp.KeptTokens, cp.Stages.ChunkBudget)
		if n := len(cp.Lost); n > 0 {
			fmt.Fprintf(w, "  %d entr(ies) kept by the previous compaction are neither kept nor summarized (pi-0.58 boundary)\n", n)
		}
	}
	if len(res.Rechecked) > 0 {
		fmt.Fprintf(w, "stored compactions, cut recomputed with keepRecentTokens %d:\n", cp.KeepRecentTokens)
		rt := NewTable(w)
		rt.Header("compaction", "stored first kept", "pi-0.58", "late", "matches")
		for _, ck := range res.Rechecked {
			m := strings.Join(ck.Matches, ", ")
			if m == "" {
				m = "none"
				if ck.FromHook {
					m = "none (fromHook: written by an extension)"
				}
			}
			if err := rt.Append(ck.ID, ck.StoredFirstKept, rpOrDash(ck.Pi058), rpOrDash(ck.Late), m); err != nil {
				return err
			}
		}
		if err := rt.Render(); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "memory flush: threshold %d tokens, would run: %s\n", cp.MemoryFlush.Threshold, rpYesNo(cp.MemoryFlush.WouldRun))
	if sr := res.Summary; sr != nil {
		fmt.Fprintf(w, "summary command %s (%d chars in):\n", strings.Join(sr.Command, " "), sr.InputChars)
		if sr.Error != "" {
			fmt.Fprintf(w, "  error: %s\n", sr.Error)
		}
		for _, l := range strings.Split(strings.TrimRight(sr.Output, "\n"), "\n") {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	for _, warn := range c.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	return nil
}

// MessageShape summarizes a message's content for the compact transcript view: block types,
// tool-call ids and names, text lengths.
func MessageShape(m hygiene.Message) string {
	var parts []string
	if id := hygiene.ResultID(m); hygiene.Role(m) == "toolResult" {
		name, _ := hygiene.Str(m, "toolName")
		parts = append(parts, fmt.Sprintf("result %s %s", id, name))
	}
	switch c := m["content"].(type) {
	case string:
		parts = append(parts, fmt.Sprintf("%q", rpPreview(c)))
	case []any:
		for _, v := range c {
			b, ok := hygiene.Block(v)
			if !ok {
				parts = append(parts, "?")
				continue
			}
			typ, _ := hygiene.Str(b, "type")
			switch typ {
			case "text":
				s, _ := hygiene.Str(b, "text")
				parts = append(parts, fmt.Sprintf("%q", rpPreview(s)))
			case "thinking":
				s, _ := hygiene.Str(b, "thinking")
				parts = append(parts, fmt.Sprintf("thinking(%d)", len(s)))
			case "toolCall", "toolUse", "functionCall":
				id, _ := hygiene.Str(b, "id")
				name, _ := hygiene.Str(b, "name")
				parts = append(parts, fmt.Sprintf("call %s %s", id, name))
			default:
				parts = append(parts, typ)
			}
		}
	}
	if r := hygiene.StopReason(m); r != "" && r != "stop" {
		parts = append(parts, "["+r+"]")
	}
	return strings.Join(parts, " · ")
}

func rpPreview(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 48 {
		return string(r[:47]) + "…"
	}
	return s
}

func rpOnOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func rpYesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func rpOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

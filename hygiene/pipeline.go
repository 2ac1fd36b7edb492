package hygiene

// Options are the inputs of Sanitize besides the policy.
type Options struct {
	NowMs        int64        // the clock for synthetic timestamps
	Pairing      Pairing      // classic (default) or frames
	AllowedTools []string     // optional tool-name allow-list for the input check
	Images       ImageOptions // image limits
	Usage        UsageOptions // where the latest compaction summary is
	// ClassicUserMerge keeps the classic Anthropic merge bug (string content lost).
	ClassicUserMerge bool
}

// Sanitize runs the classic sanitizeSessionHistory order (§6) followed by the turn validation
// of run/attempt.ts, as the policy p says, and returns the messages as they would be sent and
// one Step per stage that ran.
func Sanitize(msgs []Message, p Policy, o Options) ([]Message, []Step) {
	var steps []Step
	run := func(f func([]Message) ([]Message, Step)) {
		var st Step
		msgs, st = f(msgs)
		if st.Details == nil {
			st.Details = []string{}
		}
		steps = append(steps, st)
	}
	run(AnnotateInterSession)
	if p.SanitizeToolCallIDs {
		run(func(m []Message) ([]Message, Step) { return SanitizeToolCallIDs(m, p.ToolCallIDMode, o.NowMs) })
	}
	run(func(m []Message) ([]Message, Step) { return SanitizeImages(m, p, o.Images) })
	if p.NormalizeAntigravityThinking {
		run(NormalizeAntigravityThinking)
	}
	if p.DropThinkingBlocks {
		run(DropThinkingBlocks)
	}
	run(func(m []Message) ([]Message, Step) { return SanitizeToolCallInputs(m, o.AllowedTools) })
	if p.RepairToolUseResultPairing {
		text := MissingToolResultText
		if ResponsesFamily(p.API) {
			text = AbortedToolResultText
		}
		run(func(m []Message) ([]Message, Step) { return RepairPairing(m, o.Pairing, text, o.NowMs) })
	}
	run(StripToolResultDetails)
	run(func(m []Message) ([]Message, Step) { return NormalizeUsage(m, o.Usage) })
	if p.OpenAIResponses {
		run(DowngradeOpenAIReasoning)
	}
	if p.ApplyGoogleTurnOrdering {
		run(func(m []Message) ([]Message, Step) { return GoogleTurnOrdering(m, o.NowMs) })
	}
	if p.ValidateGeminiTurns {
		run(ValidateGeminiTurns)
	}
	if p.ValidateAnthropicTurns {
		run(func(m []Message) ([]Message, Step) {
			return ValidateAnthropicTurns(m, AnthropicTurnOptions{ClassicStringMerge: o.ClassicUserMerge})
		})
	}
	return msgs, steps
}

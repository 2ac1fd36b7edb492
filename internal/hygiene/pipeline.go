package hygiene

import (
	"fmt"
	"reflect"
	"strings"
)

// Options are the inputs of Sanitize besides the policy.
type Options struct {
	Release      Release
	NowMs        int64        // the clock for synthetic timestamps
	AllowedTools []string     // optional tool-name allow-list (replayAllowedToolNames)
	Images       ImageOptions // image limits
	// Snapshot is the last model-snapshot custom entry of the session (nil for none): a model
	// change since it drops replayable OpenAI reasoning.
	Snapshot *Snapshot
}

// Snapshot is the data of a "model-snapshot" custom entry.
type Snapshot struct {
	Provider string `json:"provider"`
	ModelAPI string `json:"modelApi"`
	ModelID  string `json:"modelId"`
}

// modelChanged is `priorSnapshot && !isSameModelSnapshot(priorSnapshot, target)`.
func modelChanged(s *Snapshot, p Policy, provider string) bool {
	return s != nil && (s.Provider != provider || s.ModelAPI != p.API || s.ModelID != p.Model)
}

// responsesAPI is the isOpenAIResponsesApi test of sanitizeSessionHistory for release r.
func responsesAPI(api string, r Release) bool {
	switch {
	case r.atLeast(Release20260611):
		return ResponsesFamily(api)
	case r.atLeast(Release20260424):
		return api == "openai-responses" || api == "openai-codex-responses" || api == "azure-openai-responses"
	}
	return api == "openai-responses" || api == "openai-codex-responses"
}

// Sanitize runs OpenClaw's replay hygiene as the embedded runner does before it calls the
// model: sanitizeSessionHistory then validateReplayTurns (src/agents/embedded-agent-runner/
// replay-history.ts) of release o.Release, in that release's order. provider is the target
// provider as given (the snapshot compares it unnormalized). It returns the messages as they
// would be sent and one Step per stage that ran; the error is the OpenAI Responses replay
// invariant OpenClaw throws on (the run fails: nothing is sent).
func Sanitize(msgs []Message, p Policy, provider string, o Options) ([]Message, []Step, error) {
	r := o.Release.orDefault()
	var steps []Step
	run := func(f func([]Message) ([]Message, Step)) {
		before := msgs
		var st Step
		msgs, st = f(msgs)
		countChanges(&st, before, msgs)
		steps = append(steps, st)
	}
	responses := responsesAPI(p.API, r)
	pairing := func(drop bool, aborted bool) func([]Message) ([]Message, Step) {
		po := PairingOptions{DropErrored: drop}
		if aborted {
			po.MissingText = AbortedToolResultText
		}
		return func(m []Message) ([]Message, Step) { return RepairPairing(m, po, r, o.NowMs) }
	}
	if !r.atLeast(Release20260424) {
		// 2026.3.13: images (with ids), thinking drop, input check, pairing, details, usage,
		// then the OpenAI Responses downgrades and the Google ordering.
		run(func(m []Message) ([]Message, Step) { return AnnotateInterSession(m, r) })
		run(func(m []Message) ([]Message, Step) {
			return SanitizeImages(m, p, p.SanitizeToolCallIDs, o.Images, r, o.NowMs)
		})
		if p.DropThinkingBlocks {
			run(func(m []Message) ([]Message, Step) { return DropThinkingBlocks(m, r) })
		}
		run(func(m []Message) ([]Message, Step) { return SanitizeToolCallInputs(m, o.AllowedTools, false, r) })
		if p.RepairToolUseResultPairing {
			run(pairing(false, false))
		}
		run(StripToolResultDetails)
		run(func(m []Message) ([]Message, Step) { return StripStaleUsage(m, r) })
		run(func(m []Message) ([]Message, Step) { return EnsureUsageSnapshots(m, r) })
		if responses {
			run(func(m []Message) ([]Message, Step) { return DowngradeOpenAIReasoning(m, false, r) })
			run(DowngradeFunctionCallPairs)
		}
		if p.ApplyGoogleTurnOrdering {
			run(func(m []Message) ([]Message, Step) { return GoogleTurnOrdering(m, o.NowMs) })
		}
		validate(&msgs, p, r, run)
		return msgs, steps, nil
	}
	providerThinking := p.allowProviderOwnedThinkingReplay()
	changed := modelChanged(o.Snapshot, p, provider)

	run(func(m []Message) ([]Message, Step) { return AnnotateInterSession(m, r) })
	run(func(m []Message) ([]Message, Step) { return NormalizeReplayContent(m, r) })
	run(func(m []Message) ([]Message, Step) {
		return SanitizeImages(m, p, p.SanitizeToolCallIDs && !providerThinking && !responses, o.Images, r, o.NowMs)
	})
	if r.atLeast(Release20260611) {
		preserveLatest := preserveLatestAssistantThinking(msgs)
		if signedThinkingProviders[p.Provider] || p.PreserveSignatures {
			run(StripStaleThinkingSignatures)
			run(func(m []Message) ([]Message, Step) { return StripInvalidThinkingSignatures(m, preserveLatest) })
		}
		if p.DropReasoningFromHistory {
			run(DropReasoningFromHistory)
		}
	}
	if p.DropThinkingBlocks {
		run(func(m []Message) ([]Message, Step) { return DropThinkingBlocks(m, r) })
	}
	run(func(m []Message) ([]Message, Step) {
		return SanitizeToolCallInputs(m, o.AllowedTools, providerThinking, r)
	})
	if responses {
		if p.RepairToolUseResultPairing {
			run(pairing(true, true))
		}
		run(func(m []Message) ([]Message, Step) { return DowngradeOpenAIReasoning(m, changed, r) })
		if r.atLeast(Release20260611) {
			run(NormalizeResponsesToolCallIDs)
		}
		run(DowngradeFunctionCallPairs)
	}
	if p.SanitizeToolCallIDs && p.ToolCallIDMode != "" {
		run(func(m []Message) ([]Message, Step) {
			return sanitizeIDs(m, p, o.AllowedTools, providerThinking, r, o.NowMs)
		})
	}
	if !responses && p.RepairToolUseResultPairing {
		run(pairing(true, false))
	}
	run(StripToolResultDetails)
	run(func(m []Message) ([]Message, Step) { return StripStaleUsage(m, r) })
	run(func(m []Message) ([]Message, Step) { return EnsureUsageSnapshots(m, r) })
	if p.GoogleReplayHook {
		run(func(m []Message) ([]Message, Step) {
			out, st := GoogleTurnOrdering(m, o.NowMs)
			st.Name = "google-replay-hook"
			return out, st
		})
	}
	if responses && r.atLeast(Release20260611) {
		if p.RepairToolUseResultPairing {
			run(pairing(true, true))
		}
		if err := checkResponsesInvariant(msgs); err != nil {
			return msgs, steps, err
		}
	}
	if p.ApplyGoogleTurnOrdering {
		run(func(m []Message) ([]Message, Step) { return GoogleTurnOrdering(m, o.NowMs) })
		if responses && r.atLeast(Release20260611) {
			if err := checkResponsesInvariant(msgs); err != nil {
				return msgs, steps, err
			}
		}
	}
	validate(&msgs, p, r, run)
	return msgs, steps, nil
}

// validate is validateReplayTurns without a provider hook (none of the bundled plugins of the
// supported releases defines one for the providers replay knows).
func validate(msgs *[]Message, p Policy, r Release, run func(func([]Message) ([]Message, Step))) {
	if p.ValidateGeminiTurns {
		run(ValidateGeminiTurns)
	}
	if p.ValidateAnthropicTurns {
		run(func(m []Message) ([]Message, Step) { return ValidateAnthropicTurns(m, r) })
	}
}

// countChanges sets st.Changed to the number of messages the step changed, dropped, added or
// moved (by identity: OpenClaw's sanitizers hand back the very objects they did not touch,
// and so do ours), and gives generic details when the step wrote none.
func countChanges(st *Step, before, after []Message) {
	if st.Details == nil {
		st.Details = []string{}
	}
	ptr := func(m Message) uintptr { return reflect.ValueOf(m).Pointer() }
	in := make(map[uintptr]bool, len(before))
	for _, m := range before {
		in[ptr(m)] = true
	}
	kept := make(map[uintptr]bool, len(after))
	n := 0
	var generic []string
	var keptOrder []uintptr
	for _, m := range after {
		p := ptr(m)
		kept[p] = true
		if !in[p] {
			n++
			generic = append(generic, fmt.Sprintf("%s: changed or added", Ref(m)))
		} else {
			keptOrder = append(keptOrder, p)
		}
	}
	refs := make(map[string]bool, len(after)) // a merged message names its parts "a+b" ("a+…+z")
	for _, m := range after {
		for _, part := range strings.Split(Ref(m), "+") {
			refs[part] = true
		}
	}
	k := 0
	for _, m := range before {
		p := ptr(m)
		if !kept[p] {
			if !refs[Ref(m)] {
				n++
				generic = append(generic, fmt.Sprintf("%s: dropped", Ref(m)))
			}
			continue
		}
		if k < len(keptOrder) && keptOrder[k] != p {
			n++ // kept but moved
			generic = append(generic, fmt.Sprintf("%s: moved", Ref(m)))
		}
		k++
	}
	st.Changed = n
	if len(st.Details) == 0 && n > 0 {
		st.Details = generic
	}
}

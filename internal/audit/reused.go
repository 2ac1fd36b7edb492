package audit

import (
	"maps"
	"slices"
	"strings"
)

// reusedCallIDLoss is, per OpenClaw release, the provider/api pairs whose model replay loses the
// real result of a tool call that reuses an earlier call's id: the pairing step drops that result
// as a duplicate of the first, so the later call goes unpaired (and gets a synthetic result, or
// none). It is the real program's answer, not the spec's: internal/conformance/oracle/reused_call_id.mjs
// asked each installed release (sanitizeToolUseResultPairing alone, and after
// sanitizeToolCallIdsForCloudCodeAssist for the providers resolveTranscriptPolicy rewrites ids
// for), recorded in testdata/oracle/reused_call_id.jsonl; TestReusedCallIDFacts keeps this table
// equal to that recording. "*" means every provider. Releases not listed pair by occurrence.
var reusedCallIDLoss = map[string][]string{
	"2026.3.13": {"*"},
	"2026.4.24": {"kimi-coding/anthropic-messages", "moonshot/openai-completions", "ollama/ollama", "openai/openai-responses", "openrouter/openai-completions"},
	"2026.6.11": {"ollama/ollama", "openai/openai-responses", "openrouter/openai-completions"},
	"2026.7.35": {"ollama/ollama", "openai/openai-responses", "openrouter/openai-completions"},
}

// reusedCallIDByOccurrence lists the checked releases whose pairing itself pairs a reused id by
// occurrence, for every provider.
var reusedCallIDByOccurrence = []string{"2026.8.1", "2026.9.6"}

// Evidence and message of tool.reused-call-id, built from the tables above.
var (
	reusedCallIDLoses  = maps.Clone(reusedCallIDLoss)
	reusedCallIDPairs  = reusedCallIDByOccurrence
	reusedCallIDEffect = func() string {
		var parts []string
		for _, r := range slices.Sorted(maps.Keys(reusedCallIDLoss)) {
			ps := reusedCallIDLoss[r]
			if len(ps) == 1 && ps[0] == "*" {
				parts = append(parts, r+" for every provider")
				continue
			}
			var short []string
			for _, p := range ps {
				short = append(short, p[:strings.IndexByte(p, '/')]+" ("+p[strings.IndexByte(p, '/')+1:]+")")
			}
			parts = append(parts, r+" for the providers whose ids it keeps: "+strings.Join(short, ", "))
		}
		return "OpenClaw's pairing then drops the later call's real result as a duplicate and the call goes unpaired in " +
			strings.Join(parts, "; ") + "; " + strings.Join(reusedCallIDByOccurrence, " and ") + " pair by occurrence"
	}()
)

package hygiene

// The prompt OpenClaw sends on a model fallback retry (resolveFallbackRetryPrompt, checked
// against each release by internal/conformance/replaycheck's fallback-retry golden).
const (
	// FallbackRetryText replaced the user's prompt on every fallback retry up to 2026.3.x:
	// the prompt itself was lost.
	FallbackRetryText = "Continue where you left off. The previous model attempt failed or timed out."
	// FallbackRetryMarker starts the retry prompt from 2026.4.x, which keeps the prompt after it.
	FallbackRetryMarker = "[Retry after the previous model attempt failed or timed out]"
)

// RetryPrompt is what resolveFallbackRetryPrompt reads.
type RetryPrompt struct {
	Body           string // the user's prompt
	FallbackRetry  bool   // this run is a retry on a fallback model
	HasHistory     bool   // the session already has history
	ContextPrelude string // 2026.6.11: the Claude CLI fallback context prelude ("" for none)
}

// FallbackRetryPrompt is release r's resolveFallbackRetryPrompt.
func FallbackRetryPrompt(p RetryPrompt, r Release) string {
	r = r.orDefault()
	if !p.FallbackRetry {
		return p.Body
	}
	if !r.atLeast(Release20260424) {
		return FallbackRetryText
	}
	prelude := ""
	if r.atLeast(Release20260611) {
		prelude = jsTrim(p.ContextPrelude)
	}
	if !p.HasHistory && prelude == "" {
		return p.Body
	}
	marked := FallbackRetryMarker + "\n\n" + p.Body
	if prelude != "" {
		return prelude + "\n\n" + marked
	}
	return marked
}

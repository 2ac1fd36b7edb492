package hygiene

import (
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"strings"
)

// ThoughtSignatures configures thought-signature stripping of sanitizeSessionMessagesImages.
type ThoughtSignatures struct {
	AllowBase64Only  bool `json:"allow_base64_only"`
	IncludeCamelCase bool `json:"include_camel_case"`
}

// Policy is OpenClaw's resolved transcript policy (resolveTranscriptPolicy, src/agents/
// transcript-policy.ts): the provider plugin's buildReplayPolicy merged over the defaults, or
// the core fallback for providers no bundled plugin owns. The json names follow OpenClaw's.
type Policy struct {
	Release                           Release            `json:"release"`
	Provider                          string             `json:"provider"` // normalized
	API                               string             `json:"api"`
	Model                             string             `json:"model"`
	Owner                             string             `json:"owner"` // plugin whose buildReplayPolicy applied, "" for the core fallback
	SanitizeMode                      string             `json:"sanitizeMode"`
	SanitizeToolCallIDs               bool               `json:"sanitizeToolCallIds"`
	ToolCallIDMode                    string             `json:"toolCallIdMode,omitempty"`
	DuplicateToolCallIDStyle          string             `json:"duplicateToolCallIdStyle,omitempty"`
	PreserveNativeAnthropicToolUseIDs bool               `json:"preserveNativeAnthropicToolUseIds"`
	RepairToolUseResultPairing        bool               `json:"repairToolUseResultPairing"`
	PreserveSignatures                bool               `json:"preserveSignatures"`
	SanitizeThoughtSignatures         *ThoughtSignatures `json:"sanitizeThoughtSignatures,omitempty"`
	DropThinkingBlocks                bool               `json:"dropThinkingBlocks"`
	DropReasoningFromHistory          bool               `json:"dropReasoningFromHistory"`
	ApplyGoogleTurnOrdering           bool               `json:"applyGoogleTurnOrdering"`
	ValidateGeminiTurns               bool               `json:"validateGeminiTurns"`
	ValidateAnthropicTurns            bool               `json:"validateAnthropicTurns"`
	AllowSyntheticToolResults         bool               `json:"allowSyntheticToolResults"`
	// GoogleReplayHook: the owning plugin's sanitizeReplayHistory prepends the Google
	// bootstrap turn (the google-gemini replay family).
	GoogleReplayHook bool `json:"googleReplayHook"`
}

// Model is what the replay knows about the target model besides provider, api and id: the
// fields OpenClaw's policy reads from the resolved model object.
type Model struct {
	Provider string
	API      string
	ID       string
	// Reasoning is model.reasoning: a reasoning model keeps reasoning content on replay
	// through strict OpenAI-compatible transports.
	Reasoning bool
	// NoReasoningEffort is model.compat.supportsReasoningEffort === false.
	NoReasoningEffort bool
}

var providerAliases = map[string]string{
	"modelstudio": "qwen", "qwencloud": "qwen",
	"z.ai": "zai", "z-ai": "zai",
	"opencode-zen":     "opencode",
	"opencode-go-auth": "opencode-go",
	"kimi-code":        "kimi", "kimi-coding": "kimi",
	"moonshotai": "moonshot", "moonshot-ai": "moonshot",
	"bedrock": "amazon-bedrock", "aws-bedrock": "amazon-bedrock",
	"bytedance": "volcengine", "doubao": "volcengine",
}

// NormalizeProvider lowercases, trims and applies OpenClaw's provider aliases
// (normalizeProviderId).
func NormalizeProvider(p string) string {
	p = strings.ToLower(jsTrim(p))
	if a, ok := providerAliases[p]; ok {
		return a
	}
	return p
}

// pluginOwner0424 are the 2026.4.24 owners that differ: moonshot and amazon-bedrock were
// still bundled there, with replay hooks.
var pluginOwner0424 = map[string]string{"moonshot": "moonshot", "amazon-bedrock": "amazon-bedrock"}

// openAICompatiblePolicy is buildOpenAICompatibleReplayPolicy of 2026.4.24.
func openAICompatiblePolicy(api string, sanitizeIDs bool) policyPatch {
	if api != "openai-completions" && api != "openai-responses" && api != "openai-codex-responses" && api != "azure-openai-responses" {
		return policyPatch{}
	}
	var h policyPatch
	if sanitizeIDs {
		h.sanitizeToolCallIDs, h.toolCallIDMode = ptr(true), "strict"
	}
	completions := api == "openai-completions"
	h.googleOrdering, h.gemini, h.anthropic = ptr(completions), ptr(completions), ptr(completions)
	return h
}

// pluginOwner is the bundled plugin whose replay hooks own a normalized provider id. Only the
// plugins that define buildReplayPolicy are listed: a plugin without one gets the core
// fallback, exactly like a provider no plugin owns (amazon-bedrock and moonshot ship as
// separate packages in 2026.6.11 and are not bundled).
var pluginOwner = map[string]string{
	"anthropic":         "anthropic",
	"openai":            "openai",
	"google":            "google",
	"google-gemini-cli": "google",
	"google-vertex":     "google",
	"mistral":           "mistral",
	"openrouter":        "openrouter",
}

// Resolve is resolveTranscriptPolicy of release r for the target model.
func Resolve(m Model, r Release) Policy {
	r = r.orDefault()
	if !r.atLeast(Release20260424) {
		return resolve0313(m)
	}
	p := defaultPolicy()
	p.Release, p.Provider, p.API, p.Model = r, NormalizeProvider(m.Provider), m.API, m.ID
	owner := pluginOwner[p.Provider]
	if !r.atLeast(Release20260611) {
		if o, ok := pluginOwner0424[p.Provider]; ok {
			owner = o
		}
	}
	p.Owner = owner
	var hook policyPatch
	switch owner {
	case "moonshot": // 2026.4.24: openai-compatible family without id sanitizing
		hook = openAICompatiblePolicy(m.API, false)
	case "amazon-bedrock": // 2026.4.24: anthropic-by-model family
		id := strings.ToLower(m.ID)
		hook = strictAnthropicPolicy(true, false, strings.Contains(id, "claude") && !preservesThinkingBlocks(m.ID))
	case "anthropic":
		hook = nativeAnthropicPolicy(m.ID)
	case "openai":
		hook = openAIPolicy(m.API)
	case "google":
		hook = googleGeminiPolicy()
		p.GoogleReplayHook = true
	case "mistral":
		hook = policyPatch{sanitizeToolCallIDs: ptr(true), toolCallIDMode: "strict9"}
	case "openrouter":
		hook = passthroughGeminiPolicy(m.ID)
		if openRouterMistral(m.ID) {
			hook.sanitizeToolCallIDs, hook.toolCallIDMode = ptr(true), "strict9"
		}
	default:
		hook = unownedFallback(m, r)
	}
	hook.apply(&p)
	return p
}

// capabilities0313 is 2026.3.13's PROVIDER_CAPABILITIES table (the fields its transcript
// policy reads), before provider plugins owned replay policy.
type capabilities0313 struct {
	family                 string
	preserveAnthropicSigs  bool
	compatTurnValidation   bool
	geminiSigs             bool
	strict9                bool
	strict9Hints           []string
	geminiSigHints         []string
	dropThinkingModelHints []string
}

var mistralModelHints = []string{"mistral", "mixtral", "codestral", "pixtral", "devstral", "ministral", "mistralai"}

func caps0313(provider string) capabilities0313 {
	c := capabilities0313{family: "default", preserveAnthropicSigs: true, compatTurnValidation: true}
	switch provider {
	case "anthropic", "amazon-bedrock":
		c.family, c.dropThinkingModelHints = "anthropic", []string{"claude"}
	case "kimi-coding":
		c.preserveAnthropicSigs = false
	case "mistral":
		c.strict9, c.strict9Hints = true, mistralModelHints
	case "openai", "openai-codex":
		c.family = "openai"
	case "openrouter", "opencode", "opencode-go":
		c.compatTurnValidation, c.geminiSigs, c.geminiSigHints = false, true, []string{"gemini"}
	case "kilocode":
		c.geminiSigs, c.geminiSigHints = true, []string{"gemini"}
	case "github-copilot":
		c.dropThinkingModelHints = []string{"claude"}
	}
	return c
}

func hasHint(model string, hints []string) bool {
	m := strings.ToLower(model)
	if m == "" {
		return false
	}
	for _, h := range hints {
		if strings.Contains(m, h) {
			return true
		}
	}
	return false
}

// normalizeProvider0313 is 2026.3.13's normalizeProviderId.
func normalizeProvider0313(p string) string {
	n := strings.ToLower(jsTrim(p))
	switch n {
	case "z.ai", "z-ai":
		return "zai"
	case "opencode-zen":
		return "opencode"
	case "opencode-go-auth":
		return "opencode-go"
	case "qwen":
		return "qwen-portal"
	case "kimi-code":
		return "kimi-coding"
	case "bedrock", "aws-bedrock":
		return "amazon-bedrock"
	case "bytedance", "doubao":
		return "volcengine"
	}
	return n
}

// resolve0313 is 2026.3.13's resolveTranscriptPolicy: one function over a capability table.
func resolve0313(m Model) Policy {
	provider := normalizeProvider0313(m.Provider)
	c := caps0313(provider)
	google := m.API == "google-gemini-cli" || m.API == "google-generative-ai"
	anthropic := m.API == "anthropic-messages" || m.API == "bedrock-converse-stream" || c.family == "anthropic"
	openAIAPI := m.API == "openai" || m.API == "openai-completions" || m.API == "openai-responses" || m.API == "openai-codex-responses"
	openAI := c.family == "openai" || (provider == "" && openAIAPI)
	strictCompat := m.API == "openai-completions" && !openAI && c.compatTurnValidation
	mode := ""
	if c.strict9 || hasHint(m.ID, c.strict9Hints) {
		mode = "strict9"
	}
	mistral := mode == "strict9"
	geminiSigs := c.geminiSigs && hasHint(m.ID, c.geminiSigHints)
	completionsIDs := m.API == "openai-completions"
	sanitizeIDs := google || mistral || anthropic || completionsIDs
	if mode == "" && sanitizeIDs {
		mode = "strict"
	}
	p := Policy{Release: Release20260313, Provider: provider, API: m.API, Model: m.ID, RepairToolUseResultPairing: true}
	switch {
	case openAI:
		p.SanitizeMode = "images-only"
	case google || anthropic || mistral || geminiSigs:
		p.SanitizeMode = "full"
	default:
		p.SanitizeMode = "images-only"
	}
	p.SanitizeToolCallIDs = (!openAI && sanitizeIDs) || completionsIDs
	p.ToolCallIDMode = mode
	p.PreserveSignatures = anthropic && c.preserveAnthropicSigs
	if !openAI && (geminiSigs || google) {
		p.SanitizeThoughtSignatures = base64OnlyCamel
	}
	p.DropThinkingBlocks = hasHint(m.ID, c.dropThinkingModelHints)
	p.ApplyGoogleTurnOrdering = !openAI && (google || strictCompat)
	p.ValidateGeminiTurns = p.ApplyGoogleTurnOrdering
	p.ValidateAnthropicTurns = !openAI && (anthropic || strictCompat)
	p.AllowSyntheticToolResults = !openAI && (google || anthropic)
	return p
}

func defaultPolicy() Policy {
	return Policy{SanitizeMode: "images-only", RepairToolUseResultPairing: true}
}

func ptr[T any](v T) *T { return &v }

// policyPatch is a plugin's partial policy, merged as mergeTranscriptPolicy does: a field
// left nil (or "") keeps the default.
type policyPatch struct {
	sanitizeMode                                                   string
	sanitizeToolCallIDs                                            *bool
	toolCallIDMode, duplicateStyle                                 string
	preserveNativeAnthropicIDs, repairPairing, preserveSignatures  *bool
	thoughtSignatures                                              *ThoughtSignatures
	dropThinking, dropReasoning, googleOrdering, gemini, anthropic *bool
	allowSynthetic                                                 *bool
}

func (h policyPatch) apply(p *Policy) {
	if h.sanitizeMode != "" {
		p.SanitizeMode = h.sanitizeMode
	}
	set := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	set(&p.SanitizeToolCallIDs, h.sanitizeToolCallIDs)
	if h.toolCallIDMode != "" {
		p.ToolCallIDMode = h.toolCallIDMode
	}
	if h.duplicateStyle != "" {
		p.DuplicateToolCallIDStyle = h.duplicateStyle
	}
	set(&p.PreserveNativeAnthropicToolUseIDs, h.preserveNativeAnthropicIDs)
	set(&p.RepairToolUseResultPairing, h.repairPairing)
	set(&p.PreserveSignatures, h.preserveSignatures)
	if h.thoughtSignatures != nil {
		p.SanitizeThoughtSignatures = h.thoughtSignatures
	}
	set(&p.DropThinkingBlocks, h.dropThinking)
	set(&p.DropReasoningFromHistory, h.dropReasoning)
	set(&p.ApplyGoogleTurnOrdering, h.googleOrdering)
	set(&p.ValidateGeminiTurns, h.gemini)
	set(&p.ValidateAnthropicTurns, h.anthropic)
	set(&p.AllowSyntheticToolResults, h.allowSynthetic)
}

var base64OnlyCamel = &ThoughtSignatures{AllowBase64Only: true, IncludeCamelCase: true}

// strictAnthropicPolicy is buildStrictAnthropicReplayPolicy.
func strictAnthropicPolicy(sanitizeIDs, preserveNative, dropThinking bool) policyPatch {
	h := policyPatch{sanitizeMode: "full", preserveSignatures: ptr(true), repairPairing: ptr(true),
		anthropic: ptr(true), allowSynthetic: ptr(true)}
	if sanitizeIDs {
		h.sanitizeToolCallIDs, h.toolCallIDMode = ptr(true), "strict"
		if preserveNative {
			h.preserveNativeAnthropicIDs = ptr(true)
		}
	}
	if dropThinking {
		h.dropThinking = ptr(true)
	}
	return h
}

// nativeAnthropicPolicy is buildNativeAnthropicReplayPolicyForModel.
func nativeAnthropicPolicy(modelID string) policyPatch {
	id := strings.ToLower(modelID)
	return strictAnthropicPolicy(true, true, strings.Contains(id, "claude") && !preservesThinkingBlocks(modelID))
}

var claudeGen = lazyre.New(`claude-[5-9]|claude-\d{2,}`)

// preservesThinkingBlocks is shouldPreserveThinkingBlocks: Claude models that keep thinking
// blocks in context natively (Fable 5, Opus/Sonnet/Haiku 4.x and later).
func preservesThinkingBlocks(modelID string) bool {
	id := strings.ToLower(jsTrim(modelID))
	if !strings.Contains(id, "claude") {
		return false
	}
	for _, s := range []string{"fable-5", "opus-4", "sonnet-4", "haiku-4"} {
		if strings.Contains(id, s) {
			return true
		}
	}
	return claudeGen.MatchString(id)
}

// openAIPolicy is the openai plugin's buildOpenAIReplayPolicy.
func openAIPolicy(api string) policyPatch {
	h := policyPatch{sanitizeMode: "images-only", googleOrdering: ptr(false), gemini: ptr(false), anthropic: ptr(false)}
	if ResponsesFamily(api) {
		h.allowSynthetic = ptr(true)
	}
	if api == "openai-completions" {
		h.sanitizeToolCallIDs, h.toolCallIDMode = ptr(true), "strict"
	} else {
		h.sanitizeToolCallIDs = ptr(false)
	}
	return h
}

// googleGeminiPolicy is buildGoogleGeminiReplayPolicy.
func googleGeminiPolicy() policyPatch {
	return policyPatch{sanitizeMode: "full", sanitizeToolCallIDs: ptr(true), toolCallIDMode: "strict",
		thoughtSignatures: base64OnlyCamel, repairPairing: ptr(true), googleOrdering: ptr(true),
		gemini: ptr(true), anthropic: ptr(false), allowSynthetic: ptr(true)}
}

// passthroughGeminiPolicy is buildPassthroughGeminiSanitizingReplayPolicy.
func passthroughGeminiPolicy(modelID string) policyPatch {
	h := policyPatch{googleOrdering: ptr(false), gemini: ptr(false), anthropic: ptr(false)}
	if strings.Contains(strings.ToLower(jsTrim(modelID)), "gemini") {
		h.thoughtSignatures = base64OnlyCamel
	}
	return h
}

var openRouterMistralPrefixes = []string{"mistralai/", "mistral/", "mistral-", "codestral-", "devstral-",
	"ministral-", "mixtral-", "pixtral-", "voxtral-"}

// openRouterMistral is isOpenRouterMistralModelId: a Mistral model routed through OpenRouter
// (the id lowercased, without an "openrouter/" prefix, starts with a Mistral prefix).
func openRouterMistral(modelID string) bool {
	id := strings.TrimPrefix(strings.ToLower(jsTrim(modelID)), "openrouter/")
	for _, p := range openRouterMistralPrefixes {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}

// IsGoogleAPI is isGoogleModelApi of transcript-policy: the api contains "google" or "gemini".
func IsGoogleAPI(api string) bool {
	a := strings.ToLower(api)
	return strings.Contains(a, "google") || strings.Contains(a, "gemini")
}

// isAnthropicAPI is isAnthropicApi.
func isAnthropicAPI(api string) bool {
	return api == "anthropic-messages" || api == "bedrock-converse-stream"
}

// ResponsesFamily reports the OpenAI Responses apis (their synthetic tool results say
// "aborted" and they get the Responses-only repairs).
func ResponsesFamily(api string) bool {
	return api == "openai-responses" || api == "openai-chatgpt-responses" || api == "azure-openai-responses"
}

var claudeFamily = lazyre.New(`(?:^|[./:_-])claude(?:$|[./:_-])`)

// reasoningContentReplayModels need their reasoning content replayed
// (REASONING_CONTENT_REPLAY_MODEL_IDS).
var reasoningContentReplayModels = map[string]bool{
	"kimi-for-coding": true, "kimi-k2.5": true, "kimi-k2.6": true, "kimi-k2.7-code": true,
	"kimi-k2-thinking": true, "kimi-k2-thinking-turbo": true, "mimo-v2-pro": true,
	"mimo-v2-omni": true, "mimo-v2.5": true, "mimo-v2.5-pro": true, "mimo-v2.6-pro": true,
}

func requiresReasoningContentReplay(modelID string) bool {
	id := strings.ToLower(jsTrim(modelID))
	if id == "" {
		return false
	}
	var parts []string
	for _, s := range strings.Split(id, "/") {
		if s != "" {
			parts = append(parts, s)
		}
	}
	final := id
	if len(parts) > 0 {
		final = parts[len(parts)-1]
	}
	cands := []string{final}
	var colon []string
	for _, s := range strings.Split(final, ":") {
		if s != "" {
			colon = append(colon, s)
		}
	}
	if len(colon) > 1 {
		cands = append(cands, colon[0], colon[len(colon)-1])
	}
	for _, c := range cands {
		if reasoningContentReplayModels[c] {
			return true
		}
	}
	return false
}

// unownedFallback is buildUnownedProviderTransportReplayFallback: the policy of a provider no
// bundled plugin owns, from its transport api alone (2026.4.24: without the reasoning drop,
// the Claude-over-Responses turn validation and Responses synthetic results).
func unownedFallback(m Model, r Release) policyPatch {
	google, anthropic := IsGoogleAPI(m.API), isAnthropicAPI(m.API)
	strictOpenAI := m.API == "openai-completions"
	openAIIDs := strictOpenAI || ResponsesFamily(m.API)
	var h policyPatch
	if !google && !anthropic && !strictOpenAI && !openAIIDs {
		return h
	}
	id := strings.ToLower(jsTrim(m.ID))
	claudeResponses := ResponsesFamily(m.API) && claudeFamily.MatchString(id)
	if google || anthropic {
		h.sanitizeMode = "full"
	}
	if google || anthropic || openAIIDs {
		h.sanitizeToolCallIDs, h.toolCallIDMode = ptr(true), "strict"
	}
	if anthropic {
		h.preserveSignatures = ptr(true)
		if strings.Contains(id, "claude") {
			h.dropThinking = ptr(!preservesThinkingBlocks(id))
		}
		if m.NoReasoningEffort {
			h.dropThinking = ptr(true)
		}
	}
	if google {
		h.thoughtSignatures = base64OnlyCamel
	}
	newest := r.atLeast(Release20260611)
	if strictOpenAI && newest {
		h.dropReasoning = ptr(!(m.Reasoning || requiresReasoningContentReplay(m.ID)))
	}
	if google || strictOpenAI {
		h.googleOrdering, h.gemini = ptr(true), ptr(true)
	}
	if anthropic || strictOpenAI || (claudeResponses && newest) {
		h.anthropic = ptr(true)
	}
	if google || anthropic || (ResponsesFamily(m.API) && newest) {
		h.allowSynthetic = ptr(true)
	}
	if anthropic && m.NoReasoningEffort && !newest {
		h.dropThinking = nil
		if strings.Contains(id, "claude") {
			h.dropThinking = ptr(!preservesThinkingBlocks(id))
		}
	}
	return h
}

// DefaultAPI guesses the api a provider's models use when --api is not given.
func DefaultAPI(provider string) string {
	switch NormalizeProvider(provider) {
	case "anthropic":
		return "anthropic-messages"
	case "amazon-bedrock":
		return "bedrock-converse-stream"
	case "google", "gemini":
		return "google-generative-ai"
	case "google-vertex":
		return "google-vertex"
	case "google-gemini-cli":
		return "google-gemini-cli"
	case "openai":
		return "openai-responses"
	}
	return "openai-completions"
}

// signedThinkingProviders own signed thinking blocks (providerRequiresSignedThinking).
var signedThinkingProviders = map[string]bool{"anthropic": true, "amazon-bedrock": true, "anthropic-vertex": true}

// allowProviderOwnedThinkingReplay is shouldAllowProviderOwnedThinkingReplay.
func (p Policy) allowProviderOwnedThinkingReplay() bool {
	owned := p.PreserveSignatures || signedThinkingProviders[p.Provider]
	return isAnthropicAPI(p.API) && p.ValidateAnthropicTurns && owned && !p.DropThinkingBlocks
}

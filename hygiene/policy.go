package hygiene

import (
	"fmt"
	"strings"
)

// Era selects which generation of OpenClaw's provider matrix Resolve follows.
type Era string

const (
	// EraSingleFile is the later single-file transcript-policy.ts (spec §5.4), the default.
	EraSingleFile Era = "single-file"
	// EraAntigravity is the older "antigravity era" matrix (spec §5.3).
	EraAntigravity Era = "antigravity"
)

// Eras lists the accepted --policy-era values.
var Eras = []Era{EraSingleFile, EraAntigravity}

// ParseEra returns the Era named s ("" is the default).
func ParseEra(s string) (Era, error) {
	if s == "" {
		return EraSingleFile, nil
	}
	for _, e := range Eras {
		if string(e) == s {
			return e, nil
		}
	}
	return "", fmt.Errorf("unknown policy era %q (want single-file or antigravity)", s)
}

// ThoughtSignatures configures thought-signature stripping (§6.2).
type ThoughtSignatures struct {
	AllowBase64Only  bool `json:"allow_base64_only"`
	IncludeCamelCase bool `json:"include_camel_case"`
}

// Policy is the resolved transcript policy (spec §5.2).
type Policy struct {
	Era                          Era                `json:"era"`
	Provider                     string             `json:"provider"` // normalized
	API                          string             `json:"api"`
	Model                        string             `json:"model"`
	Family                       []string           `json:"family"` // detections that matched
	SanitizeMode                 string             `json:"sanitize_mode"`
	SanitizeToolCallIDs          bool               `json:"sanitize_tool_call_ids"`
	ToolCallIDMode               string             `json:"tool_call_id_mode,omitempty"`
	RepairToolUseResultPairing   bool               `json:"repair_tool_use_result_pairing"`
	PreserveSignatures           bool               `json:"preserve_signatures"`
	SanitizeThoughtSignatures    *ThoughtSignatures `json:"sanitize_thought_signatures,omitempty"`
	NormalizeAntigravityThinking bool               `json:"normalize_antigravity_thinking_blocks"`
	DropThinkingBlocks           bool               `json:"drop_thinking_blocks"`
	ApplyGoogleTurnOrdering      bool               `json:"apply_google_turn_ordering"`
	ValidateGeminiTurns          bool               `json:"validate_gemini_turns"`
	ValidateAnthropicTurns       bool               `json:"validate_anthropic_turns"`
	AllowSyntheticToolResults    bool               `json:"allow_synthetic_tool_results"`
	OpenAIResponses              bool               `json:"openai_responses_reasoning"` // §6.7 runs
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

// NormalizeProvider lowercases, trims and applies OpenClaw's provider aliases (§5.1).
func NormalizeProvider(p string) string {
	p = strings.ToLower(strings.TrimSpace(p))
	if a, ok := providerAliases[p]; ok {
		return a
	}
	return p
}

// IsGoogleAPI is the newest isGoogleModelApi: the api contains "google" or "gemini".
func IsGoogleAPI(api string) bool {
	a := strings.ToLower(api)
	return strings.Contains(a, "google") || strings.Contains(a, "gemini")
}

var mistralHints = []string{"mistral", "mixtral", "codestral", "pixtral", "devstral", "ministral", "mistralai"}

// Detection is the provider-family detection of §5.1.
type Detection struct {
	OpenAI, Google, Anthropic, Mistral, MiniMax, OpenRouterGemini, CopilotClaude,
	StrictOpenAICompatible, AntigravityClaude bool
}

// Detect classifies provider, api and model as §5.1 does (newest forms).
func Detect(provider, api, model string) Detection {
	p := NormalizeProvider(provider)
	m := strings.ToLower(model)
	a := strings.TrimSpace(api)
	var d Detection
	d.OpenAI = p == "openai" || p == "openai-codex" ||
		(p == "" && (a == "openai" || a == "openai-completions" || a == "openai-responses" || a == "openai-codex-responses"))
	d.Google = IsGoogleAPI(a)
	d.Anthropic = a == "anthropic-messages" || p == "anthropic" || a == "bedrock-converse-stream" || p == "amazon-bedrock"
	d.Mistral = p == "mistral"
	for _, h := range mistralHints {
		if strings.Contains(m, h) {
			d.Mistral = true
		}
	}
	d.MiniMax = p == "minimax" || p == "minimax-cn" || strings.Contains(m, "minimax")
	d.OpenRouterGemini = (p == "openrouter" || p == "opencode" || p == "kilocode") && strings.Contains(m, "gemini")
	d.CopilotClaude = p == "github-copilot" && strings.Contains(m, "claude")
	d.StrictOpenAICompatible = a == "openai-completions" && !d.OpenAI && p != "openrouter" && p != "opencode"
	d.AntigravityClaude = (p == "google-antigravity" || strings.ToLower(a) == "google-antigravity") && strings.Contains(m, "claude")
	return d
}

func (d Detection) names() []string {
	var out []string
	for _, x := range []struct {
		on   bool
		name string
	}{{d.OpenAI, "openai"}, {d.Google, "google"}, {d.Anthropic, "anthropic"}, {d.Mistral, "mistral"},
		{d.MiniMax, "minimax"}, {d.OpenRouterGemini, "openrouter-gemini"}, {d.CopilotClaude, "copilot-claude"},
		{d.StrictOpenAICompatible, "strict-openai-compatible"}, {d.AntigravityClaude, "antigravity-claude"}} {
		if x.on {
			out = append(out, x.name)
		}
	}
	return out
}

// Resolve is resolveTranscriptPolicy for the given era.
func Resolve(provider, api, model string, era Era) Policy {
	d := Detect(provider, api, model)
	p := Policy{Era: era, Provider: NormalizeProvider(provider), API: api, Model: model, Family: d.names()}
	if p.Family == nil {
		p.Family = []string{}
	}
	switch era {
	case EraAntigravity:
		resolveAntigravity(&p, d)
	default:
		p.Era = EraSingleFile
		resolveSingleFile(&p, d)
	}
	p.OpenAIResponses = api == "openai-responses" || api == "openai-codex-responses"
	return p
}

// resolveSingleFile is the §5.4 matrix.
func resolveSingleFile(p *Policy, d Detection) {
	p.RepairToolUseResultPairing = true
	p.SanitizeToolCallIDs = (d.Google || d.Mistral || d.Anthropic || d.MiniMax) && !d.OpenAI
	if p.SanitizeToolCallIDs {
		p.ToolCallIDMode = "strict"
		if d.Mistral {
			p.ToolCallIDMode = "strict9"
		}
	}
	if (d.OpenRouterGemini || d.Google) && !d.OpenAI {
		p.SanitizeThoughtSignatures = &ThoughtSignatures{AllowBase64Only: true, IncludeCamelCase: true}
	}
	p.DropThinkingBlocks = d.CopilotClaude
	p.ApplyGoogleTurnOrdering = d.Google && !d.OpenAI
	p.ValidateGeminiTurns = p.ApplyGoogleTurnOrdering
	p.ValidateAnthropicTurns = !d.OpenAI && (d.Anthropic || d.StrictOpenAICompatible)
	p.AllowSyntheticToolResults = !d.OpenAI && (d.Google || d.Anthropic)
	switch {
	case d.OpenAI:
		p.SanitizeMode = "images-only"
	case d.Google || d.Anthropic || d.Mistral || d.OpenRouterGemini:
		p.SanitizeMode = "full"
	default:
		p.SanitizeMode = "images-only"
	}
}

// resolveAntigravity is the §5.3 matrix. Rows are checked in table order; Mistral wins the
// id mode and a Google api still gets Google ordering.
func resolveAntigravity(p *Policy, d Detection) {
	p.SanitizeMode = "images-only"
	switch {
	case d.OpenAI:
		return
	case d.Google:
		p.SanitizeMode = "full"
		p.SanitizeToolCallIDs, p.ToolCallIDMode = true, "strict"
		p.RepairToolUseResultPairing = true
		p.ApplyGoogleTurnOrdering, p.ValidateGeminiTurns = true, true
		p.AllowSyntheticToolResults = true
		if d.AntigravityClaude {
			p.PreserveSignatures = true
			p.NormalizeAntigravityThinking = true
		}
	case d.Anthropic:
		p.SanitizeMode = "full"
		p.RepairToolUseResultPairing = true
		p.ValidateAnthropicTurns = true
		p.AllowSyntheticToolResults = true
	case d.Mistral:
		p.SanitizeMode = "full"
	case d.OpenRouterGemini:
		p.SanitizeMode = "full"
		p.SanitizeThoughtSignatures = &ThoughtSignatures{AllowBase64Only: true, IncludeCamelCase: true}
	}
	if d.Mistral {
		p.SanitizeToolCallIDs, p.ToolCallIDMode = true, "strict9"
	}
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
	case "google-antigravity":
		return "google-antigravity"
	case "openai":
		return "openai-responses"
	case "openai-codex":
		return "openai-codex-responses"
	}
	return "openai-completions"
}

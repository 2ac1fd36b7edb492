package replaycheck

// Target is one provider/model/api a transcript is replayed for. Model is the model object the
// runner hands to sanitizeSessionHistory (the fields OpenClaw's policy reads: api, provider,
// reasoning, input, contextWindow, maxTokens).
type Target struct {
	Name          string
	Provider      string
	API           string
	Model         string
	Reasoning     bool
	ContextWindow int
	MaxTokens     int
}

// Targets are the seven providers replay must equal OpenClaw for.
var Targets = []Target{
	{"anthropic", "anthropic", "anthropic-messages", "claude-sonnet-4-5", true, 200000, 64000},
	{"openai", "openai", "openai-responses", "gpt-5", true, 400000, 128000},
	{"openrouter", "openrouter", "openai-completions", "google/gemini-2.5-pro", true, 1048576, 65536},
	{"google", "google", "google-generative-ai", "gemini-2.5-pro", true, 1048576, 65536},
	{"mistral", "mistral", "openai-completions", "mistral-large-latest", false, 262144, 16384},
	{"bedrock", "amazon-bedrock", "bedrock-converse-stream", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", true, 200000, 64000},
	{"moonshot", "moonshot", "openai-completions", "kimi-k2.5", true, 262144, 32768},
}

// TargetNamed returns the target called name.
func TargetNamed(name string) (Target, bool) {
	for _, t := range Targets {
		if t.Name == name {
			return t, true
		}
	}
	return Target{}, false
}

// ModelObject is the model the oracle driver passes to OpenClaw.
func (t Target) ModelObject() map[string]any {
	return map[string]any{
		"id": t.Model, "name": t.Model, "api": t.API, "provider": t.Provider,
		"reasoning": t.Reasoning, "input": []string{"text", "image"},
		"contextWindow": t.ContextWindow, "maxTokens": t.MaxTokens,
	}
}

// ReplayRequest is one request line of internal/conformance/oracle/replay.mjs.
type ReplayRequest struct {
	ID       int            `json:"id"`
	File     string         `json:"file,omitempty"`
	Data     []byte         `json:"data"` // base64 in JSON, as the driver expects; sent even when empty
	Provider string         `json:"provider"`
	ModelAPI string         `json:"modelApi"`
	ModelID  string         `json:"modelId"`
	Model    map[string]any `json:"model"`
	Now      int64          `json:"now"`
	Brief    bool           `json:"brief,omitempty"` // answer only the validated messages (and policy)
}

// NewReplayRequest builds the request replaying a transcript (a path, or its bytes) for t.
func NewReplayRequest(id int, file string, data []byte, t Target, nowMs int64) ReplayRequest {
	return ReplayRequest{ID: id, File: file, Data: data, Provider: t.Provider, ModelAPI: t.API,
		ModelID: t.Model, Model: t.ModelObject(), Now: nowMs, Brief: true}
}

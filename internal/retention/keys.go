package retention

import (
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"strings"
)

// Class is the maintenance class of a session key (store.md §3.2).
type Class string

const (
	Ordinary  Class = "ordinary"  // prunable, cappable, evictable
	Synthetic Class = "synthetic" // subagent/acp/cron/hook/node/heartbeat: always disposable
	Protected Class = "protected" // durable external conversation pointer: never removed
)

// parseAgentKey is parseAgentSessionKey: split on ":" dropping empty parts; at least three
// parts, the first "agent". Keys are compared lower-cased here (the normalization keeps the
// case of a few opaque peer ids, which never changes a class).
func parseAgentKey(key string) (agent, rest string, ok bool) {
	raw := strings.ToLower(strings.TrimSpace(key))
	if raw == "" {
		return "", "", false
	}
	if raw[0] != ':' && raw[len(raw)-1] != ':' && !strings.Contains(raw, "::") {
		// no empty part to drop (every key OpenClaw writes): rest is what follows the
		// second colon, without splitting and joining (FuzzParseAgentKey)
		head, after, ok := strings.Cut(raw, ":")
		if !ok || head != "agent" {
			return "", "", false
		}
		agent, rest, ok = strings.Cut(after, ":")
		if agent = strings.TrimSpace(agent); !ok || agent == "" {
			return "", "", false
		}
		return agent, rest, true
	}
	var parts []string
	for _, p := range strings.Split(raw, ":") {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) < 3 || parts[0] != "agent" {
		return "", "", false
	}
	agent = strings.TrimSpace(parts[1])
	rest = strings.Join(parts[2:], ":")
	if agent == "" || rest == "" {
		return "", "", false
	}
	return agent, rest, true
}

func keyRest(key string) string {
	if _, rest, ok := parseAgentKey(key); ok {
		return rest
	}
	return strings.ToLower(strings.TrimSpace(key))
}

// IsSynthetic reports isSyntheticSessionMaintenanceKey.
func IsSynthetic(key string) bool {
	low := strings.ToLower(strings.TrimSpace(key))
	_, rest, scoped := parseAgentKey(key)
	if !scoped {
		rest = low
	}
	switch {
	case strings.HasPrefix(low, "subagent:"), scoped && strings.HasPrefix(rest, "subagent:"):
		return true
	case strings.HasPrefix(low, "acp:"), scoped && strings.HasPrefix(rest, "acp:"):
		return true
	case scoped && strings.HasPrefix(rest, "cron:"):
		return true
	}
	return strings.HasPrefix(rest, "acp-bridge:") || strings.HasPrefix(rest, "hook:") ||
		strings.HasPrefix(rest, "node:") || rest == "heartbeat" ||
		strings.HasSuffix(rest, ":heartbeat") || strings.Contains(rest, ":heartbeat:")
}

var (
	telegramTopicRe = lazyre.New(`^telegram:(?:group|channel|direct|dm):.+:topic:[^:]+$`)
	groupChannelRe  = lazyre.New(`^[^:]+:(?:group|channel):.+$`)
	modelRunRe      = lazyre.New(`(?i)^agent:([^:\s]+):explicit:model-run-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	cronRunRe       = lazyre.New(`^cron:[^:]+:run:[^:]+`)
)

// threadID is the non-empty id after the last ":thread:" of key, if any.
func threadID(key string) string {
	raw := strings.TrimSpace(key)
	i := strings.LastIndex(strings.ToLower(raw), ":thread:")
	if i < 0 {
		return ""
	}
	return strings.TrimSpace(raw[i+len(":thread:"):])
}

// Classify returns the class of key for an entry whose chatType (or origin.chatType) is
// chatType, and the rule that decided it.
func Classify(key, chatType string) (Class, string) {
	if IsSynthetic(key) {
		return Synthetic, "synthetic key (subagent, acp, cron, hook, node or heartbeat)"
	}
	if threadID(key) != "" {
		return Protected, "thread key (:thread:<id>)"
	}
	rest := keyRest(key)
	if telegramTopicRe.MatchString(rest) {
		return Protected, "telegram topic key"
	}
	if groupChannelRe.MatchString(rest) {
		return Protected, "group or channel key"
	}
	switch strings.ToLower(strings.TrimSpace(chatType)) {
	case "group", "channel", "thread":
		return Protected, "chatType " + strings.ToLower(strings.TrimSpace(chatType))
	}
	return Ordinary, "ordinary key"
}

// IsModelRunKey reports a gateway model-run probe key agent:<a>:explicit:model-run-<uuid>.
func IsModelRunKey(key string) bool {
	m := modelRunRe.FindStringSubmatch(key)
	return m != nil && strings.ToLower(m[1]) == strings.ToLower(m[1])
}

// IsCronRunKey reports an isolated cron run key agent:<a>:cron:<job>:run:<run>.
func IsCronRunKey(key string) bool {
	_, rest, ok := parseAgentKey(key)
	return ok && cronRunRe.MatchString(rest)
}

// isMainScopeDirectKey is isMainScopeStaleDirectSessionKey without the config and active-key
// checks: a key of agentID whose rest is direct:<p>, <ch>:direct:<p> or <ch>:<acct>:direct:<p>.
func isMainScopeDirectKey(key, agentID string) bool {
	agent, rest, ok := parseAgentKey(key)
	if !ok || normalizeAgent(agent) != normalizeAgent(agentID) {
		return false
	}
	var parts []string
	for _, p := range strings.Split(rest, ":") {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return len(parts) == 2 && parts[0] == "direct" || len(parts) == 3 && parts[1] == "direct" ||
		len(parts) == 4 && parts[2] == "direct"
}

package retention

import (
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"strings"
)

// Session key predicates of OpenClaw 2026.9 (session-key-utils.ts, store-maintenance.ts),
// which differ from the file era's: parseAgentSessionKey no longer drops empty segments,
// dashboard keys exist, and "synthetic" rows are the only ones maintenance deletes.

// sqParseKey is parseAgentSessionKey: the key folded to lower case (2026.9 keeps the case of
// signal group and matrix room ids, which no rule here looks at), then "agent:<id>:<rest>"
// with a non-empty id and a rest that does not start with ':'.
func sqParseKey(key string) (agent, rest string, ok bool) {
	k := strings.ToLower(strings.TrimSpace(key))
	if !strings.HasPrefix(k, "agent:") {
		return "", "", false
	}
	end := strings.IndexByte(k[6:], ':')
	if end < 0 {
		return "", "", false
	}
	agent = strings.TrimSpace(k[6 : 6+end])
	rest = k[6+end+1:]
	if agent == "" || rest == "" || strings.HasPrefix(rest, ":") {
		return "", "", false
	}
	return agent, rest, true
}

// sqRest is parsed.rest, or the folded key when it is not agent-scoped.
func sqRest(key string) string {
	if _, rest, ok := sqParseKey(key); ok {
		return rest
	}
	return strings.ToLower(strings.TrimSpace(key))
}

var (
	sqModelRunRe     = lazyre.New(`(?i)^agent:([^:\s]+):explicit:model-run-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	sqModelRunRestRe = lazyre.New(`^explicit:model-run-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	sqDirectRe       = lazyre.New(`^direct:.+$`)
	sqTelegramTopic  = lazyre.New(`^telegram:(?:direct|dm):.+:topic:[^:]+$`)
)

// sqModelRun is isGatewayModelRunSessionKey.
func sqModelRun(key string) bool {
	m := sqModelRunRe.FindStringSubmatch(key)
	if m == nil || m[1] == "" {
		return false
	}
	agent, rest, ok := sqParseKey(key)
	return ok && agent == strings.ToLower(m[1]) && sqModelRunRestRe.MatchString(rest)
}

// sqSynthetic is isSyntheticSessionMaintenanceKey: runtime rows maintenance deletes instead
// of archiving (model runs, subagents, ACP, cron, hooks, nodes, heartbeats).
func sqSynthetic(key string) bool {
	low := strings.ToLower(strings.TrimSpace(key))
	_, rest, scoped := sqParseKey(key)
	if !scoped {
		rest = low
	}
	switch {
	case sqModelRun(key):
		return true
	case strings.HasPrefix(low, "subagent:") || scoped && strings.HasPrefix(rest, "subagent:"):
		return true
	case strings.HasPrefix(low, "acp:") || scoped && strings.HasPrefix(rest, "acp:"):
		return true
	case scoped && strings.HasPrefix(rest, "cron:"):
		return true
	}
	return strings.HasPrefix(rest, "acp-bridge:") || strings.HasPrefix(rest, "hook:") || strings.HasPrefix(rest, "node:") ||
		rest == "heartbeat" || strings.HasSuffix(rest, ":heartbeat") || strings.Contains(rest, ":heartbeat:")
}

func sqSubagent(key string) bool {
	low := strings.ToLower(strings.TrimSpace(key))
	_, rest, ok := sqParseKey(key)
	return strings.HasPrefix(low, "subagent:") || ok && strings.HasPrefix(rest, "subagent:")
}

// sqThreadID is parseThreadSessionSuffix(key).threadId.
func sqThreadID(key string) string {
	raw := strings.TrimSpace(key)
	i := strings.LastIndex(strings.ToLower(raw), ":thread:")
	if i < 0 {
		return ""
	}
	return strings.TrimSpace(raw[i+len(":thread:"):])
}

// sqDeliveryRoute is parseSessionDeliveryRoute(key) != null.
func sqDeliveryRoute(key string) bool {
	base := strings.TrimSpace(key)
	if i := strings.LastIndex(strings.ToLower(base), ":thread:"); i >= 0 {
		base = base[:i]
	}
	_, rest, ok := sqParseKey(base)
	if !ok {
		return false
	}
	parts := strings.Split(rest, ":")
	if parts[0] == "agent" || len(parts) < 3 || strings.TrimSpace(parts[0]) == "" {
		return false
	}
	if len(parts) >= 4 && (parts[2] == "direct" || parts[2] == "dm") {
		return strings.TrimSpace(parts[1]) != "" && strings.TrimSpace(parts[3]) != ""
	}
	switch parts[1] {
	case "channel", "direct", "dm", "group":
		return strings.TrimSpace(parts[2]) != ""
	}
	return false
}

// sqProtectedConversation is isProtectedExternalConversationSessionKey.
func sqProtectedConversation(key string) bool {
	rest := sqRest(key)
	return sqDeliveryRoute(key) || sqDirectRe.MatchString(rest) || groupChannelRe.MatchString(rest) || sqTelegramTopic.MatchString(rest)
}

// sqPrimary is isPrimarySessionMaintenanceKey: "global" or agent:<id>:main.
func sqPrimary(key string) bool {
	if strings.ToLower(strings.TrimSpace(key)) == "global" {
		return true
	}
	_, rest, ok := sqParseKey(key)
	return ok && rest == "main"
}

// sqDashboard reports a dashboard session (agent:<id>:dashboard:...).
func sqDashboard(key string) bool {
	_, rest, ok := sqParseKey(key)
	return ok && strings.HasPrefix(rest, "dashboard:")
}

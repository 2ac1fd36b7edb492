package retention

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// parseAgentKeySplit is parseAgentKey as it was written first, after parseAgentKey in
// session-key.ts: split on ":", drop empty parts, join the rest.
func parseAgentKeySplit(key string) (agent, rest string, ok bool) {
	raw := strings.ToLower(strings.TrimSpace(key))
	var parts []string
	for _, p := range strings.Split(raw, ":") {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) < 3 || parts[0] != "agent" {
		return "", "", false
	}
	agent, rest = strings.TrimSpace(parts[1]), strings.Join(parts[2:], ":")
	if agent == "" || rest == "" {
		return "", "", false
	}
	return agent, rest, true
}

var agentKeys = []string{"agent:main:main", "agent:main:direct:42", " Agent:Main:Discord:Channel:1 ", "agent::main:x",
	"agent:main:", ":agent:main:x", "agent:main", "agent: :x", "agent:\tx\t:y", "agents:main:x", "agent:main:a::b",
	"", ":", "::", "agent", "agent:İ:x", "AGENT:K:x:thread:7", "agent:main:x:"}

// FuzzParseAgentKey: the fast path of parseAgentKey gives what splitting and joining gives.
func FuzzParseAgentKey(f *testing.F) {
	for _, k := range agentKeys {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, key string) {
		a1, r1, ok1 := parseAgentKey(key)
		a2, r2, ok2 := parseAgentKeySplit(key)
		if a1 != a2 || r1 != r2 || ok1 != ok2 {
			t.Fatalf("%q: got (%q, %q, %v), want (%q, %q, %v)", key, a1, r1, ok1, a2, r2, ok2)
		}
	})
}

// TestFmtAge: ages read as fmt's %.1f wrote them.
func TestFmtAge(t *testing.T) {
	now := float64(time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC).UnixMilli())
	for _, d := range []time.Duration{0, 999 * time.Millisecond, 59 * time.Minute, time.Hour, 90 * time.Minute,
		47*time.Hour + 59*time.Minute, 48 * time.Hour, 100*24*time.Hour + 7*time.Hour, 3650 * 24 * time.Hour, 36*time.Hour + 3*time.Minute} {
		ms := float64(d.Milliseconds())
		want := fmt.Sprintf("%.1fd", (time.Duration(ms*float64(time.Millisecond))).Hours()/24)
		switch dd := time.Duration(ms * float64(time.Millisecond)); {
		case dd < time.Hour:
			want = dd.Round(time.Second).String()
		case dd < 48*time.Hour:
			want = fmt.Sprintf("%.1fh", dd.Hours())
		}
		if got := fmtAge(now, now-ms); got != want {
			t.Errorf("%v: fmtAge = %q, want %q", d, got, want)
		}
	}
}

package store

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
)

// Entry is one session of the store. Obj is nil when the value is not a JSON object (later
// gateways drop such rows on load; clawdoctor keeps and reports them).
type Entry struct {
	Key string
	Raw json.RawMessage // the value as in the file
	Obj *jsonobj.Object // the value's members, in order; nil if not an object
}

// String returns the string field name ("" and false when absent or not a string).
func (e Entry) String(name string) (string, bool) {
	if e.Obj == nil {
		return "", false
	}
	v, ok := e.Obj.Get(name)
	if !ok {
		return "", false
	}
	if s, ok := PlainString(v); ok {
		return s, true
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// PlainString decodes a JSON string token that holds no escape, as encoding/json decodes it,
// without its reflection (json.Unmarshal per field was a fifth of doctor's row checks on a
// 20,000-row store). ok is false for any other token: decode that one with encoding/json.
func PlainString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	body := v[1 : len(v)-1]
	ascii := true
	for _, c := range body {
		if c == '\\' || c == '"' || c < 0x20 {
			return "", false
		}
		ascii = ascii && c < 0x80
	}
	if !ascii && !utf8.Valid(body) { // encoding/json replaces invalid bytes with U+FFFD
		return "", false
	}
	return string(body), true
}

// Millis returns a numeric field (epoch ms for every timestamp of the store). Non-integral
// values are truncated; absent, non-numeric or non-finite values give false.
func (e Entry) Millis(name string) (int64, bool) {
	if e.Obj == nil {
		return 0, false
	}
	v, ok := e.Obj.Get(name)
	if !ok {
		return 0, false
	}
	var f float64
	if json.Unmarshal(v, &f) != nil || math.IsInf(f, 0) || math.IsNaN(f) || math.Abs(f) > 1<<62 {
		return 0, false
	}
	return int64(f), true
}

// SessionID returns the entry's current transcript id.
func (e Entry) SessionID() string { s, _ := e.String("sessionId"); return strings.TrimSpace(s) }

// SessionFile returns the explicit transcript path, "" when absent.
func (e Entry) SessionFile() string { s, _ := e.String("sessionFile"); return strings.TrimSpace(s) }

// UpdatedAt returns the last mutation time of the row (epoch ms), the clock of pruning.
func (e Entry) UpdatedAt() (int64, bool) { return e.Millis("updatedAt") }

// SessionStartedAt returns when the current sessionId began (epoch ms).
func (e Entry) SessionStartedAt() (int64, bool) { return e.Millis("sessionStartedAt") }

// FieldSize returns the size in bytes of a field's raw value as in the file (0 when absent),
// e.g. of the heavy skillsSnapshot and systemPromptReport blobs.
func (e Entry) FieldSize(name string) int {
	if e.Obj == nil {
		return 0
	}
	v, _ := e.Obj.Get(name)
	return len(v)
}

// SkillsSnapshotSize is FieldSize("skillsSnapshot").
func (e Entry) SkillsSnapshotSize() int { return e.FieldSize("skillsSnapshot") }

// SystemPromptReportSize is FieldSize("systemPromptReport").
func (e Entry) SystemPromptReportSize() int { return e.FieldSize("systemPromptReport") }

// CLISession is one external CLI session id recorded on an entry.
type CLISession struct {
	Provider  string `json:"provider"`
	SessionID string `json:"session_id"`
	// Source is the field it came from: "cliSessionBindings", "cliSessionIds" or
	// "claudeCliSessionId" (the legacy scalar, provider "claude-cli").
	Source string `json:"source"`
}

// CLISessions returns every CLI session id of the entry, bindings first, then the mirrored
// cliSessionIds, then the legacy claudeCliSessionId, each group sorted by provider. The three
// should agree; a disagreement is a stale mirror (context-and-forensics.md).
func (e Entry) CLISessions() []CLISession {
	if e.Obj == nil {
		return nil
	}
	var out []CLISession
	if v, ok := e.Obj.Get("cliSessionBindings"); ok {
		var m map[string]struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(v, &m) == nil {
			for _, p := range slices.Sorted(maps.Keys(m)) {
				out = append(out, CLISession{Provider: p, SessionID: m[p].SessionID, Source: "cliSessionBindings"})
			}
		}
	}
	if v, ok := e.Obj.Get("cliSessionIds"); ok {
		var m map[string]string
		if json.Unmarshal(v, &m) == nil {
			for _, p := range slices.Sorted(maps.Keys(m)) {
				out = append(out, CLISession{Provider: p, SessionID: m[p], Source: "cliSessionIds"})
			}
		}
	}
	if s, ok := e.String("claudeCliSessionId"); ok {
		out = append(out, CLISession{Provider: "claude-cli", SessionID: s, Source: "claudeCliSessionId"})
	}
	return out
}

// Checkpoint is one compactionCheckpoints[] record of an entry.
type Checkpoint struct {
	CheckpointID string `json:"checkpointId"`
	SessionID    string `json:"sessionId"`
	Reason       string `json:"reason"`
	Pre          struct {
		SessionID   string `json:"sessionId"`
		SessionFile string `json:"sessionFile"`
	} `json:"preCompaction"`
	Post struct {
		SessionID   string `json:"sessionId"`
		SessionFile string `json:"sessionFile"`
	} `json:"postCompaction"`
}

// CompactionCheckpoints returns the entry's checkpoint records (nil when absent or malformed).
func (e Entry) CompactionCheckpoints() []Checkpoint {
	if e.Obj == nil {
		return nil
	}
	v, ok := e.Obj.Get("compactionCheckpoints")
	if !ok {
		return nil
	}
	var cps []Checkpoint
	if json.Unmarshal(v, &cps) != nil {
		return nil
	}
	return cps
}

// ValidSessionID reports whether id is a session id OpenClaw accepts for a transcript name
// (SAFE_SESSION_ID_RE, and <id>.jsonl must not look like a checkpoint file).
func ValidSessionID(id string) bool {
	id = strings.TrimSpace(id)
	if len(id) == 0 || len(id) > 128 { // SAFE_SESSION_ID_RE = ^[a-z0-9][a-z0-9._-]{0,127}$ (i)
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i] | 0x20 // ASCII lower case; maps no other byte into [a-z0-9._-] wrongly below
		ok := (c >= 'a' && c <= 'z') || (id[i] >= '0' && id[i] <= '9') || (i > 0 && (id[i] == '.' || id[i] == '_' || id[i] == '-'))
		if !ok {
			return false
		}
	}
	return Classify(id+".jsonl").Kind != KindCheckpoint
}

// DropReason says why a current gateway would drop this row on load (store.md §2.4 rule 7),
// or "" when it would keep it.
func (e Entry) DropReason() string {
	if e.Obj == nil {
		return "value is not an object"
	}
	if v, ok := e.Obj.Get("sessionId"); ok {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "sessionId is not a string"
		}
		if s != "" && !ValidSessionID(s) {
			return "sessionId is not a safe id"
		}
	}
	return ""
}

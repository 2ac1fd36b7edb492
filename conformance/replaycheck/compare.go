package replaycheck

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/clawdoctor/clawdoctor/hygiene"
	"github.com/clawdoctor/clawdoctor/replay"
)

// ReplayAnswer is the comparable part of a replay.mjs answer.
type ReplayAnswer struct {
	Error     string          `json:"error,omitempty"`
	Validated json.RawMessage `json:"validated,omitempty"`
}

// Verdict is the outcome of one comparison.
type Verdict struct {
	Equal bool
	// Diff is the first difference left ("" when Equal).
	Diff string
	// Deliberate names the deliberate differences that were set aside (conformance.md).
	Deliberate []string
}

// DeliberateImage is the one deliberate replay difference: OpenClaw re-encodes images over its
// limits as JPEG (with the host's image library, bytes that cannot be reproduced); replay
// keeps them and reports them (hygiene.TestOverLimitImagesKept pins it).
const DeliberateImage = "image over the limits kept, not re-encoded"

var imagePath = regexp.MustCompile(`^\[(\d+)\]\.content\[(\d+)\](?:\.|:|$)`)

// CompareReplay compares an oracle answer with our result: both failing (the OpenAI Responses
// invariant) is equal; otherwise the sent messages must be equal as JSON, except for
// deliberate differences.
func CompareReplay(want ReplayAnswer, got *replay.Result) Verdict {
	switch {
	case want.Error != "" && got.Error != "":
		return Verdict{Equal: true}
	case want.Error != "":
		return Verdict{Diff: "oracle throws (" + firstLine(want.Error) + "), ours sends " + strconv.Itoa(len(got.Messages)) + " messages"}
	case got.Error != "":
		return Verdict{Diff: "ours throws (" + got.Error + "), oracle sends its messages"}
	}
	var oracle []any
	if err := json.Unmarshal(want.Validated, &oracle); err != nil {
		return Verdict{Diff: "oracle answer has no messages: " + err.Error()}
	}
	ours := make([]any, len(got.Messages))
	for i, m := range got.Messages {
		ours[i] = hygiene.Plain(m)
	}
	v := Verdict{}
	for range 50 {
		d := FirstDiff(oracle, ours)
		if d == "" {
			v.Equal = true
			return v
		}
		if !setAsideImage(d, oracle, ours) {
			v.Diff = d
			return v
		}
		if len(v.Deliberate) == 0 {
			v.Deliberate = append(v.Deliberate, DeliberateImage)
		}
	}
	v.Diff = "too many differences"
	return v
}

// setAsideImage copies the oracle's block into ours when the first difference is inside an
// image block of ours that OpenClaw re-encodes.
func setAsideImage(diff string, oracle, ours []any) bool {
	m := imagePath.FindStringSubmatch(diff)
	if m == nil {
		return false
	}
	i, _ := strconv.Atoi(m[1])
	j, _ := strconv.Atoi(m[2])
	om, ok1 := at(oracle, i)
	um, ok2 := at(ours, i)
	if !ok1 || !ok2 {
		return false
	}
	oc, _ := om["content"].([]any)
	uc, _ := um["content"].([]any)
	if j >= len(oc) || j >= len(uc) {
		return false
	}
	ub, ok := uc[j].(map[string]any)
	if !ok || ub["type"] != "image" || !hygiene.ImageOverLimits(ub) {
		return false
	}
	nc := append([]any(nil), uc...)
	nc[j] = oc[j]
	nm := map[string]any{}
	for k, x := range um {
		nm[k] = x
	}
	nm["content"] = nc
	ours[i] = nm
	return true
}

func at(list []any, i int) (map[string]any, bool) {
	if i >= len(list) {
		return nil, false
	}
	m, ok := list[i].(map[string]any)
	return m, ok
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// Digest is a short hash of a value's canonical JSON (12 hex digits).
func Digest(v any) string {
	b, err := Canonical(v)
	if err != nil {
		return "invalid"
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:6])
}

// Shape renders the structure of sent messages without any text: role initials and block
// types, e.g. "C u a[th,tc] r u". It goes into goldens beside the digest to make a digest
// mismatch readable.
func Shape(msgs []any) string {
	var parts []string
	for _, x := range msgs {
		m, ok := x.(map[string]any)
		if !ok {
			parts = append(parts, "?")
			continue
		}
		role, _ := m["role"].(string)
		s := map[string]string{"user": "u", "assistant": "a", "toolResult": "r", "compactionSummary": "C",
			"branchSummary": "B", "custom": "x", "bashExecution": "b"}[role]
		if s == "" {
			s = "(" + role + ")"
		}
		if c, ok := m["content"].([]any); ok && role == "assistant" {
			var bt []string
			for _, b := range c {
				bm, _ := b.(map[string]any)
				t, _ := bm["type"].(string)
				bt = append(bt, map[string]string{"text": "t", "thinking": "th", "redacted_thinking": "rth", "toolCall": "tc",
					"toolUse": "tu", "functionCall": "fc", "image": "i"}[t])
			}
			s += "[" + strings.Join(bt, ",") + "]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// AnswerDigest is the digest of what an oracle replay answer says: "throws" or the digest of
// the sent messages.
func AnswerDigest(a ReplayAnswer) (digest, shape string) {
	if a.Error != "" {
		return "throws", "-"
	}
	var msgs []any
	_ = json.Unmarshal(a.Validated, &msgs)
	return Digest(msgs), Shape(msgs)
}

// OursDigest is AnswerDigest for our result.
func OursDigest(res *replay.Result) (digest, shape string) {
	if res.Error != "" {
		return "throws", "-"
	}
	msgs := make([]any, len(res.Messages))
	for i, m := range res.Messages {
		msgs[i] = hygiene.Plain(m)
	}
	return Digest(msgs), Shape(msgs)
}

func describe(v Verdict) string {
	switch {
	case !v.Equal:
		return "differs: " + v.Diff
	case len(v.Deliberate) > 0:
		return fmt.Sprintf("equal (deliberate: %s)", strings.Join(v.Deliberate, "; "))
	}
	return "equal"
}

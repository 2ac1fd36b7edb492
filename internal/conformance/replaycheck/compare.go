package replaycheck

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/hygiene"
	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/internal/replay"
	"github.com/clawdoctor/clawdoctor/internal/session"
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

// DeliberateUndecodable is the other: OpenClaw 2026.3.13 reads every image with libvips and
// replaces one it cannot read by "[session:history] omitted image payload: Error: <libvips'
// error>", a text that cannot be reproduced; replay keeps the image and its images step says
// so (hygiene.ImageDecodeError). Set aside only where Go's full decode of our block fails too.
const DeliberateUndecodable = "image libvips cannot read kept (2026.3.13), not replaced by its error text"

// DeliberateCycleHang: OpenClaw 2026.3.13 and 2026.4.24 never return on a transcript whose
// parentId links loop (pi's branch walk has no guard; the process spins, its memory growing,
// until killed); the driver is killed after Oracle.Stall. Ours stops at the cycle, as 2026.6.11
// does (session.Index.Cycles, session.TestIndexCycles; TestStalledVerdict). Set aside only where the input has a cycle.
const DeliberateCycleHang = "parentId cycle: OpenClaw never returns (its branch walk loops), ours stops at the cycle"

// stalledVerdict is the verdict on an input the oracle never answered (IsStalled).
func stalledVerdict(ctx context.Context, in Input) Verdict {
	data, err := in.ReadData()
	if err != nil {
		return Verdict{Diff: "oracle gave no answer; input unreadable: " + err.Error()}
	}
	x, err := session.BuildIndex(ctx, bytes.NewReader(data), in.Key, session.IndexOptions{})
	if err != nil || len(x.Cycles()) == 0 {
		return Verdict{Diff: "oracle gave no answer (driver killed after the stall timeout) and the input has no parentId cycle"}
	}
	return Verdict{Equal: true, Deliberate: []string{DeliberateCycleHang}}
}

const libvipsNote = "[session:history] omitted image payload: Error: "

var imagePath = regexp.MustCompile(`^\[(\d+)\]\.content\[(\d+)\](?:\.|:|$)`)

// CompareReplay compares an oracle answer with our result: both failing (the OpenAI Responses
// invariant) is equal; otherwise the sent messages must be equal as JSON, except for
// deliberate differences.
func CompareReplay(want ReplayAnswer, got *replay.Result, release string) Verdict {
	switch {
	case want.Error != "" && got.Error != "":
		return Verdict{Equal: true}
	case want.Error != "":
		return Verdict{Diff: "oracle throws (" + firstLine(want.Error) + "), ours sends " + strconv.Itoa(len(got.Messages)) + " messages"}
	case got.Error != "":
		return Verdict{Diff: "ours throws (" + got.Error + "), oracle sends its messages"}
	}
	oracle, err := decodeList(want.Validated)
	if err != nil {
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
		kind := setAsideImage(d, oracle, ours, release)
		if kind == "" {
			v.Diff = d
			return v
		}
		if !slices.Contains(v.Deliberate, kind) {
			v.Deliberate = append(v.Deliberate, kind)
		}
	}
	v.Diff = "too many differences"
	return v
}

// setAsideImage copies the oracle's block into ours when the first difference is inside an
// image block of ours that OpenClaw re-encodes (or, in 2026.3.13, replaces by libvips' error),
// and says which deliberate difference it was ("" when it was none).
func setAsideImage(diff string, oracle, ours []any, release string) string {
	m := imagePath.FindStringSubmatch(diff)
	if m == nil {
		return ""
	}
	i, _ := strconv.Atoi(m[1])
	j, _ := strconv.Atoi(m[2])
	om, ok1 := at(oracle, i)
	um, ok2 := at(ours, i)
	if !ok1 || !ok2 {
		return ""
	}
	oc, _ := om["content"].([]any)
	uc, _ := um["content"].([]any)
	if j >= len(oc) || j >= len(uc) {
		return ""
	}
	ub, ok := uc[j].(map[string]any)
	if !ok || ub["type"] != "image" {
		return ""
	}
	ob, _ := oc[j].(map[string]any)
	var kind string
	switch {
	case release == "2026.3.13" && ob["type"] == "text" && strings.HasPrefix(str(ob["text"]), libvipsNote) && hygiene.ImageDecodeError(ub) != nil:
		kind = DeliberateUndecodable
	case hygiene.ImageOverLimits(ub):
		kind = DeliberateImage
	default:
		return ""
	}
	nc := append([]any(nil), uc...)
	nc[j] = oc[j]
	nm := map[string]any{}
	for k, x := range um {
		nm[k] = x
	}
	nm["content"] = nc
	ours[i] = nm
	return kind
}

func str(v any) string { s, _ := v.(string); return s }

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
	msgs, _ := decodeList(a.Validated)
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

// decodeList decodes the oracle's message list as JavaScript reads it (jsonobj.DecodeJS: a
// lone surrogate stays itself, where encoding/json made it U+FFFD).
func decodeList(raw json.RawMessage) ([]any, error) {
	v, err := jsonobj.DecodeJS(bytes.TrimSpace(raw))
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("not a list")
	}
	return l, nil
}

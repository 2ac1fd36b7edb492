// Package repaircheck compares clawdoctor's repair with the real OpenClaw's
// repairSessionFileIfNeeded (driver internal/conformance/oracle/repair.mjs) byte for byte.
//
// Equal means the same bytes after the call (only the random part of the ids of synthetic
// entries normalised; both clocks are pinned to the same instant) and the same counters.
// Anything else must be one of the deliberate differences of docs/conformance.md, told apart
// strictly:
//   - serialisation: the two files hold the same lines as JavaScript reads them (JSON.parse of
//     each non-blank line, decoded as Node decodes it), but OpenClaw rewrote every line with
//     JSON.stringify while clawdoctor kept the bytes (CRLF, blank lines, key spelling, number
//     forms, invalid UTF-8) or added a final newline;
//   - salvage: clawdoctor kept data OpenClaw drops (a BOM before the header, NUL bytes inside a
//     line, glued values, an entry after a torn fragment). Then the real OpenClaw is given the
//     input with only that salvage applied (repair.Options.SalvageOnly), and its output must
//     be clawdoctor's, up to serialisation.
//
// Every other difference is reported with the first line that differs.
package repaircheck

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/clawdoctor/clawdoctor/internal/conformance/harness"
	"github.com/clawdoctor/clawdoctor/internal/conformance/jsjson"
	"github.com/clawdoctor/clawdoctor/internal/openclaw"
	"github.com/clawdoctor/clawdoctor/repair"
)

// Now is the instant both sides' clocks are pinned to.
var Now = time.Date(2026, 5, 5, 12, 0, 0, 0, time.UTC)

// Engine is the repair comparison.
type Engine struct{}

// Name implements harness.Engine.
func (Engine) Name() string { return "repair" }

// Driver implements harness.Engine.
func (Engine) Driver() string { return "repair.mjs" }

// answer is the driver's answer to a repair request.
type answer struct {
	Result struct {
		Repaired                    bool   `json:"repaired"`
		DroppedLines                int    `json:"droppedLines"`
		RewrittenAssistantMessages  int    `json:"rewrittenAssistantMessages"`
		RewrittenUserMessages       int    `json:"rewrittenUserMessages"`
		DroppedBlankUserMessages    int    `json:"droppedBlankUserMessages"`
		RemovedCorruptedImageBlocks int    `json:"removedCorruptedImageBlocks"`
		InsertedToolResults         int    `json:"insertedToolResults"`
		Reason                      string `json:"reason"`
	} `json:"result"`
	Out *string `json:"out"`
}

// Oracle asks the real repair about data and returns the bytes it leaves and its report.
func Oracle(ctx context.Context, o harness.Caller, data []byte) ([]byte, answer, error) {
	raw, err := o.Call(ctx, harness.Request{"data": base64.StdEncoding.EncodeToString(data), "now": Now.UnixMilli()})
	if err != nil {
		return nil, answer{}, err
	}
	var a answer
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, a, fmt.Errorf("driver answer: %v", err)
	}
	if a.Out == nil {
		return data, a, nil
	}
	out, err := base64.StdEncoding.DecodeString(*a.Out)
	return out, a, err
}

// LoadAnswer is what the real SessionManager.open makes of a file (the driver's "load").
type LoadAnswer struct {
	Entries  int     `json:"entries"`
	Messages int     `json:"messages"`
	Header   bool    `json:"header"`
	Out      *string `json:"out"`
}

// Load asks the real loader about data; after is the file's bytes once opened.
func Load(ctx context.Context, o harness.Caller, data []byte) (LoadAnswer, []byte, error) {
	raw, err := o.Call(ctx, harness.Request{"op": "load", "data": base64.StdEncoding.EncodeToString(data)})
	if err != nil {
		return LoadAnswer{}, nil, err
	}
	var a LoadAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, nil, fmt.Errorf("driver answer: %v", err)
	}
	if a.Out == nil {
		return a, data, nil
	}
	after, err := base64.StdEncoding.DecodeString(*a.Out)
	return a, after, err
}

// Ours repairs data as `clawdoctor repair` would for release rel, in memory.
func Ours(data []byte, rel openclaw.Release, salvageOnly bool) ([]byte, *repair.Plan, error) {
	var n atomic.Int64
	opts := repair.Options{Now: Now, Release: rel, SalvageOnly: salvageOnly, NewID: func() string {
		return fmt.Sprintf("repair-00000000-0000-4000-8000-%012x", n.Add(1))
	}}
	p, err := repair.PlanBytes(data, "session.jsonl", opts)
	if err != nil {
		return nil, nil, err
	}
	if !p.Changed() {
		return data, p, nil
	}
	var out bytes.Buffer
	if _, err := repair.Apply(context.Background(), p, bytes.NewReader(data), &out); err != nil {
		return nil, nil, err
	}
	return out.Bytes(), p, nil
}

// Check implements harness.Engine.
func (Engine) Check(ctx context.Context, o harness.Caller, rel openclaw.Release, in harness.Input) harness.Verdict {
	if d := canonCheck(ctx, o, in.Data); d != "" {
		return harness.Verdict{Kind: harness.Failed, Detail: d}
	}
	theirs, ans, err := Oracle(ctx, o, in.Data)
	if err != nil {
		return harness.Verdict{Kind: harness.Failed, Detail: "oracle: " + err.Error()}
	}
	if in.Set == "fixture" {
		// What the loader makes of each fixture backs the texts that say what OpenClaw
		// does (TestClaims); asking here puts the answers in the recordings.
		if _, _, err := Load(ctx, o, in.Data); err != nil {
			return harness.Verdict{Kind: harness.Failed, Detail: "oracle load: " + err.Error()}
		}
	}
	ours, plan, err := Ours(in.Data, rel, false)
	if err != nil {
		return harness.Verdict{Kind: harness.Failed, Detail: "clawdoctor: " + err.Error()}
	}
	ours, theirs = normalizeIDs(ours), normalizeIDs(theirs)
	why := salvaged(plan)
	if bytes.Equal(ours, theirs) {
		d := countsDiffer(plan, ans, !bytes.Equal(ours, in.Data))
		if d == "" {
			return harness.Verdict{Kind: harness.Equal}
		}
		if len(why) == 0 {
			return harness.Verdict{Kind: harness.Differ, Detail: d}
		}
		if plan.Skip != "" && ans.Result.Reason != "" {
			// Neither side writes a file without a header; we count as salvaged lines
			// OpenClaw counts as dropped.
			return harness.Verdict{Kind: harness.Deliberate, Detail: "salvage: " + strings.Join(why, ", ") + " (counts only: neither side writes)"}
		}
		// We would salvage what OpenClaw counts as dropped: its counts on the salvaged input
		// must be ours.
		s, _, err := Ours(in.Data, rel, true)
		if err != nil {
			return harness.Verdict{Kind: harness.Failed, Detail: "clawdoctor salvage: " + err.Error()}
		}
		_, ans2, err := Oracle(ctx, o, s)
		if err != nil {
			return harness.Verdict{Kind: harness.Failed, Detail: "oracle on the salvaged input: " + err.Error()}
		}
		if d2 := countsDiffer(plan, ans2, !bytes.Equal(ours, in.Data)); d2 != "" {
			return harness.Verdict{Kind: harness.Differ, Detail: d + "; after salvage: " + d2}
		}
		return harness.Verdict{Kind: harness.Deliberate, Detail: "salvage: " + strings.Join(why, ", ") + " (counts only: the same bytes)"}
	}
	if jsjson.File(ours) == jsjson.File(theirs) {
		return harness.Verdict{Kind: harness.Deliberate, Detail: serialisation(ours, theirs, in.Data)}
	}
	if len(why) == 0 {
		return harness.Verdict{Kind: harness.Differ, Detail: firstDifference(ours, theirs, in.Private)}
	}
	// Give the real repair our salvage alone; what it makes of that must be ours.
	s, _, err := Ours(in.Data, rel, true)
	if err != nil {
		return harness.Verdict{Kind: harness.Failed, Detail: "clawdoctor salvage: " + err.Error()}
	}
	theirs2, _, err := Oracle(ctx, o, s)
	if err != nil {
		return harness.Verdict{Kind: harness.Failed, Detail: "oracle on the salvaged input: " + err.Error()}
	}
	theirs2 = normalizeIDs(theirs2)
	if jsjson.File(ours) != jsjson.File(theirs2) {
		return harness.Verdict{Kind: harness.Differ, Detail: "after salvage (" + strings.Join(why, ", ") + "): " + firstDifference(ours, theirs2, in.Private)}
	}
	detail := "salvage: " + strings.Join(why, ", ")
	if !bytes.Equal(ours, theirs2) {
		detail += "; " + serialisation(ours, theirs2, s)
	}
	return harness.Verdict{Kind: harness.Deliberate, Detail: detail}
}

var repairID = regexp.MustCompile(`"repair-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"`)

// normalizeIDs numbers the ids of synthetic entries by order of appearance: both sides make
// them random (the driver's are counted, but in its own order).
func normalizeIDs(b []byte) []byte {
	n := 0
	return repairID.ReplaceAllFunc(b, func([]byte) []byte {
		n++
		return []byte(`"repair-#` + strconv.Itoa(n) + `"`)
	})
}

// countsDiffer compares our counters with OpenClaw's report when the bytes agree.
func countsDiffer(p *repair.Plan, a answer, changed bool) string {
	r, c := a.Result, p.Counts
	type pair struct {
		name        string
		ours, their int
	}
	var bad []string
	for _, x := range []pair{
		{"droppedLines", c.DroppedLines, r.DroppedLines},
		{"rewrittenAssistantMessages", c.RewrittenAssistantMessages, r.RewrittenAssistantMessages},
		{"rewrittenUserMessages", c.RewrittenUserMessages, r.RewrittenUserMessages},
		{"removedCorruptedImageBlocks", c.RemovedCorruptImageBlocks, r.RemovedCorruptedImageBlocks},
		{"insertedToolResults", c.InsertedToolResults, r.InsertedToolResults},
	} {
		// OpenClaw reports its counters when it wrote; when it gave up (empty file, no
		// header) only droppedLines; when there was nothing to do, zeros whatever it saw.
		if r.Repaired || (r.Reason != "" && x.name == "droppedLines") {
			if x.ours != x.their {
				bad = append(bad, fmt.Sprintf("%s %d vs OpenClaw %d", x.name, x.ours, x.their))
			}
		}
	}
	if changed != r.Repaired {
		bad = append(bad, fmt.Sprintf("changed %v vs OpenClaw repaired %v", changed, r.Repaired))
	}
	if len(bad) == 0 {
		return ""
	}
	return "same bytes, other counts: " + strings.Join(bad, ", ")
}

// salvaged lists what our plan kept that OpenClaw drops, from the plan's reasons.
func salvaged(p *repair.Plan) []string {
	seen := map[string]bool{}
	for _, ch := range p.Changes {
		switch {
		case ch.Action == "strip-bom" || strings.Contains(ch.Reason, "byte order mark"):
			seen["BOM stripped"] = true
		}
		if ch.Action != "salvage" {
			continue
		}
		if strings.Contains(ch.Reason, "NUL bytes removed") {
			seen["NUL bytes removed"] = true
		}
		if strings.Contains(ch.Reason, "glued JSON values split") {
			seen["glued values split"] = true
		}
		if strings.Contains(ch.Reason, "after a torn fragment") {
			seen["entry after a torn fragment kept"] = true
		}
	}
	if p.MoreChanges > 0 {
		seen["more changes than listed"] = true
	}
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// serialisation names how two files that JavaScript reads alike differ in bytes. theirs is
// OpenClaw's file, in the input it started from.
func serialisation(ours, theirs, in []byte) string {
	var what []string
	add := func(s string) {
		for _, w := range what {
			if w == s {
				return
			}
		}
		what = append(what, s)
	}
	rewrote := !bytes.Equal(theirs, in)
	if !rewrote && bytes.Equal(ours, append(bytes.Clone(in), '\n')) {
		return "serialisation: final newline added"
	}
	if bytes.Contains(ours, []byte("\r\n")) && !bytes.Contains(theirs, []byte("\r\n")) {
		add("CRLF kept")
	}
	ol, tl := nonBlank(ours), nonBlank(theirs)
	if len(jsjson.Lines(string(ours))) > len(ol)+1 && rewrote {
		add("blank lines kept")
	}
	for i := range ol {
		if i < len(tl) && ol[i] != tl[i] {
			if !utf8.ValidString(ol[i]) {
				add("invalid UTF-8 kept")
			} else {
				add("line bytes kept")
			}
		}
	}
	if !bytes.HasSuffix(theirs, []byte("\n")) && bytes.HasSuffix(ours, []byte("\n")) {
		add("final newline added")
	}
	if len(what) == 0 {
		add("line bytes kept")
	}
	return "serialisation: " + strings.Join(what, ", ")
}

func nonBlank(b []byte) []string {
	var out []string
	for _, l := range jsjson.Lines(string(b)) {
		if !jsjson.Blank(l) {
			out = append(out, l)
		}
	}
	return out
}

// firstDifference describes the first line where the two files differ as JavaScript reads them.
func firstDifference(ours, theirs []byte, private bool) string {
	o := strings.Split(jsjson.File(ours), "\n")
	t := strings.Split(jsjson.File(theirs), "\n")
	for i := 0; i < len(o) || i < len(t); i++ {
		var a, b string
		if i < len(o) {
			a = o[i]
		}
		if i < len(t) {
			b = t[i]
		}
		if a == b {
			continue
		}
		if private {
			return fmt.Sprintf("non-blank line %d differs (%d vs %d bytes; content not shown: private input)", i+1, len(a), len(b))
		}
		return fmt.Sprintf("non-blank line %d: clawdoctor %s, OpenClaw %s", i+1, preview(a), preview(b))
	}
	return "bytes differ"
}

func preview(s string) string {
	if s == "" {
		return "(none)"
	}
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return strconv.Quote(s)
}

// canonCheck asks V8 for JSON.stringify(JSON.parse(line)) of every line of data and compares
// with jsjson's model: the serialisation verdicts rest on it.
func canonCheck(ctx context.Context, o harness.Caller, data []byte) string {
	raw, err := o.Call(ctx, harness.Request{"op": "canon", "data": base64.StdEncoding.EncodeToString(data)})
	if err != nil {
		return "oracle canon: " + err.Error()
	}
	var a struct {
		Lines []struct {
			S     *string `json:"s"`
			Same  bool    `json:"same"`
			Blank bool    `json:"blank"`
			Err   bool    `json:"err"`
		} `json:"lines"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return "oracle canon answer: " + err.Error()
	}
	ls := jsjson.Lines(jsjson.Decode(data))
	if len(ls) != len(a.Lines) {
		return fmt.Sprintf("jsjson splits into %d lines, Node into %d", len(ls), len(a.Lines))
	}
	for i, l := range ls {
		w := a.Lines[i]
		blank := jsjson.Blank(l)
		c, cerr := jsjson.Canon(l)
		switch {
		case blank != w.Blank:
			return fmt.Sprintf("line %d: jsjson blank=%v, Node blank=%v", i+1, blank, w.Blank)
		case blank:
		case (cerr != nil) != w.Err:
			return fmt.Sprintf("line %d: jsjson parse error=%v, Node=%v", i+1, cerr != nil, w.Err)
		case cerr == nil && w.Same && c != l, cerr == nil && !w.Same && (w.S == nil || c != *w.S):
			return fmt.Sprintf("line %d: jsjson and V8 stringify differently", i+1)
		}
	}
	return ""
}

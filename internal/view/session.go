package view

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/clawdoctor/clawdoctor/internal/audit"
	"github.com/clawdoctor/clawdoctor/internal/session"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// dataVersion is the version of the page data format (the JSON the page's script reads).
const dataVersion = 1

// sessionData is everything a session page shows. It is encoded as JSON, gzip'ed and
// embedded in the page; long texts live in separate compressed chunks (see texts).
type sessionData struct {
	Version   int          `json:"v"`
	Title     string       `json:"title"`
	File      string       `json:"file"`
	Redacted  bool         `json:"redacted"`
	Generated string       `json:"generated"`
	Back      string       `json:"back,omitempty"` // link to the state-dir page
	Header    *headerRec   `json:"header"`
	Stats     statsRec     `json:"stats"`
	Models    []string     `json:"models"` // "provider/model", indexed by entryRec.M-1
	Entries   []entryRec   `json:"entries"`
	Layout    layout       `json:"layout"`
	Findings  []findingRec `json:"findings"`
	Problems  []problemRec `json:"problems"`
	Replays   []replayRec  `json:"replays"`
	Omitted   int          `json:"omittedTexts"` // texts without their full form (budget spent)
	MaxText   int          `json:"maxText"`
	Notes     []string     `json:"notes"`
}

type headerRec struct {
	ID            string    `json:"id"`
	Timestamp     string    `json:"ts"`
	Version       *int      `json:"version,omitempty"`
	Cwd           *textPart `json:"cwd,omitempty"`
	ParentSession *textPart `json:"parent,omitempty"`
	Line          int64     `json:"line"`
}

type statsRec struct {
	Entries   int   `json:"entries"`
	Lines     int64 `json:"lines"`
	Bytes     int64 `json:"bytes"`
	Active    int   `json:"active"`
	Roots     int   `json:"roots"`
	Dangling  int   `json:"dangling"`
	Cycles    int   `json:"cycles"`
	DupIDs    int   `json:"dupIds"`
	Branches  int   `json:"branches"`
	Blank     int64 `json:"blank"`
	Leaf      int   `json:"leaf"` // entry index of the active leaf, -1 none
	Unreached int   `json:"unreached"`
}

// textPart is a text as the page shows it: a preview (or, redacted, its length and hash), its
// length in characters, and where its full form is when the preview is shorter.
type textPart struct {
	X string   `json:"x"`
	N int      `json:"n"`
	T *textRef `json:"t,omitempty"`
}

// entry flags (entryRec.Fl)
const (
	flActive = 1 << iota
	flSide
	flCycle
	flDupID
	flLeaf
)

type entryRec struct {
	ID  string      `json:"id"`
	P   int32       `json:"p"` // parent entry, -1 root, -2 dangling
	PID string      `json:"pid,omitempty"`
	L   int64       `json:"l"`
	Sz  int64       `json:"sz"`
	T   string      `json:"t"`
	R   string      `json:"r,omitempty"`
	Ts  int64       `json:"ts,omitempty"` // ms since the epoch
	M   int         `json:"m,omitempty"`  // model, 1-based into sessionData.Models
	U   *[5]float64 `json:"u,omitempty"`  // usage: input, output, cacheRead, cacheWrite, totalTokens
	St  string      `json:"st,omitempty"` // stopReason
	Er  *textPart   `json:"er,omitempty"` // errorMessage
	B   []part      `json:"b,omitempty"`  // content
	TR  *toolResult `json:"tr,omitempty"`
	X   *textPart   `json:"x,omitempty"`  // summary, label, name, custom data
	In  string      `json:"in,omitempty"` // structural detail: model, thinking level, custom type, target
	C   *compRec    `json:"c,omitempty"`
	F   []int       `json:"f,omitempty"` // findings on this entry
	Fl  int         `json:"fl,omitempty"`
}

type part struct {
	K string `json:"k"` // text, thinking, call, image, other
	textPart
	ID  string `json:"id,omitempty"`  // tool call id
	Nm  string `json:"nm,omitempty"`  // tool name, block type (other) or MIME type (image)
	Res int32  `json:"res,omitempty"` // result entry + 1 (calls), 0 when none was found
	Img string `json:"img,omitempty"` // thumbnail data: URL
	Sz  int    `json:"sz,omitempty"`  // decoded image bytes
}

type toolResult struct {
	ID   string `json:"id"`
	Tool string `json:"tool,omitempty"`
	Err  bool   `json:"err,omitempty"`
	Call int32  `json:"call"` // calling entry + 1, 0 when no earlier call has the id
}

// compRec is a compaction: what it kept and summarised on its own path, and the context
// size before (stored) and after (the usage of the next assistant turn on the active path).
type compRec struct {
	FirstKept string   `json:"fk,omitempty"`
	Kept      *[3]int  `json:"keep,omitempty"` // first, last entry and count on the path
	Summed    *[3]int  `json:"sum,omitempty"`
	Before    *float64 `json:"before,omitempty"`
	After     float64  `json:"after,omitempty"`
	AfterAt   int32    `json:"afterAt,omitempty"` // entry + 1 the after figure comes from
	Hook      bool     `json:"hook,omitempty"`
}

type findingRec struct {
	Rule string         `json:"rule"`
	Sev  string         `json:"sev"`
	Line int64          `json:"line,omitempty"`
	E    int32          `json:"e"` // entry index, -1 when the finding names no entry
	Msg  string         `json:"msg"`
	Ev   map[string]any `json:"ev,omitempty"`
	Path string         `json:"path,omitempty"` // when it is about another file (a gateway log)
}

type problemRec struct {
	Line int64  `json:"line"`
	Kind string `json:"kind"`
	Size int64  `json:"size"`
}

// sessionInput is what buildSession needs besides the transcript.
type sessionInput struct {
	Path    string // the transcript (plain, gzip or zstd)
	Display string // how the page names it
	// Findings returns the audit findings for this transcript (and gateway logs); it may wait
	// for an audit running beside the page build.
	Findings func() ([]audit.Finding, error)
	Back     string // link to the state-dir page, "" for none
}

// builder fills one session page.
type builder struct {
	o       Options
	red     *redactor // nil unless Options.Redact
	tx      *texts
	models  map[string]int
	d       *sessionData
	calls   map[string][2]int32 // tool-call id → entry, part
	thumbs  int
	preview int
}

func (o Options) withDefaults() Options {
	if o.MaxText <= 0 {
		o.MaxText = DefaultMaxText
	}
	if o.TextBudget <= 0 {
		o.TextBudget = DefaultTextBudget
	}
	if o.Preview <= 0 {
		o.Preview = DefaultPreview
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	return o
}

// buildSession reads one transcript through session's tree index (one pass to index, one
// to decode) and builds its page data. Findings come from audit, the replays from replay.
func buildSession(ctx context.Context, in sessionInput, o Options, red *redactor) (*sessionData, *texts, error) {
	idx, err := session.IndexFile(ctx, in.Path, session.IndexOptions{}, nil)
	if err != nil {
		return nil, nil, err
	}
	n := idx.Len()
	b := &builder{o: o, red: red, tx: newTexts(o.MaxText, o.TextBudget), models: map[string]int{},
		calls: map[string][2]int32{}, preview: o.Preview}
	d := &sessionData{Version: dataVersion, File: in.Display, Redacted: red != nil, Back: in.Back,
		Generated: o.Now.UTC().Format(time.RFC3339), Models: []string{}, Findings: []findingRec{},
		Problems: []problemRec{}, Replays: []replayRec{}, Notes: []string{}, MaxText: o.MaxText}
	b.d = d
	if h, line := idx.Header(); h != nil {
		d.Header = &headerRec{ID: h.ID, Timestamp: h.Timestamp, Version: h.Version, Line: line,
			Cwd: b.textOrNil(h.Cwd), ParentSession: b.textOrNil(h.ParentSession)}
		d.Title = h.ID
	}
	if d.Title == "" {
		d.Title = filepath.Base(in.Path)
	}
	active := make([]bool, n)
	path := idx.ActivePath()
	for _, i := range path {
		active[i] = true
	}
	d.Entries = make([]entryRec, n)
	for i := range n {
		nd := idx.Node(i)
		r := &d.Entries[i]
		r.ID, r.P, r.L, r.Sz, r.T, r.R = nd.ID, int32(nd.Parent), nd.Line, nd.Size, nd.Type, nd.Role
		if nd.Parent == session.Dangling {
			r.PID = nd.ParentID
		}
		if active[i] {
			r.Fl |= flActive
		}
		if nd.Side {
			r.Fl |= flSide
		}
		if nd.InCycle {
			r.Fl |= flCycle
		}
	}
	for _, dup := range idx.Duplicates() {
		for _, i := range dup.Entries {
			d.Entries[i].Fl |= flDupID
		}
	}
	leaf := idx.ActiveLeaf()
	if leaf >= 0 {
		d.Entries[leaf].Fl |= flLeaf
	}

	targets, complete := replayTargets(o, idx, in.Path)
	if o.Replays == nil && n > BigSession {
		d.Notes = append(d.Notes, fmt.Sprintf("a session of %d entries: only %s is replayed by default (each replay costs about one audit of the file); choose others with --replay provider/model", n, targets[0]))
	}
	started := startReplays(ctx, in.Path, targets, o.Now.UnixMilli())
	wait := func() { <-started } // on an early return, let the replays finish before the file goes
	f, err := jsonl.Open(in.Path, nil)
	if err != nil {
		wait()
		return nil, nil, err
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	err = idx.StreamEntries(ctx, f, all, func(i int, e *session.Entry) error {
		b.entry(i, e)
		return nil
	})
	f.Close()
	if err != nil {
		wait()
		return nil, nil, fmt.Errorf("%s: %w", in.Path, err)
	}
	b.compactions(idx, path)

	d.Layout = layoutTree(idx, active)
	branches := 0
	for _, s := range d.Layout.Span {
		if s > 0 {
			branches++
		}
	}
	d.Stats = statsRec{Entries: n, Lines: idx.Lines(), Bytes: idx.Bytes(), Active: len(path), Roots: len(idx.Roots()),
		Dangling: len(idx.Dangling()), Cycles: len(idx.Cycles()), DupIDs: len(idx.Duplicates()), Branches: branches,
		Blank: idx.Blank(), Leaf: leaf, Unreached: d.Layout.Unreached}
	for _, p := range idx.Problems() {
		d.Problems = append(d.Problems, problemRec{Line: p.Line, Kind: p.Kind.String(), Size: p.Size})
	}
	fs, err := in.Findings()
	if err != nil {
		wait()
		return nil, nil, err
	}
	b.findings(idx, in.Path, fs)
	b.replays(ctx, idx, in.Path, started, complete)
	if red != nil {
		red.sessionIDs(d)
	}
	d.Omitted = b.tx.omitted
	if b.tx.omitted > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("%d long text(s) are shown as previews only: the page's budget of %s of full texts was spent (raise --text-budget)", b.tx.omitted, fmt.Sprintf("%.1f MiB", float64(o.TextBudget)/(1<<20))))
	}
	return d, b.tx, nil
}

// text puts s in the page: a preview and, when the preview is shorter, a reference to the
// full text; redacted, only its length and hash.
func (b *builder) text(s string) textPart {
	n := utf8.RuneCountInString(s)
	if b.red != nil {
		return textPart{X: b.red.text(s), N: n}
	}
	p, cut := preview(s, b.preview)
	tp := textPart{X: p, N: n}
	if cut || (len(s) > len(p) && strings.ContainsAny(s, "\n\t")) {
		tp.T = b.tx.add(s)
	}
	return tp
}

func (b *builder) textOrNil(s string) *textPart {
	if s == "" {
		return nil
	}
	t := b.text(s)
	return &t
}

// jsonText is text for a JSON value (tool arguments, custom data): compact, redacted
// value by value when redacting.
func (b *builder) jsonText(raw []byte) *textPart {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if b.red != nil {
		t := textPart{X: string(b.red.redactJSON(raw)), N: utf8.RuneCount(raw)}
		return &t
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		buf.Reset()
		buf.Write(raw)
	}
	t := b.text(buf.String())
	return &t
}

func (b *builder) model(provider, model string) int {
	if provider == "" && model == "" {
		return 0
	}
	k := provider + "/" + model
	if i, ok := b.models[k]; ok {
		return i
	}
	b.d.Models = append(b.d.Models, k)
	b.models[k] = len(b.d.Models)
	return len(b.d.Models)
}

// isoMillis parses an entry timestamp (ISO-8601) to epoch ms, 0 when it does not parse.
func isoMillis(s string) int64 {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z07", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMilli()
		}
	}
	return 0
}

func rawMillis(raw json.RawMessage) int64 {
	var f float64
	if json.Unmarshal(raw, &f) == nil && f > 0 {
		if f < 1e11 {
			f *= 1000 // seconds
		}
		return int64(f)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return isoMillis(s)
	}
	return 0
}

func (b *builder) entry(i int, e *session.Entry) {
	r := &b.d.Entries[i]
	r.Ts = isoMillis(e.Timestamp)
	switch e.Type {
	case session.TypeMessage:
		b.message(i, r, e.Message)
	case session.TypeCompaction:
		r.X = b.textOrNil(e.Summary)
		r.C = &compRec{FirstKept: e.FirstKeptEntryID, Before: e.TokensBefore, Hook: e.FromHook}
	case session.TypeBranchSummary:
		r.X = b.textOrNil(e.Summary)
		r.In = e.FromID
	case session.TypeModelChange:
		r.M = b.model(e.Provider, e.ModelID)
		r.In = e.Provider + "/" + e.ModelID
	case session.TypeThinkingLevelChange:
		r.In = e.ThinkingLevel
	case session.TypeCustom:
		r.In = e.CustomType
		if e.CustomType == "model-snapshot" {
			var snap struct{ Provider, ModelID, ModelAPI string }
			if json.Unmarshal(e.Data, &snap) == nil {
				r.M = b.model(snap.Provider, snap.ModelID)
				r.In += " " + snap.Provider + "/" + snap.ModelID + " (" + snap.ModelAPI + ")"
			}
		} else {
			r.X = b.jsonText(e.Data)
		}
	case session.TypeCustomMessage:
		r.In = e.CustomType
		var c session.Content
		if len(e.Content) > 0 && c.UnmarshalJSON(e.Content) == nil {
			r.B = b.content(i, &c)
		}
	case session.TypeLabel:
		if e.TargetID != nil {
			r.In = *e.TargetID
		}
		if e.Label != nil {
			r.X = b.textOrNil(*e.Label)
		}
	case session.TypeSessionInfo:
		r.X = b.textOrNil(e.Name)
	case session.TypeLeaf:
		if e.TargetID != nil {
			r.In = *e.TargetID
		}
	default:
		r.X = b.jsonText(e.Raw)
	}
}

func (b *builder) message(i int, r *entryRec, m *session.Message) {
	if m == nil {
		return
	}
	if r.Ts == 0 {
		r.Ts = rawMillis(m.Timestamp)
	}
	switch m.Role {
	case session.RoleAssistant:
		r.M = b.model(m.Provider, m.Model)
		if u := m.Usage; u != nil {
			r.U = &[5]float64{u.Input, u.Output, u.CacheRead, u.CacheWrite, u.TotalTokens}
		}
		r.St = m.StopReason
		r.Er = b.textOrNil(m.ErrorMessage)
	case session.RoleToolResult:
		r.TR = &toolResult{ID: m.ResultID(), Tool: m.ToolName, Err: m.IsError}
		if loc, ok := b.calls[r.TR.ID]; ok && r.TR.ID != "" {
			r.TR.Call = loc[0] + 1
			b.d.Entries[loc[0]].B[loc[1]].Res = int32(i) + 1
		}
	case session.RoleBashExecution:
		r.B = append(r.B, part{K: "text", Nm: "command", textPart: b.text(m.Command)}, part{K: "text", Nm: "output", textPart: b.text(m.Output)})
		return
	case session.RoleBranchSummary, session.RoleCompactionSummary:
		r.X = b.textOrNil(m.Summary)
	}
	r.B = append(r.B, b.content(i, &m.Content)...)
}

// content turns a message content into parts; tool calls are remembered for pairing.
func (b *builder) content(i int, c *session.Content) []part {
	if c.IsText {
		return []part{{K: "text", textPart: b.text(c.Text)}}
	}
	var out []part
	for k := range c.Blocks {
		blk := &c.Blocks[k]
		switch {
		case blk.Type == "text":
			out = append(out, part{K: "text", textPart: b.text(blk.Text)})
		case blk.Type == "thinking" || blk.Type == "redacted_thinking":
			p := part{K: "thinking", textPart: b.text(blk.Thinking)}
			if blk.Redacted || blk.Type == "redacted_thinking" {
				p.Nm = "redacted"
				p.textPart = textPart{X: fmt.Sprintf("(thinking redacted by the provider, %d bytes)", len(blk.Data))}
			}
			out = append(out, p)
		case blk.Type == "image":
			p := part{K: "image", Nm: blk.MimeType, Sz: len(blk.Data) / 4 * 3}
			if b.red != nil {
				p.textPart = textPart{X: b.red.text(blk.Data)}
			} else if b.thumbs < maxThumbs {
				if p.Img = thumbnail(blk.Data); p.Img != "" {
					b.thumbs++
				}
			}
			out = append(out, p)
		case blk.IsToolCall():
			p := part{K: "call", ID: blk.AnyID(), Nm: blk.Name}
			if t := b.jsonText(blk.Args()); t != nil {
				p.textPart = *t
			}
			if p.ID != "" {
				b.calls[p.ID] = [2]int32{int32(i), int32(len(out))}
			}
			out = append(out, p)
		default:
			p := part{K: "other", Nm: blk.Type}
			if t := b.jsonText(blk.Raw); t != nil {
				p.textPart = *t
			}
			out = append(out, p)
		}
	}
	return out
}

// compactions fills what each compaction kept and summarised, on the active path (one pass)
// and, for compactions off it, on their own path (capped: a path walk each).
func (b *builder) compactions(idx *session.Index, path []int) {
	es := b.d.Entries
	pos := make(map[int]int, 64)
	onPath := func(i int) int {
		if p, ok := pos[i]; ok {
			return p
		}
		return -1
	}
	fill := func(p []int, k int, posOf func(int) int) {
		c := es[p[k]].C
		start := 0
		for j := k - 1; j >= 0; j-- { // the previous compaction's kept region is where this summary starts
			if prev := es[p[j]].C; prev != nil {
				start = j
				if fk, ok := idx.Lookup(prev.FirstKept); ok && posOf(fk) >= 0 && posOf(fk) < j {
					start = posOf(fk)
				}
				break
			}
		}
		fkPos := k
		if fk, ok := idx.Lookup(c.FirstKept); ok && posOf(fk) >= 0 && posOf(fk) < k {
			fkPos = posOf(fk)
		}
		if fkPos > start {
			c.Summed = &[3]int{p[start], p[fkPos-1], fkPos - start}
		}
		if k > fkPos {
			c.Kept = &[3]int{p[fkPos], p[k-1], k - fkPos}
		}
	}
	for k, i := range path {
		pos[i] = k
	}
	for k, i := range path {
		if es[i].C == nil {
			continue
		}
		fill(path, k, onPath)
		for j := k + 1; j < len(path); j++ { // the next assistant turn's usage is the context after
			if u := es[path[j]].U; u != nil && es[path[j]].R == session.RoleAssistant {
				es[i].C.After = u[0] + u[2] + u[3]
				es[i].C.AfterAt = int32(path[j]) + 1
				break
			}
		}
	}
	off := 0
	for i := range es {
		if es[i].C == nil || es[i].Fl&flActive != 0 || off >= 200 {
			continue
		}
		off++
		p := idx.Path(i)
		local := make(map[int]int, len(p))
		for k, j := range p {
			local[j] = k
		}
		fill(p, len(p)-1, func(j int) int {
			if k, ok := local[j]; ok {
				return k
			}
			return -1
		})
	}
}

// findings attaches audit findings to their entries (by line, else by id).
func (b *builder) findings(idx *session.Index, path string, fs []audit.Finding) {
	es := b.d.Entries
	byLine := func(line int64) int32 {
		k := sort.Search(len(es), func(i int) bool { return es[i].L >= line })
		if k < len(es) && es[k].L == line {
			return int32(k)
		}
		return -1
	}
	for _, f := range fs {
		e := int32(-1)
		if f.Path == path || f.Path == "" {
			if f.Line > 0 {
				e = byLine(f.Line)
			}
			if e < 0 && f.EntryID != "" {
				if i, ok := idx.Lookup(f.EntryID); ok {
					e = int32(i)
				}
			}
		}
		rec := findingRec{Rule: f.Rule, Sev: f.Severity.String(), Line: f.Line, E: e, Msg: f.Message, Ev: f.Evidence}
		if f.Path != path && f.Path != "" {
			rec.Path = b.displayPath(f.Path)
		}
		if b.red != nil {
			rec.Msg = "(redacted) " + ruleDescription(f.Rule)
			rec.Ev = b.red.redactEvidence(f.Evidence)
		}
		if e >= 0 {
			es[e].F = append(es[e].F, len(b.d.Findings))
		}
		b.d.Findings = append(b.d.Findings, rec)
	}
}

func (b *builder) displayPath(p string) string {
	if b.red != nil {
		return filepath.Base(p)
	}
	return p
}

func ruleDescription(id string) string {
	if r, ok := audit.RuleByID(id); ok {
		return r.Description
	}
	return id
}

// redactEvidence redacts a finding's evidence as JSON (see redactValue).
func (r *redactor) redactEvidence(ev map[string]any) map[string]any {
	if len(ev) == 0 {
		return nil
	}
	raw, err := json.Marshal(ev)
	if err != nil {
		return nil
	}
	var out map[string]any
	if json.Unmarshal(r.redactJSON(raw), &out) != nil {
		return nil
	}
	return out
}

func itoa(n int) string { return fmt.Sprint(n) }

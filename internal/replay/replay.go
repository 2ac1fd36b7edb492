// Package replay runs one stored session offline through what OpenClaw does before it calls a
// model: pi's context building (active path, last compaction, wrapper texts), the provider
// hygiene of package hygiene, and the compaction decision of package compaction. It reports the
// messages as they would be sent and what every step changed. It never writes.
package replay

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/compaction"
	"github.com/clawdoctor/clawdoctor/internal/hygiene"
	"github.com/clawdoctor/clawdoctor/internal/openclaw"
	"github.com/clawdoctor/clawdoctor/internal/safefile"
	"github.com/clawdoctor/clawdoctor/internal/session"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// MaxInputBytes caps what a replay holds in memory: a transcript replayed from a stream
// (stdin), which Run reads whole, and the entries of a file's path that RunFile reads in full
// (a file is indexed first and only those entries are read). A 300 KB archive that inflates
// to 4 GiB of 1 MiB turns held 19 GB before the cap (issue 31).
const MaxInputBytes = 256 << 20

// ErrUnknownLeaf is returned when Options.Leaf names no entry of the file.
var ErrUnknownLeaf = errors.New("unknown leaf entry id")

// Options select the target model and the variants to replay with.
type Options struct {
	// MaxInput caps the bytes a replay holds: what Run reads from its stream, the path
	// entries RunFile reads in full (0: MaxInputBytes).
	MaxInput int64
	Provider string
	Model    string
	API      string // "" means hygiene.DefaultAPI(Provider)
	// Reasoning is the model's catalog "reasoning" flag: through a strict OpenAI-compatible
	// transport OpenClaw then keeps reasoning blocks on replay.
	Reasoning bool
	// Release is the OpenClaw release whose pipeline is replayed ("" is the default).
	Release hygiene.Release
	Leaf    string // "" means the last entry in file order
	NowMs   int64  // clock for synthetic timestamps
	// AllowedTools is an optional tool-name allow-list for the input check.
	AllowedTools []string
	Compaction   compaction.Settings
	// Recheck recomputes the cut point of every stored compaction on the path under both
	// boundaries. It needs the whole path in memory.
	Recheck bool

	// emptyBranch: the compaction is prepared on an empty branch (emptyBranch); emptyContext:
	// the context path is empty (session.Index.LastLeafEmpty).
	emptyBranch, emptyContext bool
}

// emptyBranch reports whether release r's SessionManager prepares a compaction on an empty
// branch for idx: before 2026.6.11 its leaf is the last entry's id, and getBranch() is empty
// when that id is not truthy (missing, null, "", 0) or the file's last value is not an object,
// though buildSessionContext still falls back to the last entry (mutation 8938 of seed 6: the
// last entry's "id" key flipped to "i6"; prepareCompaction got no entries and returned null).
func emptyBranch(idx *session.Index, o Options) bool {
	return !usesManagerTree(o.Release) && o.Leaf == "" && !idx.LastIDTruthy()
}

// leafRules sets o's emptyBranch and emptyContext for the file idx indexes. Before 2026.6.11
// the context is empty too when the last value is not an object or its id is null
// (session.Index.LastLeafEmpty).
func leafRules(idx *session.Index, o *Options) {
	o.emptyBranch = emptyBranch(idx, *o)
	o.emptyContext = !usesManagerTree(o.Release) && o.Leaf == "" && idx.LastLeafEmpty()
}

// ContextInfo describes the context building step.
type ContextInfo struct {
	Leaf           string            `json:"leaf"`
	PathEntries    int               `json:"path_entries"`
	FileEntries    int               `json:"file_entries"`
	ThinkingLevel  string            `json:"thinking_level"`
	Model          *session.ModelRef `json:"model"`
	Compaction     string            `json:"compaction,omitempty"` // id of the last compaction on the path
	FirstKeptEntry string            `json:"first_kept_entry,omitempty"`
	FirstKeptFound bool              `json:"first_kept_found"`
	Warnings       []string          `json:"warnings"`
	SkippedLines   int               `json:"skipped_lines"`
	Messages       int               `json:"messages"` // after convertToLlm, before hygiene
	Roles          map[string]int    `json:"roles"`    // roles before convertToLlm
	ModelSnapshot  ModelSnapshot     `json:"model_snapshot"`
	// OrphanUserLeaf: the leaf is a user message, which OpenClaw drops before the next prompt
	// (spec transcript.md §7.1).
	OrphanUserLeaf bool `json:"orphan_user_leaf"`
	// Throws is set when pi's buildSessionContext throws on the path (session.Context.Throws):
	// OpenClaw then sends nothing and decides no compaction.
	Throws    string            `json:"throws,omitempty"`
	Path      []compaction.Item `json:"-"`
	Projected []hygiene.Message `json:"-"` // context messages before convertToLlm
	byEntry   map[*session.Entry]hygiene.Message
}

// Tokens are the token figures of the replay.
type Tokens struct {
	EstimatedSent    int              `json:"estimated_sent"`    // Σ estimateTokens over the messages sent
	EstimatedContext int              `json:"estimated_context"` // Σ estimateTokens over the context before hygiene
	ContextTokens    compaction.JSNum `json:"context_tokens"`    // the trigger's figure (null when OpenClaw's arithmetic gives NaN)
	Source           string           `json:"source"`
	Estimator        string           `json:"estimator"`
}

// Result is a whole replay.
type Result struct {
	File       string           `json:"file"`
	Provider   string           `json:"provider"`
	Model      string           `json:"model"`
	API        string           `json:"api"`
	APIGuessed bool             `json:"api_guessed"`
	Policy     hygiene.Policy   `json:"policy"`
	Context    ContextInfo      `json:"context"`
	Steps      []hygiene.Step   `json:"steps"`
	Messages   hygiene.Messages `json:"messages"`
	Refs       []string         `json:"-"` // where each sent message came from
	// OpenClaw is the release followed and why, when it is not the default (set by the caller:
	// --openclaw-version or the state dir's openclaw.json).
	OpenClaw *openclaw.Selection `json:"openclaw,omitempty"`
	// Error is set when OpenClaw's pipeline throws instead of sending (the OpenAI Responses
	// replay invariant): the run fails and Messages is what the pipeline held at that point.
	Error      string          `json:"error,omitempty"`
	Tokens     Tokens          `json:"tokens"`
	Compaction compaction.Plan `json:"compaction"`
	Summary    *SummaryRun     `json:"summary,omitempty"`
	// Rechecked compares each stored compaction with the recomputed cut (Options.Recheck).
	Rechecked []compaction.Check `json:"rechecked_compactions,omitempty"`
}

// SummaryRun records a --summary-cmd run.
type SummaryRun struct {
	Command    []string `json:"command"`
	InputChars int      `json:"input_chars"`
	Output     string   `json:"output"`
	Error      string   `json:"error,omitempty"`
}

// Changed reports whether any hygiene step changed the messages.
func (r *Result) Changed() bool {
	for _, s := range r.Steps {
		if s.Changed > 0 && s.Name != "context" {
			return true
		}
	}
	return false
}

// Load reads a transcript: its entries in file order (header and bad lines left out) and a
// warning naming file and line for each line pi would skip. The last line with content is
// read as OpenClaw reads it, without the JavaScript white space at its end (session.ScanOptions).
func Load(ctx context.Context, r io.Reader, name string) ([]*session.Entry, []string, error) {
	var entries []*session.Entry
	var warnings []string
	err := session.Scan(ctx, r, name, session.ScanOptions{TrimContent: true}, func(it session.Item) error {
		switch it.Kind {
		case session.ItemEntry:
			entries = append(entries, it.Entry)
		case session.ItemInvalid, session.ItemNotObject:
			warnings = append(warnings, it.Err.Error()+" (skipped, as pi does)")
		case session.ItemStrayHeader:
			warnings = append(warnings, fmt.Sprintf("%s:%d: second session header (not part of the tree)", name, it.Line.Num))
		}
		return nil
	})
	return entries, warnings, err
}

// Run replays the transcript read from r, all in memory. name is used in messages only.
//
// At most o.MaxInput bytes are read (MaxInputBytes when 0): a stream over it is refused with
// a *safefile.SizeError, so arbitrary input stays bounded.
func Run(ctx context.Context, r io.Reader, name string, o Options) (*Result, error) {
	limit := o.MaxInput
	if limit <= 0 {
		limit = MaxInputBytes
	}
	data, err := safefile.ReadAll(ctx, jsonl.ContextReader(ctx, r), name, limit, "--max-input-bytes", 0)
	if err != nil {
		return nil, err
	}
	idx, err := session.BuildIndex(ctx, bytes.NewReader(data), name, session.IndexOptions{TrimContent: true})
	if err != nil {
		return nil, err
	}
	h, _ := idx.Header()
	note, unreadable, migrate := headerNote(h, name, o.Release)
	var entries []*session.Entry
	var skipped []string
	if unreadable && !usesManagerTree(o.Release) {
		// pi's loader (up to 2026.4.24) reads content.trim(): white space and BOMs before the
		// header, which JSON.parse refuses, are gone before the first line is parsed.
		if t := trimJSSpaceStart(data); len(t) < len(data) && len(t) > 0 {
			res, err := Run(ctx, bytes.NewReader(t), name, o)
			if err == nil {
				res.Context.Warnings = append([]string{fmt.Sprintf("%s: %d bytes of white space or BOMs before the header: OpenClaw %s's loader trims them (content.trim()), so the file is read", name, len(data)-len(t), orDefault(o.Release))}, res.Context.Warnings...)
			}
			return res, err
		}
	}
	if unreadable {
		return entriesWithNotes(ctx, nil, nil, note, name, o)
	}
	if migrate {
		entries, skipped, note, err = migrated(ctx, bytes.NewReader(data), name)
	} else {
		entries, skipped, err = Load(ctx, bytes.NewReader(data), name)
		leafRules(idx, &o)
	}
	if err != nil {
		return nil, err
	}
	return entriesWithNotes(ctx, entries, skipped, note, name, o)
}

// trimJSSpaceStart is data without the JavaScript white space (BOMs included) it starts with.
func trimJSSpaceStart(data []byte) []byte {
	for len(data) > 0 {
		r, n := utf8.DecodeRune(data)
		if r == utf8.RuneError && n <= 1 || !session.IsJSSpace(r) {
			break
		}
		data = data[n:]
	}
	return data
}

// RunFile replays the transcript at path (plain, gzip or zstd). It indexes the file first and
// reads only the entries the replay needs: the active path from the last compaction's kept
// region on, and the few older state entries (model, thinking level) pi reads, so memory
// follows the context, not the file. path may also name one session of a SQLite-era agent
// database, "<db>#<session id or key>" (agentdb.Ref).
func RunFile(ctx context.Context, path string, o Options) (*Result, error) {
	if db, session, ok := agentdb.ParseRef(path); ok {
		return runRef(ctx, db, session, o)
	}
	idx, err := session.IndexFile(ctx, path, session.IndexOptions{TrimContent: true}, nil)
	if err != nil {
		return nil, err
	}
	h, _ := idx.Header()
	note, unreadable, migrate := headerNote(h, path, o.Release)
	if unreadable && !usesManagerTree(o.Release) {
		// white space before the header (see Run): rare, read in memory like Run
		f, err := jsonl.Open(path, nil)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return Run(ctx, f, path, o)
	}
	if unreadable {
		return entriesWithNotes(ctx, nil, nil, note, path, o)
	}
	if migrate {
		f, err := jsonl.Open(path, nil)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		entries, skipped, note, err := migrated(ctx, f, path)
		if err != nil {
			return nil, err
		}
		return entriesWithNotes(ctx, entries, skipped, note, path, o)
	}
	leafRules(idx, &o)
	var warnings []string
	for _, p := range idx.Problems() {
		warnings = append(warnings, fmt.Sprintf("%s:%d: %s line (skipped, as pi does)", path, p.Line, p.Kind))
	}
	var pathIdx []int
	if o.Leaf != "" {
		i, ok := idx.Lookup(o.Leaf)
		if !ok {
			return nil, fmt.Errorf("%s: %w %q", path, ErrUnknownLeaf, o.Leaf)
		}
		pathIdx = idx.Path(i)
	} else {
		pathIdx = idx.ActivePath()
	}
	var tree *managerTree
	if usesManagerTree(o.Release) {
		tree = newManagerTree(indexNodes(idx))
		pathIdx = tree.path(o.Leaf)
	}
	if o.emptyContext {
		pathIdx = nil
	}
	limit := o.MaxInput
	if limit <= 0 {
		limit = MaxInputBytes
	}
	entries, custom, err := readPath(ctx, idx, path, pathIdx, o.Recheck, tree, limit)
	if err != nil {
		return nil, err
	}
	return fromPath(ctx, entries, custom, idx.Len(), warnings, note, path, o)
}

// readPath loads the path entries a replay needs in full and stands in light entries (type,
// id, parent) for the rest. custom are every custom entry of the file, in file order (the
// model-snapshot check reads them all).
// With tree (2026.6.11), the compactions' firstKeptEntryIds are normalized as its
// SessionManager does before the kept region is chosen.
func readPath(ctx context.Context, idx *session.Index, path string, pathIdx []int, full bool, tree *managerTree, limit int64) (entries []*session.Entry, custom []*session.Entry, err error) {
	var held int64 // bytes of the lines read in full so far, checked against limit before a read
	entries = make([]*session.Entry, len(pathIdx))
	for k, i := range pathIdx {
		n := idx.Node(i)
		var parent *string
		if n.ParentID != "" {
			p := n.ParentID
			parent = &p
		}
		entries[k] = &session.Entry{Type: n.Type, ID: n.ID, ParentID: parent}
	}
	read := func(want []int, put func(j int, e *session.Entry)) error {
		if len(want) == 0 {
			return nil
		}
		for _, i := range want { // the index knows each line's size: refuse before reading
			held += int64(idx.Node(i).Size)
		}
		if held > limit {
			return fmt.Errorf("the entries a replay holds in memory: %w",
				&safefile.SizeError{Path: path, Size: held, Limit: limit, Flag: "--max-input-bytes"})
		}
		pos := make(map[int]int, len(want))
		for j, i := range want {
			pos[i] = j
		}
		raw, err := safefile.Open(path)
		if err != nil {
			return err
		}
		defer raw.Close()
		if jsonl.Detect(bufio.NewReaderSize(raw, 16)) == jsonl.Plain {
			// a plain file: read just those lines at their offsets
			es, err := idx.ReadEntries(raw, want)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			for j, e := range es {
				put(j, e)
			}
			return nil
		}
		f, err := jsonl.Open(path, nil)
		if err != nil {
			return err
		}
		defer f.Close()
		err = idx.StreamEntries(ctx, f, want, func(i int, e *session.Entry) error {
			put(pos[i], e)
			return nil
		})
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	}
	load := func(ks []int) error {
		want := make([]int, len(ks))
		for j, k := range ks {
			want[j] = pathIdx[k]
		}
		return read(want, func(j int, e *session.Entry) { entries[ks[j]] = e })
	}
	// 1. the compactions on the path, to find the last one and its kept region
	var comps []int
	for k, i := range pathIdx {
		if idx.Node(i).Type == session.TypeCompaction {
			comps = append(comps, k)
		}
	}
	if err := load(comps); err != nil {
		return nil, nil, err
	}
	if tree != nil {
		tree.normalizeFirstKept(entries, pathIdx)
	}
	from := 0
	if len(comps) > 0 && !full {
		last := comps[len(comps)-1]
		from = last
		for k := 0; k < last; k++ {
			if entries[k].ID == entries[last].FirstKeptEntryID {
				from = k
				break
			}
		}
	}
	// 2. everything from there, plus the last model and thinking-level setters and the custom
	// entries before it
	var need []int
	model, thinking := false, false
	for k := from - 1; k >= 0 && !(model && thinking); k-- {
		n := idx.Node(pathIdx[k])
		switch {
		case !thinking && n.Type == session.TypeThinkingLevelChange:
			thinking = true
			need = append(need, k)
		case !model && (n.Type == session.TypeModelChange || (n.Type == session.TypeMessage && n.Role == session.RoleAssistant)):
			model = true
			need = append(need, k)
		}
	}
	for k := from; k < len(pathIdx); k++ {
		if entries[k].Raw == nil {
			need = append(need, k)
		}
	}
	// and a message entry before it with a null or absent message: pi's context throws on it
	// wherever it is on the path (session.Context.Throws)
	for k := 0; k < from; k++ {
		if entries[k].Raw == nil && idx.Node(pathIdx[k]).NoMessage {
			need = append(need, k)
		}
	}
	if err := load(need); err != nil {
		return nil, nil, err
	}
	var customIdx []int
	for i := 0; i < idx.Len(); i++ {
		if idx.Node(i).Type == session.TypeCustom {
			customIdx = append(customIdx, i)
		}
	}
	custom = make([]*session.Entry, len(customIdx))
	if err := read(customIdx, func(j int, e *session.Entry) { custom[j] = e }); err != nil {
		return nil, nil, err
	}
	return entries, custom, nil
}

// Entries replays already loaded entries (file order); skipped names the lines of the file
// that are not entries.
func Entries(ctx context.Context, entries []*session.Entry, skipped []string, name string, o Options) (*Result, error) {
	return entriesWithNotes(ctx, entries, skipped, "", name, o)
}

// entriesWithNotes is Entries with a note about the file as a whole (header, migration).
func entriesWithNotes(ctx context.Context, entries []*session.Entry, warnings []string, note, name string, o Options) (*Result, error) {
	var leaf *string
	if o.Leaf != "" {
		found := false
		for _, e := range entries {
			if e.ID == o.Leaf {
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("%s: %w %q", name, ErrUnknownLeaf, o.Leaf)
		}
		leaf = &o.Leaf
	}
	path := session.BuildContextFrom(entries, leaf).Path
	if o.emptyContext {
		path = nil
	}
	if usesManagerTree(o.Release) {
		tree := newManagerTree(entryNodes(entries))
		idxs := tree.path(o.Leaf)
		path = make([]*session.Entry, len(idxs))
		for k, i := range idxs {
			path[k] = entries[i]
		}
		tree.normalizeFirstKept(path, idxs)
	}
	var custom []*session.Entry
	for _, e := range entries {
		if e.Type == session.TypeCustom {
			custom = append(custom, e)
		}
	}
	return fromPath(ctx, path, custom, len(entries), warnings, note, name, o)
}

// fromPath replays an active path (root first). custom are the file's custom entries;
// warnings are the lines of the file that are not entries; note is a remark on the whole file
// ("" for none).
func fromPath(ctx context.Context, path, custom []*session.Entry, fileEntries int, warnings []string, note, name string, o Options) (*Result, error) {
	res := &Result{File: name, Provider: o.Provider, Model: o.Model, API: o.API}
	if res.API == "" {
		res.API, res.APIGuessed = hygiene.DefaultAPI(o.Provider), true
	}
	res.Policy = hygiene.Resolve(hygiene.Model{Provider: o.Provider, API: res.API, ID: o.Model, Reasoning: o.Reasoning}, o.Release)

	ci, msgs, refs, ctxStep, err := buildContext(ctx, path, name, o)
	if err != nil {
		return nil, err
	}
	ci.FileEntries = fileEntries
	ci.SkippedLines = len(warnings)
	if note != "" {
		warnings = append(warnings, note)
	}
	ci.Warnings = append(warnings, ci.Warnings...)
	if ci.Warnings == nil {
		ci.Warnings = []string{}
	}
	snap := lastSnapshot(custom)
	ci.ModelSnapshot = modelSnapshot(snap, res.API, o)
	if ms := ci.ModelSnapshot; ms.WouldAppend {
		ctxStep.Details = append(ctxStep.Details, "OpenClaw would append a model-snapshot custom entry to the file ("+ms.Reason+"); replay does not")
	}
	res.Context = ci
	if ci.Throws != "" {
		res.Error = ci.Throws
		res.Steps = []hygiene.Step{ctxStep}
		res.Messages = hygiene.Messages{}
		return res, nil
	}
	for i, m := range msgs {
		m2 := make(hygiene.Message, len(m)+1)
		for k, v := range m {
			m2[k] = v
		}
		m2[hygiene.RefKey] = refs[i]
		msgs[i] = m2
	}
	sent, steps, serr := hygiene.Sanitize(msgs, res.Policy, o.Provider, hygiene.Options{
		Release: o.Release, NowMs: o.NowMs, AllowedTools: o.AllowedTools, Snapshot: snap,
	})
	if serr != nil {
		res.Error = serr.Error()
	}
	res.Steps = append([]hygiene.Step{ctxStep}, steps...)
	res.Refs = make([]string, len(sent))
	for i, m := range sent {
		res.Refs[i] = hygiene.Ref(m)
	}
	res.Messages = hygiene.Strip(sent)

	s := o.Compaction
	if s.Estimator == "" {
		s.Estimator = compaction.EstimatorPi
	}
	s.Provider, s.Model, s.Release = o.Provider, o.Model, o.Release
	s.EmptyBranch = o.emptyBranch
	res.Compaction = compaction.Prepare(ci.Path, ci.Projected, s)
	if o.Recheck {
		res.Rechecked = compaction.Recheck(ci.Path, s.KeepRecentTokens)
	}
	res.Tokens = Tokens{ContextTokens: res.Compaction.Trigger.ContextTokens, Source: res.Compaction.Trigger.Source,
		Estimator: string(s.Estimator)}
	for _, m := range res.Messages {
		res.Tokens.EstimatedSent += s.Estimator.Tokens(m)
	}
	for _, m := range ci.Projected {
		res.Tokens.EstimatedContext += s.Estimator.Tokens(m)
	}
	return res, nil
}

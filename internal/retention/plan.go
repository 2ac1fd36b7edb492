// Package retention is the offline twin of OpenClaw's session maintenance (store.md §3): a
// pure planner that decides, with a reason for every decision, which sessions.json entries
// are pruned, capped or evicted and which files of a sessions dir are archived or deleted,
// and an Apply that carries a plan out through safefile. Gather reads a sessions dir into
// the planner's plain inputs; Plan never touches the disk.
package retention

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Entry is one sessions.json entry as the planner needs it, after OpenClaw's load-time
// normalization (see Gather).
type Entry struct {
	Key          string
	SessionID    string  // "" when absent
	SessionFile  string  // as written, for messages
	UpdatedAt    float64 // valid when HasUpdatedAt
	HasUpdatedAt bool
	ChatType     string // chatType, else origin.chatType

	// Transcript is the resolved transcript path relative to the sessions dir (after
	// following symlinks), "" when the entry has none there. Outside is set instead when
	// sessionFile resolves outside the sessions dir (store.outside-path).
	Transcript string
	Outside    string
	// Resolvable is false when OpenClaw's resolveSessionFilePath throws (bad sessionId and
	// no usable sessionFile). TranscriptExists and TranscriptEmpty describe the resolved
	// file wherever it is (fix-missing reads them; nothing outside is ever written).
	Resolvable       bool
	TranscriptExists bool
	TranscriptEmpty  bool

	Checkpoints []string // compaction checkpoint files inside the sessions dir (relative)
	PromptHash  string   // sha256 of the projected skills prompt blob, if any
	PromptBytes int64    // bytes of that blob when it does not exist yet (projected)
	ChunkBytes  int64    // bytes of `  "key": {...}` in JSON.stringify(store, null, 2)

	// Display fields for the text table.
	Label, Model, Flags string
}

// File is one regular file of the sessions dir (top level, or a prompt blob under
// skills-prompts/sha256/<hh>/), by path relative to the sessions dir.
type File struct {
	Name  string
	Size  int64
	ModMs float64 // mtime in ms since the epoch, with fractions as Node's stat gives them

	class uint8 // classify(Name), set by the listing; 0: not yet known
}

func (f File) base() string {
	if i := strings.LastIndexByte(f.Name, '/'); i >= 0 {
		return f.Name[i+1:]
	}
	return f.Name
}

// Input is everything the planner reads.
type Input struct {
	AgentID   string
	StorePath string // for the summary
	StoreName string // base name of the store file ("sessions.json")
	Entries   []Entry
	Files     []File // top-level regular files, sorted by name (symlinks are not listed)
	Blobs     []File // skills-prompts/sha256/<hh>/ files, sorted by name
	DMScope   string // session.dmScope ("" = main)
	// FoldCase is set when the sessions dir is on a case-insensitive file system (macOS,
	// Windows): a row naming "ABC.jsonl" names the listed "abc.jsonl" (store.CaseInsensitiveDir).
	FoldCase bool

	// names is the listing's index, name → position in Files (-1: listed, not a regular
	// file), when gather made it beside the listing; nil: Make indexes Files itself.
	names map[string]int32
}

// Options are the per-run choices of `cleanup`.
type Options struct {
	Settings   Settings
	Now        time.Time
	DryRun     bool   // preview exactly as `openclaw sessions cleanup --dry-run`
	Enforce    bool   // --enforce: mode enforce whatever the config says
	ActiveKey  string // --active-key: preserved
	FixMissing bool
	FixDMScope bool
	ModelRuns  bool // also prune gateway model-run probes (older builds; off in 2026.6.x)
	CronRuns   bool // also apply cron.sessionRetention to isolated cron run rows
	Explain    bool // also list every kept file with its reason (Plan.Kept)
	// KeepOrphans archives the orphan transcripts the disk budget would delete (as the
	// artifact sweep's are), so the budget may not be met: Plan.BudgetUnmetBy says by how much.
	// By default they are deleted, as OpenClaw deletes them, where the budget needs their bytes.
	KeepOrphans bool
}

// Action labels, in OpenClaw's precedence order.
const (
	ActRetireDMScope = "retire-dm-scope"
	ActPruneMissing  = "prune-missing"
	ActPruneModelRun = "prune-model-run"
	ActPruneCronRun  = "prune-cron-run"
	ActPruneStale    = "prune-stale"
	ActCapOverflow   = "cap-overflow"
	ActEvictBudget   = "evict-budget"
	ActKeep          = "keep"
)

// File action labels.
const (
	FileDelete  = "delete"  // removed for good
	FileArchive = "archive" // renamed to <name>.deleted.<ts>
	FileKeep    = "keep"
)

// EntryAction is the decision for one store entry.
type EntryAction struct {
	Key       string `json:"key"`
	SessionID string `json:"sessionId"`
	Action    string `json:"action"`
	Reason    string `json:"reason"`
	// for the text table
	UpdatedAt    float64 `json:"-"`
	HasUpdatedAt bool    `json:"-"`
	Label        string  `json:"-"`
	Model        string  `json:"-"`
	Flags        string  `json:"-"`
}

// FileAction is the decision for one file.
type FileAction struct {
	Path   string `json:"path"`
	Action string `json:"action"`
	Reason string `json:"reason"`
	Bytes  int64  `json:"bytes"`
	To     string `json:"to,omitempty"` // archive target name
	Step   string `json:"-"`            // which pipeline step decided it
}

// Outside reports a sessionFile that resolves outside the sessions dir.
type Outside struct {
	Key         string `json:"key"`
	SessionFile string `json:"sessionFile"`
	Resolved    string `json:"resolved"`
}

// Artifacts is OpenClaw's unreferencedArtifacts summary.
type Artifacts struct {
	ScannedFiles int   `json:"scannedFiles"`
	RemovedFiles int   `json:"removedFiles"`
	FreedBytes   int64 `json:"freedBytes"`
	OlderThanMs  int64 `json:"olderThanMs"`
}

// Budget is OpenClaw's diskBudget summary.
type Budget struct {
	TotalBytesBefore int64 `json:"totalBytesBefore"`
	TotalBytesAfter  int64 `json:"totalBytesAfter"`
	RemovedFiles     int   `json:"removedFiles"`
	RemovedEntries   int   `json:"removedEntries"`
	FreedBytes       int64 `json:"freedBytes"`
	MaxBytes         int64 `json:"maxBytes"`
	HighWaterBytes   int64 `json:"highWaterBytes"`
	OverBudget       bool  `json:"overBudget"`
}

// Summary matches OpenClaw's cleanup summary field for field.
type Summary struct {
	AgentID               string    `json:"agentId"`
	StorePath             string    `json:"storePath"`
	Mode                  string    `json:"mode"`
	DryRun                bool      `json:"dryRun"`
	BeforeCount           int       `json:"beforeCount"`
	AfterCount            int       `json:"afterCount"`
	Missing               int       `json:"missing"`
	DMScopeRetired        int       `json:"dmScopeRetired"`
	Pruned                int       `json:"pruned"`
	Capped                int       `json:"capped"`
	UnreferencedArtifacts Artifacts `json:"unreferencedArtifacts"`
	DiskBudget            *Budget   `json:"diskBudget"`
	WouldMutate           bool      `json:"wouldMutate"`
}

// Plan is the full decision for one store.
type Plan struct {
	Summary        Summary
	ModelRunPruned int
	CronRunPruned  int
	ArchiveRetired int // archives deleted by resetArchiveRetention (apply only, as OpenClaw)
	Actions        []EntryAction
	Files          []FileAction // every file decision other than keep
	Kept           []FileAction // files kept, with why (for --explain)
	Outside        []Outside
	Relocated      []Relocated // kept rows whose sessionFile is another root's path (store.relocated-path)
	Notes          []string
	// OpenClaw is OpenClaw's own summary when clawdoctor does less than it (see keepSafe):
	// files of kept rows it would delete, orphans it would delete rather than archive.
	OpenClaw *Summary
	// ArchivedBytes are the bytes of the files the plan archives (renamed, still on disk).
	ArchivedBytes int64
	// BudgetUnmetBy is how many bytes the store stays over its maxDiskBytes after the plan,
	// 0 when it has no budget or meets it (only with KeepOrphans, or a kept row's transcript).
	BudgetUnmetBy int64
}

// RemovedKeys returns the keys whose action is not keep.
func (p *Plan) RemovedKeys() []string {
	var out []string
	for _, a := range p.Actions {
		if a.Action != ActKeep {
			out = append(out, a.Key)
		}
	}
	return out
}

// Changes reports whether applying p would change anything.
func (p *Plan) Changes() bool { return len(p.Files) > 0 || len(p.RemovedKeys()) > 0 }

type state struct {
	in      *Input
	opt     Options
	nowMs   float64
	entries []*Entry // the working store, in order; removed ones are nil
	action  []string // by entry index: the step that removed it, "" while kept
	reason  []string // by entry index: why action
	files   []FileAction
	fileSet map[string]bool  // paths already decided (deleted or archived)
	protect []string         // by entry index: its protection reason, "" when not protected
	sizes   map[string]int64 // archives the plan renamed (apply): their sizes (see sizeOf)
	names   map[string]int32 // Input.names, or made from Input.Files
	refs    map[string]int32 // referenced: live entries naming each path
	active  string
	arts    [][]string // artifactPaths by entry index, filled by artifacts
}

func (s *state) remove(i int, action, reason string) {
	if e := s.entries[i]; e != nil && s.refs != nil {
		for _, a := range s.artifacts(i, e) {
			s.refs[a]--
		}
		for _, c := range e.Checkpoints {
			s.refs[c]--
		}
	}
	s.entries[i] = nil
	if s.action[i] == "" {
		s.action[i], s.reason[i] = action, reason
	}
}

func (s *state) live() []int {
	var out []int
	for i, e := range s.entries {
		if e != nil {
			out = append(out, i)
		}
	}
	return out
}

func (s *state) count() int {
	n := 0
	for _, e := range s.entries {
		if e != nil {
			n++
		}
	}
	return n
}

// preserved is preserveKeys.has(key) || protected. Only the --active-key is a preserve key
// offline (store.md §3.2).
func (s *state) preserved(i int) (bool, string) {
	if s.active != "" && s.in.Entries[i].Key == s.active {
		return true, "active key (--active-key)"
	}
	why := s.protect[i]
	return why != "", why
}

// protections is each entry's protection reason ("" when not protected), classified on every
// core: the key patterns are regexps, and classifying 100,000 entries one by one was a tenth
// of a budget plan's serial time.
func protections(es []Entry) []string {
	out := make([]string, len(es))
	parts := 1
	if len(es) >= 4096 {
		parts = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() {
			for i := p * len(es) / parts; i < (p+1)*len(es)/parts; i++ {
				if c, w := Classify(es[i].Key, es[i].ChatType); c == Protected {
					out[i] = "protected: " + w
				}
			}
		})
	}
	wg.Wait()
	return out
}

func fmtAge(nowMs, t float64) string {
	d := time.Duration((nowMs - t) * float64(time.Millisecond))
	switch {
	case d >= 48*time.Hour:
		return strconv.FormatFloat(d.Hours()/24, 'f', 1, 64) + "d" // as %.1f, without fmt: one per pruned row
	case d >= time.Hour:
		return strconv.FormatFloat(d.Hours(), 'f', 1, 64) + "h"
	default:
		return d.Round(time.Second).String()
	}
}

func fmtDur(ms int64) string {
	switch {
	case ms%msDay == 0:
		return fmt.Sprintf("%dd", ms/msDay)
	case ms%msHour == 0:
		return fmt.Sprintf("%dh", ms/msHour)
	case ms%msMinute == 0:
		return fmt.Sprintf("%dm", ms/msMinute)
	}
	return fmt.Sprintf("%dms", ms)
}

// Make plans maintenance of in under opt. It is a pure function of its arguments.
func Make(in *Input, opt Options) *Plan {
	st := opt.Settings
	mode := st.Mode
	if opt.Enforce {
		mode = "enforce"
	}
	s := &state{in: in, opt: opt, nowMs: float64(opt.Now.UnixNano()) / 1e6,
		reason: make([]string, len(in.Entries)), action: make([]string, len(in.Entries)),
		fileSet: map[string]bool{}, sizes: map[string]int64{}, names: in.names,
		protect: protections(in.Entries), active: strings.ToLower(strings.TrimSpace(opt.ActiveKey))}
	// The planner points at the input's entries: it never writes an Entry (a removed one is a
	// nil pointer in s.entries), and a copy was 25 MB of 100,000 rows for the collector to
	// scan while the plan's maps grow (a budget plan runs at its memory limit).
	s.entries = make([]*Entry, len(in.Entries))
	for i := range in.Entries {
		s.entries[i] = &in.Entries[i]
	}
	if s.names == nil {
		s.names = make(map[string]int32, len(in.Files))
		for i, f := range in.Files {
			s.names[f.Name] = int32(i)
		}
	}
	p := &Plan{Notes: append([]string(nil), st.Notes...)}
	sum := &p.Summary
	*sum = Summary{AgentID: in.AgentID, StorePath: in.StorePath, Mode: mode, DryRun: opt.DryRun,
		BeforeCount: len(in.Entries)}
	for _, e := range in.Entries {
		if e.Outside != "" {
			p.Outside = append(p.Outside, Outside{Key: e.Key, SessionFile: e.SessionFile, Resolved: e.Outside})
		}
	}
	before := slices.Clone(s.entries)
	enforce := opt.DryRun || mode != "warn" // the preview computes prune/cap in any mode

	// 1. fix-missing
	if opt.FixMissing {
		for _, i := range s.live() {
			e := s.entries[i]
			var why string
			switch {
			case e.SessionID == "":
				if _, _, ok := parseAgentKey(e.Key); ok {
					continue // routing row
				}
				why = "no sessionId and not an agent: key"
			case !e.Resolvable:
				why = "transcript path cannot be resolved (invalid sessionId)"
			case !e.TranscriptExists:
				why = "transcript missing"
			case e.TranscriptEmpty:
				why = "transcript has no messages (≤ 4096 bytes)"
			default:
				continue
			}
			s.remove(i, ActPruneMissing, why)
			sum.Missing++
		}
	}
	// 2. fix-dm-scope
	if opt.FixDMScope && (in.DMScope == "" || in.DMScope == "main") {
		for _, i := range s.live() {
			e := s.entries[i]
			if s.active != "" && e.Key == opt.ActiveKey {
				continue
			}
			if isMainScopeDirectKey(e.Key, in.AgentID) {
				s.remove(i, ActRetireDMScope, "direct-message row while session.dmScope is main")
				sum.DMScopeRetired++
			}
		}
	}
	staleOrCapped := make(map[string]bool, len(in.Entries)) // sized: a prune of most of 100,000 entries grew it six times
	if enforce {
		// 3. model-run probes (optional; forced gate: count > maxEntries)
		if n := s.count(); opt.ModelRuns && n > st.MaxEntries {
			cut := s.nowMs - ModelRunPruneAfterMs
			for _, i := range s.live() {
				e := s.entries[i]
				if !IsModelRunKey(e.Key) || (s.active != "" && e.Key == s.active) {
					continue
				}
				if e.HasUpdatedAt && e.UpdatedAt < cut {
					s.remove(i, ActPruneModelRun, fmt.Sprintf("model-run probe idle %s > 24h and %d entries > maxEntries %d", fmtAge(s.nowMs, e.UpdatedAt), n, st.MaxEntries))
					p.ModelRunPruned++
					staleOrCapped[e.Key] = true
				}
			}
		}
		// 3b. cron run retention (optional)
		if opt.CronRuns && st.CronRetentionMs != nil {
			cut := s.nowMs - float64(*st.CronRetentionMs)
			for _, i := range s.live() {
				e := s.entries[i]
				if !IsCronRunKey(e.Key) {
					continue
				}
				u := 0.0
				if e.HasUpdatedAt {
					u = e.UpdatedAt
				}
				if u < cut {
					s.remove(i, ActPruneCronRun, fmt.Sprintf("cron run idle longer than cron.sessionRetention %s", fmtDur(*st.CronRetentionMs)))
					p.CronRunPruned++
					staleOrCapped[e.Key] = true
				}
			}
		}
		// 4. stale prune
		cut := s.nowMs - float64(st.PruneAfterMs)
		staleTail := " ago is older than pruneAfter " + fmtDur(st.PruneAfterMs)
		for _, i := range s.live() {
			e := s.entries[i]
			if ok, _ := s.preserved(i); ok {
				continue
			}
			if e.HasUpdatedAt && e.UpdatedAt < cut {
				s.remove(i, ActPruneStale, "updatedAt "+fmtAge(s.nowMs, e.UpdatedAt)+staleTail)
				sum.Pruned++
				staleOrCapped[e.Key] = true
			}
		}
		// 5. cap
		live := s.live()
		var removable []int
		protectedCount := 0
		for _, i := range live {
			if ok, _ := s.preserved(i); ok {
				protectedCount++
			} else {
				removable = append(removable, i)
			}
		}
		slots := st.MaxEntries - protectedCount
		if slots < 0 {
			slots = 0
		}
		if len(removable) > slots {
			sorted := slices.Clone(removable)
			slices.SortFunc(sorted, func(a, b int) int { // sorted is ascending: ties keep that order, as a stable sort would
				if r := less(capTime(s.entries[b]), capTime(s.entries[a])); r != 0 {
					return r
				}
				return cmp.Compare(a, b)
			})
			for _, i := range sorted[slots:] {
				e := s.entries[i]
				s.remove(i, ActCapOverflow, fmt.Sprintf("over maxEntries %d: %d protected/preserved, %d newest of %d others kept", st.MaxEntries, protectedCount, slots, len(removable)))
				sum.Capped++
				staleOrCapped[e.Key] = true
			}
		}
	}

	// Artifacts of entries removed by prune/cap/dm-scope are left to the archive step and
	// excluded from the sweep (entryCleanupArtifactPaths).
	entryArtifacts := make(map[string]bool, len(in.Entries))
	for i, e := range before {
		if staleOrCapped[e.Key] || s.action[i] == ActRetireDMScope {
			for _, a := range s.artifacts(i, e) {
				entryArtifacts[a] = true
			}
		}
	}

	files := slices.Clone(in.Files)
	if !opt.DryRun && mode != "warn" {
		files = s.archiveRemoved(p, before, files)
		files = s.archiveRetention(p, files)
	}

	// 6. disk budget
	warnOnly := !opt.DryRun && mode == "warn"
	beforeBudget := s.live()
	sum.DiskBudget = s.budget(files, warnOnly)
	evicted := 0
	for _, i := range beforeBudget {
		if s.entries[i] == nil {
			evicted++
		}
	}
	_ = evicted

	// 7. unreferenced artifact sweep
	if opt.DryRun || mode != "warn" {
		var exclude []map[string]bool
		if opt.DryRun {
			// files the budget removed are in s.fileSet: the sweep removes nothing twice
			exclude = []map[string]bool{entryArtifacts}
		}
		sum.UnreferencedArtifacts = s.sweep(files, exclude...)
	} else {
		sum.UnreferencedArtifacts = Artifacts{OlderThanMs: olderThan(st.PruneAfterMs)}
	}

	sum.AfterCount = s.count()
	sum.WouldMutate = sum.Missing > 0 || sum.DMScopeRetired > 0 || sum.Pruned > 0 || sum.Capped > 0 ||
		sum.UnreferencedArtifacts.RemovedFiles > 0 || p.ModelRunPruned > 0 || p.CronRunPruned > 0 ||
		(sum.DiskBudget != nil && (sum.DiskBudget.RemovedEntries > 0 || sum.DiskBudget.RemovedFiles > 0))

	p.Actions = make([]EntryAction, 0, len(before)) // one per entry: growing it allocated 2.5x
	for i, e := range before {
		a := EntryAction{Key: e.Key, SessionID: e.SessionID, Action: ActKeep,
			UpdatedAt: e.UpdatedAt, HasUpdatedAt: e.HasUpdatedAt, Label: e.Label, Model: e.Model, Flags: e.Flags}
		if act := s.action[i]; act != "" {
			a.Action, a.Reason = act, s.reason[i]
		} else {
			a.Reason = s.keepReason(i, e)
		}
		p.Actions = append(p.Actions, a)
	}
	p.Files = s.files
	s.keepSafe(p)
	var refs map[string]int32
	var keptSafe map[string]bool // kept by keepSafe, its reason already given: once a file
	if opt.Explain {
		refs = s.referenced()
		keptSafe = make(map[string]bool, len(p.Kept))
		for _, f := range p.Kept {
			keptSafe[f.Path] = true
		}
	}
	for _, f := range in.Files {
		if opt.Explain && !s.fileSet[f.Name] && !keptSafe[f.Name] {
			why := s.fileKeepReason(f, refs)
			if entryArtifacts[f.Name] && opt.DryRun {
				why = "belongs to a removed entry: a transcript is archived as .deleted.<ts>, a sidecar deleted, when applied"
			}
			p.Kept = append(p.Kept, FileAction{Path: f.Name, Action: FileKeep, Bytes: f.Size, Reason: why})
		}
	}
	return p
}

// less orders a before b as a stable sort by a < b does (slices.SortStableFunc instead of
// sort.SliceStable: no reflection swapper, and the same order, since a stable sort's result
// is fixed by its comparison).
func less(a, b float64) int {
	switch {
	case a < b:
		return -1
	case b < a:
		return 1
	}
	return 0
}

func olderThan(ms int64) int64 {
	if ms > 0 {
		return ms
	}
	return 0
}

func capTime(e *Entry) float64 {
	if !e.HasUpdatedAt {
		return math.Inf(-1)
	}
	return e.UpdatedAt
}

func budgetTime(e *Entry) float64 {
	if !e.HasUpdatedAt || math.IsNaN(e.UpdatedAt) || math.IsInf(e.UpdatedAt, 0) {
		return 0
	}
	return e.UpdatedAt
}

func (s *state) keepReason(i int, e *Entry) string {
	if ok, why := s.preserved(i); ok {
		return why
	}
	st := s.opt.Settings
	if !e.HasUpdatedAt {
		return "no updatedAt: never stale"
	}
	return fmt.Sprintf("updatedAt %s ago is within pruneAfter %s and the newest %d", fmtAge(s.nowMs, e.UpdatedAt), fmtDur(st.PruneAfterMs), st.MaxEntries)
}

func (s *state) fileKeepReason(f File, refs map[string]int32) string {
	switch {
	case f.Name == s.in.StoreName:
		return "the store"
	case IsArchive(f.Name):
		return "archive within retention and budget"
	case refs[f.Name] > 0:
		return "referenced by a kept entry"
	case isUnreferencedArtifactName(f.Name):
		return fmt.Sprintf("unreferenced but modified within pruneAfter %s", fmtDur(s.opt.Settings.PruneAfterMs))
	}
	return "not a session artifact (counted by the budget, never deleted)"
}

// artifactPaths are the transcript and its trajectory sidecars, inside the sessions dir.
func artifactPaths(e *Entry) []string {
	if e.Transcript == "" || e.SessionID == "" {
		return nil
	}
	ptr, traj := trajectorySidecars(e.Transcript)
	return []string{e.Transcript, ptr, traj}
}

// artifacts is artifactPaths of entry i (e, also once it is removed), computed once: the
// archive step, the budget and the sweep each ask for every entry's.
func (s *state) artifacts(i int, e *Entry) []string {
	if s.arts == nil {
		s.arts = make([][]string, len(s.entries))
	}
	if a := s.arts[i]; a != nil {
		return a
	}
	a := artifactPaths(e)
	if a == nil {
		a = []string{}
	}
	s.arts[i] = a
	return a
}

// referenced is resolveReferencedSessionArtifactPaths over the live store: a path is
// referenced while its count is above 0. The counts are made once, at the first call, and
// remove takes a removed entry's paths off them (the budget and the sweep each rebuilt a map
// of 300,000 paths on the 100k store).
func (s *state) referenced() map[string]int32 {
	if s.refs != nil {
		return s.refs
	}
	s.refs = make(map[string]int32, 3*len(s.entries))
	for i, e := range s.entries {
		if e == nil {
			continue
		}
		for _, a := range s.artifacts(i, e) {
			s.refs[a]++
		}
		for _, c := range e.Checkpoints {
			s.refs[c]++
		}
	}
	return s.refs
}

// sizeOf is the listed size of a path of the sessions dir, or of an archive a plan renamed.
func (s *state) sizeOf(path string) (int64, bool) {
	if n, ok := s.sizes[path]; ok {
		return n, true
	}
	if i, ok := s.names[path]; ok && i >= 0 {
		return s.in.Files[i].Size, true
	}
	if strings.HasPrefix(path, "skills-prompts/") {
		if k, ok := slices.BinarySearchFunc(s.in.Blobs, path, func(f File, p string) int { return strings.Compare(f.Name, p) }); ok {
			return s.in.Blobs[k].Size, true
		}
	}
	return 0, false
}

func (s *state) addFile(f FileAction) {
	s.fileSet[f.Path] = true
	s.files = append(s.files, f)
}

// archiveRemoved renames the transcripts of removed entries that no kept entry references
// to <name>.deleted.<ts> and deletes their trajectory sidecars (apply, enforce).
func (s *state) archiveRemoved(p *Plan, before []*Entry, files []File) []File {
	stillUsed := map[string]bool{}
	for _, e := range s.entries {
		if e != nil && e.SessionID != "" {
			stillUsed[e.SessionID] = true
		}
	}
	byName := map[string]int{}
	for i, f := range files {
		byName[f.Name] = i
	}
	stamp := ArchiveStamp(s.opt.Now)
	done := map[string]bool{}
	for i, e := range before {
		act := s.action[i]
		if act == "" || act == ActEvictBudget || e.SessionID == "" || stillUsed[e.SessionID] || done[e.SessionID] {
			continue
		}
		done[e.SessionID] = true
		cands := []string{}
		if e.Transcript != "" {
			cands = append(cands, e.Transcript)
		}
		if id, ok := ValidSessionID(e.SessionID); ok {
			cands = append(cands, id+".jsonl")
		}
		for _, c := range cands {
			fi, ok := byName[c]
			if !ok || s.fileSet[c] {
				continue
			}
			to := c + ".deleted." + stamp
			s.addFile(FileAction{Path: c, Action: FileArchive, To: to, Bytes: files[fi].Size, Step: "archive",
				Reason: fmt.Sprintf("transcript of removed entry %s (%s)", e.Key, act)})
			files[fi].Name, files[fi].class = to, 0
			s.sizes[to] = files[fi].Size // the budget reads the renamed file's size
			byName[to] = fi
			delete(byName, c)
			ptr, traj := trajectorySidecars(c)
			for _, side := range []string{ptr, traj} {
				if j, ok := byName[side]; ok && !s.fileSet[side] {
					s.addFile(FileAction{Path: side, Action: FileDelete, Bytes: files[j].Size, Step: "archive",
						Reason: "trajectory sidecar of removed entry " + e.Key})
					files[j].Size = -1
				}
			}
		}
	}
	return compact(files)
}

func compact(files []File) []File {
	out := files[:0]
	for _, f := range files {
		if f.Size >= 0 {
			out = append(out, f)
		}
	}
	slices.SortStableFunc(out, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// archiveRetention deletes .deleted. archives older than pruneAfter and .reset. archives
// older than resetArchiveRetention, by the timestamp in the name (apply, enforce).
func (s *state) archiveRetention(p *Plan, files []File) []File {
	st := s.opt.Settings
	archived := false
	for _, f := range s.files {
		if f.Action == FileArchive {
			archived = true
		}
	}
	if !archived && st.ResetArchiveRetentionMs == nil {
		return files
	}
	type rule struct {
		reason string
		ms     int64
	}
	rules := []rule{{"deleted", st.PruneAfterMs}}
	if st.ResetArchiveRetentionMs != nil {
		rules = append(rules, rule{"reset", *st.ResetArchiveRetentionMs})
	}
	for i, f := range files {
		for _, r := range rules {
			t, ok := ArchiveTime(f.Name, r.reason)
			if !ok {
				continue
			}
			if s.nowMs-float64(t.UnixMilli()) > float64(r.ms) {
				s.addFile(FileAction{Path: f.Name, Action: FileDelete, Bytes: f.Size, Step: "retention",
					Reason: fmt.Sprintf(".%s. archive older than %s", r.reason, fmtDur(r.ms))})
				files[i].Size = -1
				p.ArchiveRetired++
			}
			break
		}
	}
	return compact(files)
}

package retention

import (
	"encoding/json"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

// SQLiteEntry is one session node as 2026.9's maintenance sees it: entry_json with the node's
// columns laid over it (listSqliteSessionEntriesFromDatabase).
type SQLiteEntry struct {
	Key, SessionID string
	UpdatedAt      float64 // the updated_at column
	Archived       bool
	ArchivedAt     float64
	ArchiveReason  string
	Pinned         bool
	SpawnedBy      string
	ParentKey      string
	Status         string
	Locked         bool // modelSelectionLocked
	// Activity times (lastInteractionAt, lastActivityAt, sessionStartedAt; 0 when unset).
	LastInteractionAt, LastActivityAt, SessionStartedAt float64
	ChatType                                            string
	DeliveryExternal                                    bool
	OriginChatType                                      string // delivery.origin.chatType of an external delivery
	SessionFile                                         string // a legacy sessionFile still in entry_json
	CompactionFiles                                     []string
	PromptHash                                          string // skillsSnapshot.promptRef (sha256)
	// JSON is the entry_json as stored, for the disk-budget archive checks (which read it
	// without the columns).
	JSON json.RawMessage
}

// SQLiteFile is one file maintenance measures.
type SQLiteFile struct {
	Name    string  // relative to the sessions dir, slash-separated
	Size    int64   // bytes
	MtimeMs float64 // stat mtimeMs
}

// SQLiteInput is what one SQLite-era cleanup plan reads, gathered by GatherSQLite.
type SQLiteInput struct {
	Agent       string
	DB          string // the agent database (storePath in OpenClaw's output)
	SessionsDir string
	Entries     []SQLiteEntry // ordered by session key
	// Files are the sessions dir's top-level regular files (migration archives left out),
	// Cold its cold/ files, Blobs its skills-prompts/sha256/<hh>/ files.
	Files, Cold, Blobs []SQLiteFile
	DBBytes, WALBytes  int64
	// WindowIDs are the session ids of every window, oldest update first; DBArchives counts
	// the transcripts archived inside the database.
	WindowIDs  []string
	DBArchives int
}

// SQLiteOptions tune PlanSQLite.
type SQLiteOptions struct {
	Settings  SQLiteSettings
	Now       time.Time
	ActiveKey string
	Mode      string // "" keeps Settings.Mode; "enforce" for --enforce
}

// SQLiteSummary is the JSON `openclaw sessions cleanup --dry-run --json` prints for a
// SQLite-era store (2026.9), field for field.
type SQLiteSummary struct {
	AgentID               string        `json:"agentId"`
	StorePath             string        `json:"storePath"`
	Mode                  string        `json:"mode"`
	DryRun                bool          `json:"dryRun"`
	BeforeCount           int           `json:"beforeCount"`
	AfterCount            int           `json:"afterCount"`
	Missing               int           `json:"missing"`
	DMScopeRetired        int           `json:"dmScopeRetired"`
	ModelRunPruned        int           `json:"modelRunPruned"`
	Archived              int           `json:"archived"`
	CapArchived           int           `json:"capArchived"`
	Pruned                int           `json:"pruned"`
	Capped                int           `json:"capped"`
	UnreferencedArtifacts Artifacts     `json:"unreferencedArtifacts"`
	DiskBudget            *SQLiteBudget `json:"diskBudget"`
	WouldMutate           bool          `json:"wouldMutate"`
}

// SQLiteBudget is the disk-budget preview: the dry run measures and never simulates
// evictions (totalBytesAfter equals totalBytesBefore).
type SQLiteBudget struct {
	TotalBytesBefore int64 `json:"totalBytesBefore"`
	TotalBytesAfter  int64 `json:"totalBytesAfter"`
	RemovedFiles     int   `json:"removedFiles"`
	RemovedEntries   int   `json:"removedEntries"`
	FreedBytes       int64 `json:"freedBytes"`
	MaxBytes         int64 `json:"maxBytes"`
	HighWaterBytes   int64 `json:"highWaterBytes"`
	OverBudget       bool  `json:"overBudget"`
}

// SQLiteAction is what the plan does to one session node, and why.
type SQLiteAction struct {
	Key    string `json:"key"`
	Action string `json:"action"` // keep, prune-model-run, archive-dashboard, prune-stale, archive-age, archive-cap, cap-overflow
	Why    string `json:"why"`
}

// SQLitePlan is the SQLite-era plan of one store.
type SQLitePlan struct {
	Summary SQLiteSummary
	Actions []SQLiteAction
	Files   []string // unreferenced artifacts the sweep would remove
	Notes   []string
}

// PlanSQLite plans 2026.9's `sessions cleanup` of a SQLite-era store (previewStoreCleanup):
// model-run probes pruned (only over maxEntries), stale dashboards archived, stale sessions
// archived in place (synthetic rows deleted), the unarchived rest capped to maxEntries, the
// unreferenced-artifact sweep and the disk-budget measure. It is pure: it reads in only.
func PlanSQLite(in *SQLiteInput, o SQLiteOptions) *SQLitePlan {
	s := o.Settings
	mode := s.Mode
	if o.Mode != "" {
		mode = o.Mode
	}
	now := float64(o.Now.UnixMilli())
	p := &SQLitePlan{Summary: SQLiteSummary{AgentID: in.Agent, StorePath: in.DB, Mode: mode, DryRun: true, BeforeCount: len(in.Entries)},
		Notes: append([]string(nil), s.Notes...)}
	type state struct {
		e        *SQLiteEntry
		removed  bool
		archived bool
	}
	st := make([]state, len(in.Entries))
	unarchived := 0
	for i := range in.Entries {
		st[i] = state{e: &in.Entries[i], archived: in.Entries[i].Archived}
		if !st[i].archived {
			unarchived++
		}
	}
	var preserve map[string]bool
	if k := strings.TrimSpace(o.ActiveKey); k != "" {
		preserve = map[string]bool{strings.ToLower(k): true}
	}
	act := make([]SQLiteAction, len(in.Entries))
	for i, x := range st {
		act[i] = SQLiteAction{Key: x.e.Key, Action: "keep", Why: "not stale"}
	}
	keep := func(i int) (bool, string) {
		if st[i].archived {
			return true, "archived already (rows kept)"
		}
		return sqPreserved(st[i].e, preserve, s.PreserveRecentMs, now)
	}
	// (OpenClaw's "write" profile with forced maintenance always runs the age and cap
	// passes, so the unarchived count only decides the model-run pass.)
	remove := func(i int, action, why string) {
		st[i].removed, act[i] = true, SQLiteAction{st[i].e.Key, action, why}
	}
	archive := func(i int, action, why string) {
		st[i].archived, act[i] = true, SQLiteAction{st[i].e.Key, action, why}
		p.Summary.Archived++
	}
	// Model-run probes: only when the store is over maxEntries (forced maintenance).
	if unarchived > s.MaxEntries && s.ModelRunPruneAfterMs > 0 {
		cutoff := now - float64(s.ModelRunPruneAfterMs)
		for i := range st {
			if st[i].removed || !sqModelRun(st[i].e.Key) {
				continue
			}
			if ok, _ := keep(i); ok {
				continue
			}
			if st[i].e.UpdatedAt < cutoff {
				remove(i, "prune-model-run", "gateway model-run probe older than 24h, store over maxEntries")
				p.Summary.ModelRunPruned++
			}
		}
	}
	if d := s.ArchiveDashboardAfterMs; d != nil && *d > 0 {
		cutoff := now - float64(*d)
		for i := range st {
			if st[i].removed || !sqDashboard(st[i].e.Key) {
				continue
			}
			if ok, _ := keep(i); ok {
				continue
			}
			if a := activityAt(st[i].e); a > 0 && a < cutoff {
				archive(i, "archive-dashboard", "dashboard session inactive longer than archiveDashboardAfter")
			}
		}
	}
	if s.PruneAfterMs > 0 {
		cutoff := now - float64(s.PruneAfterMs)
		for i := range st {
			if st[i].removed {
				continue
			}
			if ok, why := keep(i); ok {
				act[i].Why = why
				continue
			}
			if st[i].e.UpdatedAt < cutoff {
				if sqSynthetic(st[i].e.Key) {
					remove(i, "prune-stale", "synthetic runtime row older than pruneAfter: deleted")
					p.Summary.Pruned++
				} else {
					archive(i, "archive-age", "older than pruneAfter: archived in place, rows kept")
				}
			}
		}
	}
	// Cap the unarchived rows to maxEntries: the least recently active eligible ones go.
	var keys []int
	for i := range st {
		if !st[i].removed && !st[i].archived {
			keys = append(keys, i)
		}
	}
	if overflow := len(keys) - max(0, s.MaxEntries); overflow > 0 && len(st) > 0 {
		var eligible []int
		for j := len(keys) - 1; j >= 0; j-- { // toReversed, then a stable sort by activity
			if ok, _ := keep(keys[j]); !ok {
				eligible = append(eligible, keys[j])
			}
		}
		sort.SliceStable(eligible, func(a, b int) bool { return activityAt(st[eligible[a]].e) < activityAt(st[eligible[b]].e) })
		for _, i := range eligible[:min(overflow, len(eligible))] {
			if sqSynthetic(st[i].e.Key) {
				remove(i, "cap-overflow", "over maxEntries: synthetic row deleted")
			} else {
				archive(i, "archive-cap", "over maxEntries: archived in place, rows kept")
				p.Summary.CapArchived++
			}
			p.Summary.Capped++
		}
	}
	p.Summary.Archived -= p.Summary.CapArchived
	after := 0
	removedPaths := map[string]bool{}
	for i := range st {
		if st[i].removed {
			for _, q := range sqArtifactPaths(in.SessionsDir, st[i].e) {
				removedPaths[q] = true
			}
			continue
		}
		after++
	}
	p.Summary.AfterCount = after
	p.Actions = act
	var kept []*SQLiteEntry
	for i := range st {
		if !st[i].removed {
			kept = append(kept, st[i].e)
		}
	}
	p.Summary.UnreferencedArtifacts, p.Files = sqSweep(in, kept, removedPaths, s.PruneAfterMs, now)
	budgetMutates := false
	p.Summary.DiskBudget, budgetMutates = sqBudget(in, s, mode, kept)
	ss := p.Summary
	p.Summary.WouldMutate = ss.Missing > 0 || ss.DMScopeRetired > 0 || ss.ModelRunPruned > 0 || ss.Archived > 0 || ss.CapArchived > 0 ||
		ss.Pruned > 0 || ss.Capped > 0 || ss.UnreferencedArtifacts.RemovedFiles > 0 || budgetMutates
	return p
}

// activityAt is getSessionMaintenanceActivityAt.
func activityAt(e *SQLiteEntry) float64 {
	return math.Max(math.Max(e.LastInteractionAt, e.LastActivityAt), math.Max(e.SessionStartedAt, e.UpdatedAt))
}

// sqPreserved is shouldPreserveNonArchivedMaintenanceEntry: pinned (where pinning applies),
// model selection locked, running, the active key, recent (preserveRecent), or protected
// (the main session, threads, external conversations, groups and channels).
func sqPreserved(e *SQLiteEntry, preserve map[string]bool, recentMs *int64, now float64) (bool, string) {
	switch {
	case e.Pinned && sqPinnable(e):
		return true, "pinned"
	case e.Locked:
		return true, "model selection locked"
	case e.Status == "running":
		return true, "running"
	case preserve[e.Key]:
		return true, "active session (--active-key)"
	case recentMs != nil && !sqSynthetic(e.Key) && activityAt(e) > 0 && now-activityAt(e) <= float64(*recentMs):
		return true, "active within preserveRecent"
	}
	if sqSynthetic(e.Key) {
		return false, ""
	}
	switch {
	case sqPrimary(e.Key):
		return true, "protected: the agent's main session"
	case sqThreadID(e.Key) != "":
		return true, "protected: thread session"
	case e.DeliveryExternal || sqProtectedConversation(e.Key):
		return true, "protected: external conversation"
	}
	chat := e.ChatType
	if chat == "" {
		chat = e.OriginChatType
	}
	switch strings.ToLower(strings.TrimSpace(chat)) {
	case "group", "channel", "thread":
		return true, "protected: chatType " + strings.ToLower(strings.TrimSpace(chat))
	}
	return false, ""
}

// sqPinnable is isPinnableSessionEntry.
func sqPinnable(e *SQLiteEntry) bool {
	if sqSubagent(e.Key) || strings.TrimSpace(e.SpawnedBy) != "" {
		return false
	}
	parent := strings.TrimSpace(e.ParentKey)
	if parent == "" {
		return true
	}
	agent, _, ok := sqParseKey(e.Key)
	return ok && parent == "agent:"+normalizeAgent(agent)+":main"
}

// sqArtifactPaths are the files an entry owns in the sessions dir: its transcript and
// trajectory sidecars (resolveSessionArtifactPathsForEntry), relative slash paths.
func sqArtifactPaths(sessionsDir string, e *SQLiteEntry) []string {
	if e.SessionID == "" {
		return nil
	}
	t := e.SessionID + ".jsonl"
	if f := strings.TrimSpace(e.SessionFile); f != "" {
		abs := f
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(sessionsDir, f)
		}
		rel, err := filepath.Rel(sessionsDir, filepath.Clean(abs))
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			return nil
		}
		t = filepath.ToSlash(rel)
	}
	base := strings.TrimSuffix(t, ".jsonl")
	return []string{t, base + ".trajectory-path.json", base + ".trajectory.jsonl"}
}

// sqSweep is pruneUnreferencedSessionArtifacts as a dry run: store temps older than 5
// minutes, and transcripts, checkpoints and trajectories older than pruneAfter that no kept
// entry references, plus prompt blobs no kept entry names. excluded are the removed
// entries' own files (their removal is counted with the entry).
func sqSweep(in *SQLiteInput, kept []*SQLiteEntry, excluded map[string]bool, pruneAfterMs int64, now float64) (Artifacts, []string) {
	older := float64(max(pruneAfterMs, 0))
	a := Artifacts{ScannedFiles: len(in.Files) + len(in.Blobs), OlderThanMs: int64(older)}
	cutoff, tempCutoff := now-older, now-StoreTempStaleMs
	blobCutoff := now - math.Max(older, StoreTempStaleMs)
	unrefKind := func(name string) bool {
		return IsCheckpoint(name) || IsTrajectory(name) || IsPrimaryTranscript(name)
	}
	var referenced map[string]bool
	needRefs := false
	for _, f := range in.Files {
		if f.MtimeMs <= cutoff && !excluded[f.Name] && unrefKind(f.Name) {
			needRefs = true
			break
		}
	}
	if needRefs {
		referenced = map[string]bool{}
		for _, e := range kept {
			for _, q := range sqArtifactPaths(in.SessionsDir, e) {
				referenced[q] = true
			}
			for _, cp := range e.CompactionFiles {
				if rel, err := filepath.Rel(in.SessionsDir, filepath.Clean(cp)); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
					referenced[filepath.ToSlash(rel)] = true
				}
			}
		}
	}
	var out []string
	for _, f := range in.Files {
		if excluded[f.Name] {
			continue
		}
		ok := false
		if IsStoreTemp(f.Name, filepath.Base(in.DB)) {
			ok = f.MtimeMs <= tempCutoff
		} else {
			ok = f.MtimeMs <= cutoff && unrefKind(f.Name) && !referenced[f.Name]
		}
		if ok {
			a.RemovedFiles++
			a.FreedBytes += f.Size
			out = append(out, f.Name)
		}
	}
	hashes := map[string]bool{}
	for _, e := range kept {
		if e.PromptHash != "" {
			hashes[e.PromptHash] = true
		}
	}
	for _, f := range in.Blobs {
		if excluded[f.Name] {
			continue
		}
		base := filepath.Base(f.Name)
		ok := false
		if IsBlobTemp(base) {
			ok = f.MtimeMs <= tempCutoff
		} else if h, isBlob := strings.CutSuffix(base, ".txt"); isBlob && len(h) == 64 {
			ok = f.MtimeMs <= blobCutoff && !hashes[h]
		}
		if ok {
			a.RemovedFiles++
			a.FreedBytes += f.Size
			out = append(out, f.Name)
		}
	}
	return a, out
}

// sqBudget is inspectSqliteSessionHistoryDiskBudget: the physical total (sessions dir files,
// cold archives, prompt blobs, the database and its WAL) against maxDiskBytes. The dry run
// evicts nothing; over budget in enforce mode it reports that enforcing would change
// something when archives exist or old windows or cap-archived rows could go.
func sqBudget(in *SQLiteInput, s SQLiteSettings, mode string, kept []*SQLiteEntry) (*SQLiteBudget, bool) {
	if s.MaxDiskBytes == nil || s.HighWaterBytes == nil {
		return nil, false
	}
	var total int64
	for _, group := range [][]SQLiteFile{in.Files, in.Cold, in.Blobs} {
		for _, f := range group {
			total += f.Size
		}
	}
	total += in.DBBytes + in.WALBytes
	b := &SQLiteBudget{TotalBytesBefore: total, TotalBytesAfter: total, MaxBytes: *s.MaxDiskBytes, HighWaterBytes: *s.HighWaterBytes, OverBudget: total > *s.MaxDiskBytes}
	if !b.OverBudget || mode != "enforce" {
		return b, false
	}
	if in.DBArchives > 0 {
		return b, true
	}
	for _, f := range in.Files {
		switch store.Classify(f.Name).Kind {
		case store.KindResetArchive, store.KindDeletedArchive, store.KindBakArchive:
			return b, true // isRetainedSessionTranscriptArchiveName
		}
	}
	current := map[string]bool{}
	for _, e := range in.Entries {
		current[e.SessionID] = true
	}
	for _, id := range in.WindowIDs {
		if !current[id] {
			return b, true // a historical window the budget could evict
		}
	}
	for _, e := range in.Entries {
		if e.Archived && e.ArchiveReason == "active-session-cap" {
			if ok, _ := sqPreserved(jsonOnly(e), nil, s.PreserveRecentMs, 0); !ok {
				return b, true
			}
		}
	}
	return b, false
}

// jsonOnly is the entry as entry_json alone has it (the budget's archive scan reads no
// columns): keys, lock, status and activity from the JSON.
func jsonOnly(e SQLiteEntry) *SQLiteEntry {
	var j struct {
		Status               string   `json:"status"`
		ModelSelectionLocked bool     `json:"modelSelectionLocked"`
		PinnedAt             *float64 `json:"pinnedAt"`
		SpawnedBy            string   `json:"spawnedBy"`
		ParentSessionKey     string   `json:"parentSessionKey"`
		ChatType             string   `json:"chatType"`
	}
	json.Unmarshal(e.JSON, &j)
	out := e
	out.Status, out.Locked, out.Pinned, out.SpawnedBy, out.ParentKey = j.Status, j.ModelSelectionLocked, j.PinnedAt != nil, j.SpawnedBy, j.ParentSessionKey
	out.ChatType = j.ChatType
	return &out
}

package retention

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

// ErrNonCanonical is returned for a database holding a session key OpenClaw 2026.9 refuses
// to maintain until `openclaw doctor --fix` rewrote it (a legacy key without agent:<id>:).
var ErrNonCanonical = errors.New("non-canonical persisted row")

var (
	migrationArchiveRe = lazyre.New(`\.migrated(?:\.\d+)?$`)
	preDoctorRepairRe  = lazyre.New(`\.jsonl\.pre-doctor-(?:branch|openai-codex)-repair-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.bak$`)
	blobDirRe          = lazyre.New(`^[a-f0-9]{2}$`)
)

// IsSQLiteStore reports whether a cleanup target names an agent database (--store DB) or a
// sessions dir whose agent is SQLite era, and returns the agent's sessions dir.
func IsSQLiteStore(t Target) (sessionsDir string, ok bool) {
	if agentdb.IsDBPath(t.Store) {
		return filepath.Join(filepath.Dir(filepath.Dir(t.Store)), "sessions"), true
	}
	dir := filepath.Dir(t.Store)
	e := store.DetectEra(dir)
	return dir, e.SQLite || e.Unknown != "" // an unreadable database is refused, never planned as JSONL
}

// GatherSQLite reads what PlanSQLite needs for the SQLite-era agent owning sessionsDir, from
// one read-only snapshot of its database and a listing of the sessions dir.
func GatherSQLite(ctx context.Context, sessionsDir, agent string) (*SQLiteInput, error) {
	era := store.DetectEra(sessionsDir)
	if !era.SQLite {
		if era.Unknown != "" {
			return nil, fmt.Errorf("%s: %w: %s", sessionsDir, store.ErrEraUnknown, era.Unknown)
		}
		return nil, fmt.Errorf("%s: not a SQLite-era agent", sessionsDir)
	}
	in := &SQLiteInput{Agent: normalizeAgent(agent), DB: era.DB, SessionsDir: sessionsDir}
	if st, err := os.Stat(era.DB); err == nil {
		in.DBBytes = st.Size()
	}
	if st, err := os.Stat(era.DB + "-wal"); err == nil {
		in.WALBytes = st.Size()
	}
	db, err := agentdb.OpenSessions(ctx, era.DB)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.Rows(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if _, _, ok := sqParseKey(r.Key); !ok && strings.ToLower(strings.TrimSpace(r.Key)) != "global" {
			return nil, fmt.Errorf("%s: %w resolves to session key %s; stop the Gateway and run openclaw doctor --fix", era.DB, ErrNonCanonical, r.Key)
		}
		e, err := sqEntryOf(r)
		if err != nil {
			return nil, fmt.Errorf("%s: session node %q: %w", era.DB, r.Key, err)
		}
		in.Entries = append(in.Entries, e)
	}
	windows, err := db.Windows(ctx)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(windows, func(i, j int) bool {
		if windows[i].UpdatedAt != windows[j].UpdatedAt {
			return windows[i].UpdatedAt < windows[j].UpdatedAt
		}
		return windows[i].SessionID < windows[j].SessionID
	})
	for _, w := range windows {
		in.WindowIDs = append(in.WindowIDs, w.SessionID)
	}
	archives, err := db.Archives(ctx)
	if err != nil {
		return nil, err
	}
	in.DBArchives = len(archives)
	if in.Files, err = sqListFiles(sessionsDir, ""); err != nil {
		return nil, err
	}
	if in.Cold, err = sqListFiles(sessionsDir, "cold"); err != nil {
		return nil, err
	}
	if in.Blobs, err = sqListBlobs(sessionsDir); err != nil {
		return nil, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	return in, nil
}

// sqEntryOf lays the node's columns over its entry_json, as OpenClaw's row projection does.
func sqEntryOf(r agentdb.Row) (SQLiteEntry, error) {
	var j struct {
		ArchivedAt           *float64 `json:"archivedAt"`
		ArchiveReason        string   `json:"archiveReason"`
		PinnedAt             *float64 `json:"pinnedAt"`
		SpawnedBy            string   `json:"spawnedBy"`
		ParentSessionKey     string   `json:"parentSessionKey"`
		Status               string   `json:"status"`
		ModelSelectionLocked bool     `json:"modelSelectionLocked"`
		LastInteractionAt    float64  `json:"lastInteractionAt"`
		LastActivityAt       float64  `json:"lastActivityAt"`
		SessionStartedAt     float64  `json:"sessionStartedAt"`
		ChatType             string   `json:"chatType"`
		SessionFile          string   `json:"sessionFile"`
		Delivery             *struct {
			Kind   string `json:"kind"`
			Origin *struct {
				ChatType string `json:"chatType"`
			} `json:"origin"`
		} `json:"delivery"`
		SkillsSnapshot *struct {
			PromptRef *struct {
				Algorithm string `json:"algorithm"`
				Hash      string `json:"hash"`
			} `json:"promptRef"`
		} `json:"skillsSnapshot"`
		CompactionCheckpoints []struct {
			Pre  struct{ SessionFile string } `json:"preCompaction"`
			Post struct{ SessionFile string } `json:"postCompaction"`
		} `json:"compactionCheckpoints"`
	}
	if err := json.Unmarshal(r.Entry, &j); err != nil {
		return SQLiteEntry{}, fmt.Errorf("entry_json: %w", err)
	}
	e := SQLiteEntry{Key: r.Key, SessionID: r.SessionID, UpdatedAt: float64(r.UpdatedAt), ArchiveReason: j.ArchiveReason,
		SpawnedBy: j.SpawnedBy, ParentKey: j.ParentSessionKey, Status: j.Status, Locked: j.ModelSelectionLocked,
		LastInteractionAt: j.LastInteractionAt, LastActivityAt: j.LastActivityAt, SessionStartedAt: j.SessionStartedAt,
		ChatType: j.ChatType, SessionFile: j.SessionFile, JSON: r.Entry}
	if j.ArchivedAt != nil {
		e.Archived, e.ArchivedAt = true, *j.ArchivedAt
	}
	if r.Archived {
		e.Archived, e.ArchivedAt = true, float64(r.ArchivedAt)
	}
	e.Pinned = j.PinnedAt != nil || r.PinnedAt != nil
	if r.Status != "" {
		e.Status = r.Status
	}
	if r.SpawnedBy != "" {
		e.SpawnedBy = r.SpawnedBy
	}
	if r.ParentSessionKey != "" && r.ParentSessionKey != r.SpawnedBy {
		e.ParentKey = r.ParentSessionKey
	}
	if r.LastInteractionAt != nil {
		e.LastInteractionAt = float64(*r.LastInteractionAt)
	}
	if r.LastActivityAt != nil {
		e.LastActivityAt = float64(*r.LastActivityAt)
	}
	if r.ChatType != "" {
		e.ChatType = r.ChatType
	}
	if j.Delivery != nil && j.Delivery.Kind == "external" {
		e.DeliveryExternal = true
		if j.Delivery.Origin != nil {
			e.OriginChatType = j.Delivery.Origin.ChatType
		}
	}
	if r.Delivery != nil { // the primary conversation's target replaces the stored delivery
		e.DeliveryExternal, e.OriginChatType = true, ""
	}
	if s := j.SkillsSnapshot; s != nil && s.PromptRef != nil && s.PromptRef.Algorithm == "sha256" {
		e.PromptHash = s.PromptRef.Hash
	}
	for _, c := range j.CompactionCheckpoints {
		for _, f := range []string{c.Pre.SessionFile, c.Post.SessionFile} {
			if f = strings.TrimSpace(f); f != "" {
				e.CompactionFiles = append(e.CompactionFiles, f)
			}
		}
	}
	return e, nil
}

// sqListFiles lists the regular files of sessionsDir/sub (not recursing; symlinks and
// migration rollback archives left out), as readSessionsDirFiles does.
func sqListFiles(sessionsDir, sub string) ([]SQLiteFile, error) {
	dir := filepath.Join(sessionsDir, sub)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []SQLiteFile
	for _, de := range ents {
		if !de.Type().IsRegular() || migrationArchiveRe.MatchString(de.Name()) || preDoctorRepairRe.MatchString(de.Name()) {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		out = append(out, SQLiteFile{Name: filepath.ToSlash(filepath.Join(sub, de.Name())), Size: fi.Size(), MtimeMs: float64(fi.ModTime().UnixNano()) / 1e6})
	}
	return out, nil
}

// sqListBlobs lists skills-prompts/sha256/<hh>/ blobs and blob temps.
func sqListBlobs(sessionsDir string) ([]SQLiteFile, error) {
	root := filepath.Join("skills-prompts", "sha256")
	dirs, err := os.ReadDir(filepath.Join(sessionsDir, root))
	if err != nil {
		return nil, nil
	}
	var out []SQLiteFile
	for _, d := range dirs {
		if !d.IsDir() || !blobDirRe.MatchString(d.Name()) {
			continue
		}
		files, err := sqListFiles(sessionsDir, filepath.Join(root, d.Name()))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if base := filepath.Base(f.Name); IsBlobName(base) || IsBlobTemp(base) {
				out = append(out, f)
			}
		}
	}
	return out, nil
}

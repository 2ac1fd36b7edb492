package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/progress"
)

var (
	// ErrNoAgents is returned by Targets when the state dir has no agents/<id>/sessions dir.
	ErrNoAgents = errors.New("no agents found")
	// ErrNotSessionsDir is returned by Targets for a PATH that is a file other than sessions.json.
	ErrNotSessionsDir = errors.New("not a sessions dir, a sessions.json or a state dir")
)

// Target is one sessions dir to work on.
type Target struct {
	Agent       string `json:"agent,omitempty"` // "" when the dir is not in the agents layout
	SessionsDir string `json:"sessions_dir"`
	StateDir    string `json:"state_dir,omitempty"`
	// StorePath is the store file; "" means <SessionsDir>/sessions.json. A configured
	// session.store template may name it otherwise.
	StorePath string `json:"store_path,omitempty"`
}

// Store returns the target's store file.
func (t Target) Store() string {
	if t.StorePath != "" {
		return t.StorePath
	}
	return filepath.Join(t.SessionsDir, StoreFile)
}

// Targets is Scope{StateDir: stateDir, Agent: agent, All: all, Paths: paths}.Targets().
func Targets(stateDir, agent string, all bool, paths []string) ([]Target, error) {
	return Scope{StateDir: stateDir, Agent: agent, All: all, Paths: paths}.Targets()
}

// Count is a number of files and their bytes.
type Count struct {
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
}

func (c *Count) add(f File) { c.Files++; c.Bytes += f.Size }

// StoreStats describes the sessions.json of a sessions dir.
type StoreStats struct {
	Present bool  `json:"present"`
	Bytes   int64 `json:"bytes"`
	Entries int   `json:"entries"`
	// Corrupt is the parse error of a sessions.json that is not a JSON object ("" when fine).
	// OpenClaw would read it as empty and overwrite it on its next write.
	Corrupt string `json:"corrupt,omitempty"`
	// Canonical is true when the file is exactly what OpenClaw's writer produces.
	Canonical bool `json:"canonical"`
	// Duplicates counts keys written more than once; DropRows counts rows a current gateway
	// would drop on load (not an object, unsafe sessionId).
	Duplicates int `json:"duplicate_keys"`
	DropRows   int `json:"drop_rows"`
	// Heavy blobs carried by the entries (bytes of raw JSON).
	SkillsSnapshotBytes     int64 `json:"skills_snapshot_bytes"`
	SystemPromptReportBytes int64 `json:"system_prompt_report_bytes"`
}

// LockStats counts the lock files of a sessions dir.
type LockStats struct {
	Live  int    `json:"live"`
	Stale int    `json:"stale"`
	List  []Lock `json:"list,omitempty"`
}

// AgentStats is the inventory of one sessions dir.
type AgentStats struct {
	Agent       string `json:"agent"`
	SessionsDir string `json:"sessions_dir"`
	// NoDir is set when the sessions dir does not exist (a configured agent that never ran).
	NoDir bool       `json:"no_dir,omitempty"`
	Era   Era        `json:"era"`
	Store StoreStats `json:"store"`
	// DB is what the agent database holds, for a SQLite-era agent (nil otherwise).
	DB *DBStats `json:"db,omitempty"`
	// Transcripts are the live (primary) transcripts, topics included; Topics is the subset.
	Transcripts Count `json:"transcripts"`
	Topics      Count `json:"topics"`
	// Archives are reset, deleted and bak archives and legacy store backups (ArchivesByKind
	// splits them); Compressed counts the .zst ones among them.
	Archives       Count          `json:"archives"`
	ArchivesByKind map[Kind]Count `json:"archives_by_kind"`
	Compressed     Count          `json:"compressed_archives"`
	// Orphans are transcripts, checkpoints and trajectory files no entry references;
	// OrphanTranscripts is the primary-transcript subset (what `openclaw doctor` reports).
	Orphans           Count `json:"orphans"`
	OrphanTranscripts Count `json:"orphan_transcripts"`
	// MissingTranscripts counts entries whose transcript file does not exist; Outside counts
	// entries whose transcript resolves outside the sessions dir; NoSession counts rows with
	// neither a usable sessionId nor sessionFile (routing rows).
	MissingTranscripts int `json:"missing_transcripts"`
	// MissingArchived is the subset of MissingTranscripts whose transcript survives only as a
	// reset/deleted/bak archive.
	MissingArchived int            `json:"missing_archived"`
	MissingKeys     []string       `json:"missing_keys,omitempty"`
	Outside         int            `json:"outside_transcripts"`
	NoSession       int            `json:"no_session"`
	Locks           LockStats      `json:"locks"`
	Kinds           map[Kind]Count `json:"kinds"`
	Files           Count          `json:"files"`
	Dirs            int            `json:"dirs"`
	Symlinks        int            `json:"symlinks"`
	// Activity from the entries' updatedAt (zero when no entry has one) and from file mtimes.
	OldestUpdate time.Time `json:"oldest_update,omitzero"`
	NewestUpdate time.Time `json:"newest_update,omitzero"`
	OldestMtime  time.Time `json:"oldest_mtime,omitzero"`
	NewestMtime  time.Time `json:"newest_mtime,omitzero"`
	// Unreadable lists what could not be read ("path: why"): the counts above leave it out,
	// so the inventory is partial.
	Unreadable []string `json:"unreadable,omitempty"`
}

// Partial reports whether some agent had something that could not be read.
func (s *Stats) Partial() bool {
	for _, a := range s.Agents {
		if len(a.Unreadable) > 0 {
			return true
		}
	}
	return false
}

// Stats is the inventory of several sessions dirs.
type Stats struct {
	StateDir string `json:"state_dir,omitempty"`
	// Notes are remarks about the run itself (e.g. a config that could not be read).
	Notes  []string     `json:"notes,omitempty"`
	Now    time.Time    `json:"now"`
	Agents []AgentStats `json:"agents"`
}

// StatsOptions tune Inventory.
type StatsOptions struct {
	Now  time.Time   // the clock for lock ages
	Lock LockOptions // lock inspection (Now is filled from Now)
}

// Inventory builds the stats of every target. It reads listings, sessions.json, lock payloads
// and, for a SQLite-era agent, its database's tables (counted from their indexes), never
// transcripts, and writes nothing. c counts listed bytes.
func Inventory(ctx context.Context, targets []Target, opts StatsOptions, c progress.Counter) (Stats, error) {
	c = progress.OrNoop(c)
	defer c.Done()
	s := Stats{Now: opts.Now}
	for i, t := range targets {
		if i == 0 {
			s.StateDir = t.StateDir
		} else if t.StateDir != s.StateDir {
			s.StateDir = "" // several state dirs: each agent names its sessions dir
		}
	}
	// List every dir first so the progress total is known once.
	listings := make([]Listing, len(targets))
	var total int64
	unreadable := make([][]string, len(targets))
	for i, t := range targets {
		l, err := List(t.SessionsDir)
		if errIsMissingDir(err) {
			l, err = Listing{Dir: t.SessionsDir}, nil // a configured agent that never ran
		}
		if err != nil {
			// an unreadable sessions dir is reported, never counted as empty
			l, unreadable[i] = Listing{Dir: t.SessionsDir}, []string{err.Error()}
		}
		listings[i] = l
		for _, f := range l.Files {
			total += f.Size
		}
	}
	c.SetTotal(total)
	for i, t := range targets {
		a, err := inventoryOne(ctx, t, listings[i], opts, c)
		if err != nil {
			return s, err
		}
		a.Unreadable = append(unreadable[i], a.Unreadable...)
		s.Agents = append(s.Agents, a)
	}
	return s, nil
}

func inventoryOne(ctx context.Context, t Target, l Listing, opts StatsOptions, c progress.Counter) (AgentStats, error) {
	a := AgentStats{Agent: t.Agent, SessionsDir: t.SessionsDir, Kinds: map[Kind]Count{}, ArchivesByKind: map[Kind]Count{}}
	a.Era = DetectEra(t.SessionsDir)
	if _, err := os.Stat(t.SessionsDir); errIsMissingDir(err) {
		a.NoDir = true
	}

	st := New()
	storePath := t.Store()
	if fi, err := os.Lstat(storePath); err == nil {
		a.Store.Present = true
		a.Store.Bytes = fi.Size()
		loaded, err := Load(storePath)
		switch {
		case errors.Is(err, ErrCorrupt):
			a.Store.Corrupt = err.Error()
		case err != nil: // a directory or FIFO under its name, no permission, over the cap
			a.Unreadable = append(a.Unreadable, err.Error())
		default:
			st = loaded
			a.Store.Canonical = st.Canonical()
		}
	}
	entries := st.Entries()
	a.Store.Entries = len(entries)
	a.Store.Duplicates = len(st.Duplicates())
	r := NewResolver(t.SessionsDir, t.Agent, t.StateDir)
	for i, e := range entries {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return a, err
			}
		}
		if e.DropReason() != "" {
			a.Store.DropRows++
		}
		a.Store.SkillsSnapshotBytes += int64(e.SkillsSnapshotSize())
		a.Store.SystemPromptReportBytes += int64(e.SystemPromptReportSize())
		if ms, ok := e.UpdatedAt(); ok {
			u := time.UnixMilli(ms).UTC()
			if a.OldestUpdate.IsZero() || u.Before(a.OldestUpdate) {
				a.OldestUpdate = u
			}
			if u.After(a.NewestUpdate) {
				a.NewestUpdate = u
			}
		}
		tr := r.Transcript(e)
		if tr.Path == "" {
			a.NoSession++
			continue
		}
		if tr.Outside {
			a.Outside++
		}
		if _, err := os.Lstat(tr.Path); err != nil {
			a.MissingTranscripts++
			a.MissingKeys = append(a.MissingKeys, e.Key)
		}
	}
	refs := r.References(entries)
	if len(a.MissingKeys) > 0 {
		archived := map[string]bool{}
		for _, f := range l.Files {
			if k := f.Class.Kind; k == KindResetArchive || k == KindDeletedArchive || k == KindBakArchive {
				archived[f.Class.Base] = true
			}
		}
		for _, key := range a.MissingKeys {
			e, _ := st.Get(key)
			if archived[filepath.Base(r.Transcript(e).Path)] {
				a.MissingArchived++
			}
		}
	}

	lockOpts := opts.Lock
	lockOpts.Now = opts.Now
	for i, f := range l.Files {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return a, err
			}
		}
		c.Add(f.Size)
		if f.Dir {
			a.Dirs++
			continue
		}
		if f.Symlink {
			a.Symlinks++
		}
		k := f.Class.Kind
		if filepath.Join(t.SessionsDir, f.Name) == storePath {
			k = KindStore // a store named by a session.store template
		}
		a.Files.add(f)
		cnt := a.Kinds[k]
		cnt.add(f)
		a.Kinds[k] = cnt
		if a.OldestMtime.IsZero() || f.ModTime.Before(a.OldestMtime) {
			a.OldestMtime = f.ModTime.UTC()
		}
		if f.ModTime.After(a.NewestMtime) {
			a.NewestMtime = f.ModTime.UTC()
		}
		switch {
		case k.IsPrimary():
			a.Transcripts.add(f)
			if k == KindTopic {
				a.Topics.add(f)
			}
		case k.IsArchive():
			a.Archives.add(f)
			ak := a.ArchivesByKind[k]
			ak.add(f)
			a.ArchivesByKind[k] = ak
			if f.Class.Compressed {
				a.Compressed.add(f)
			}
		case k.IsLock():
			if f.Symlink || !f.Regular {
				continue // never read through a symlink, never open a FIFO or device
			}
			lk, err := InspectLockFile(filepath.Join(t.SessionsDir, f.Name), lockOpts)
			if err != nil {
				return a, err
			}
			lk.Path = f.Name
			if lk.Stale {
				a.Locks.Stale++
			} else {
				a.Locks.Live++
			}
			a.Locks.List = append(a.Locks.List, lk)
		}
		if sweepable(k) && len(refs[f.Name]) == 0 {
			a.Orphans.add(f)
			if k.IsPrimary() {
				a.OrphanTranscripts.add(f)
			}
		}
	}
	if a.Era.SQLite {
		a.DB = readDBStats(ctx, a.Era.DB, a.Files.Bytes)
	}
	return a, nil
}

// sweepable kinds are the ones OpenClaw's unreferenced-artifact sweep considers.
func sweepable(k Kind) bool {
	return k.IsPrimary() || k == KindCheckpoint || k == KindTrajectory || k == KindTrajectoryPointer
}

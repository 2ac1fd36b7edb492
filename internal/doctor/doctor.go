// Package doctor runs every check clawdoctor knows over a whole state dir and plans the safe
// migrations an operator needs: legacy config keys, stale locks, leftovers, legacy session
// rows, stale CLI session bindings, oversized store entries, orphan transcripts and the SQLite
// era. Like the other planners it decides first (Run without Fix is a dry run through the same
// code) and then applies, with a backup of every byte it changes or moves.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/openclaw"
	"github.com/clawdoctor/clawdoctor/internal/safefile"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

// Gate says what a fix needs before it is applied.
type Gate string

const (
	GateNone Gate = "report" // nothing automatic: the message says what to run or edit
	GateFix  Gate = "fix"    // applied by --fix
	GateYes  Gate = "yes"    // deletes or archives history: needs --fix --yes (or a yes on a TTY)
)

// Status is what happened to a Problem in this run.
type Status string

const (
	StatusFound    Status = "found"     // reported; no automatic fix
	StatusWouldFix Status = "would-fix" // a fix exists; run with --fix (and --yes when gated)
	StatusFixed    Status = "fixed"
	StatusRefused  Status = "refused" // a fix exists but is refused here (live lock, SQLite era)
	StatusFailed   Status = "failed"
)

// Problem is one thing doctor found, with what --fix does about it.
type Problem struct {
	Check    string         `json:"check"`
	Severity string         `json:"severity"` // error, warning or info
	Agent    string         `json:"agent,omitempty"`
	Path     string         `json:"path,omitempty"`
	Message  string         `json:"message"`
	Fix      string         `json:"fix,omitempty"` // what the fix does
	Gate     Gate           `json:"gate"`          // what it needs
	Status   Status         `json:"status"`        // what happened
	Backup   string         `json:"backup,omitempty"`
	Bytes    int64          `json:"bytes,omitempty"`
	Edit     string         `json:"edit,omitempty"` // the exact manual edit when no safe automatic one exists
	Error    string         `json:"error,omitempty"`
	Evidence map[string]any `json:"evidence,omitempty"`

	apply       func(b *Backups) (backup string, err error)
	refused     string      // why the fix may not run here
	failed      string      // why the check itself could not read what it needed
	edits       *agentState // the fix edits this agent's sessions.json in memory (see flushStores)
	editsConfig bool        // the fix edits the config text in memory (see flushConfig)
}

// Options configure a doctor run.
type Options struct {
	StateDir   string
	Agents     []string // agent ids to check; empty means every agent on disk
	ConfigPath string   // --config; "" means OpenClaw's own lookup
	Fix        bool     // apply GateFix fixes
	Yes        bool     // also apply GateYes fixes
	Force      bool     // write even while a live lock says a gateway is running
	// FollowSymlinks lets an agent whose sessions dir is reached through a symlink out of the
	// state dir be written (--follow-symlinks).
	FollowSymlinks bool
	// Release is the OpenClaw release whose repair rules and behaviour the audit and repair
	// plans follow; the zero value means openclaw.Default.
	Release      openclaw.Release
	RebuildStore bool      // re-attach orphan transcripts as store entries instead of archiving
	Now          time.Time // clock for ages and backup names
	BackupDir    string    // where backups go; default <state-dir>/clawdoctor-backups/<stamp>
	// LeftoverAge is how old a leftover (store temp, repair backup, sessions.json.bak.*) must
	// be before --fix --yes moves it away. Zero means the default of 7 days.
	LeftoverAge time.Duration
	// Confirm, when set, is asked before GateYes fixes when Yes is false (a TTY prompt).
	Confirm func(question string) bool
	// LockWait is how long a transcript whose write lock a live writer holds is waited for
	// (planning its repair and applying it) before the fix is refused with the holder named.
	LockWait time.Duration
	Getenv   func(string) string
}

// AgentSummary is the per-agent line of the report.
type AgentSummary struct {
	ID          string `json:"id"`
	SessionsDir string `json:"sessionsDir"`
	Entries     int    `json:"entries"`
	Transcripts int    `json:"transcripts"`
	SQLite      bool   `json:"sqlite"`
	// Era is jsonl, sqlite, sqlite (half-migrated) or unknown; DBSessions and DBEvents count
	// what the database of a SQLite-era agent holds, beside the JSONL numbers.
	Era        string `json:"era"`
	DBSessions int    `json:"dbSessions"`
	DBEvents   int64  `json:"dbEvents"`
	Problems   int    `json:"problems"`
	Fixable    int    `json:"fixable"`
	Fixed      int    `json:"fixed"`
}

// Result is everything one run found and did.
type Result struct {
	StateDir   string         `json:"stateDir"`
	ConfigPath string         `json:"configPath,omitempty"`
	Fix        bool           `json:"fix"`
	Yes        bool           `json:"yes"`
	BackupDir  string         `json:"backupDir,omitempty"`
	Agents     []AgentSummary `json:"agents"`
	Problems   []Problem      `json:"problems"`
	Next       []string       `json:"next"`
	Notes      []string       `json:"notes,omitempty"` // e.g. temps of killed runs removed
}

// Counts returns how many problems are left unfixed, how many could be fixed by --fix (with
// --yes when gated), how many fixes were refused or failed, and how many were applied.
// Informational findings with nothing to fix (a model fallback in history, what retention
// would prune) are not open problems: a healthy state dir exits 0.
func (r *Result) Counts() (open, fixable, refusedOrFailed, fixed int) {
	for _, p := range r.Problems {
		switch p.Status {
		case StatusFixed:
			fixed++
		case StatusFound:
			if p.isOpen() {
				open++
			}
		case StatusWouldFix:
			open++
			fixable++
		case StatusRefused, StatusFailed:
			open++
			refusedOrFailed++
		}
	}
	return
}

// Run checks the state dir and, with Fix, applies the fixes its gates allow. When ctx is
// cancelled during the fixes, the ones not reached are left undone and Run returns the result
// so far (what was already moved or archived, with its backup) together with ctx's error.
func Run(ctx context.Context, opts Options) (*Result, error) {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	if opts.LeftoverAge == 0 {
		opts.LeftoverAge = 7 * 24 * time.Hour
	}
	st, err := inspect(ctx, opts)
	if err != nil {
		return nil, err
	}
	res := &Result{StateDir: opts.StateDir, ConfigPath: st.configPath, Fix: opts.Fix, Yes: opts.Yes}
	probs, err := runChecks(ctx, st)
	if err != nil {
		return nil, err
	}
	backups := &Backups{StateDir: opts.StateDir, Dir: opts.BackupDir, Now: opts.Now}
	askedYes := map[string]bool{}
	var interrupted error
	for i := range probs {
		p := &probs[i]
		if interrupted == nil {
			interrupted = ctx.Err()
		}
		switch {
		case p.failed != "":
			p.Status = StatusFailed // a read that failed: never a clean pass
			p.Error = p.failed
		case interrupted != nil && p.apply != nil && p.refused == "":
			p.Status = StatusWouldFix // not reached before the interrupt
		case p.apply == nil:
			p.Status = StatusFound
		case p.refused != "":
			p.Status = StatusRefused
			p.Error = p.refused
		case !opts.Fix:
			p.Status = StatusWouldFix
		case p.Gate == GateYes && !opts.Yes && !confirm(opts, p.Check, askedYes):
			p.Status = StatusWouldFix
		default:
			backup, err := p.apply(backups)
			p.Backup = backup
			var busy *busyError
			switch {
			case errors.As(err, &busy):
				p.Status = StatusRefused // a live writer held the file; nothing was changed
				p.Error = err.Error()
			case err != nil:
				p.Status = StatusFailed
				p.Error = err.Error()
			default:
				p.Status = StatusFixed
			}
		}
	}
	if interrupted == nil {
		flushConfig(st, backups, probs)
		flushStores(st, backups, probs)
	} else {
		// Edits made in memory are not written after an interrupt.
		for i := range probs {
			if p := &probs[i]; p.Status == StatusFixed && (p.edits != nil || p.editsConfig) {
				p.Status, p.Error = StatusWouldFix, "interrupted before the file was written"
			}
		}
	}
	sort.SliceStable(probs, func(i, j int) bool {
		if probs[i].Agent != probs[j].Agent {
			return probs[i].Agent < probs[j].Agent
		}
		return severityRank(probs[i].Severity) < severityRank(probs[j].Severity)
	})
	res.Problems = probs
	res.BackupDir = backups.used()
	res.Agents = summarize(st, probs)
	for _, a := range st.agents {
		res.Notes = append(res.Notes, a.tempNotes...)
	}
	res.Next = nextSteps(opts, res)
	return res, interrupted
}

// confirm asks once per check kind on a TTY whether history may be archived or removed.
func confirm(opts Options, check string, asked map[string]bool) bool {
	if opts.Confirm == nil {
		return false
	}
	if v, ok := asked[check]; ok {
		return v
	}
	v := opts.Confirm(fmt.Sprintf("apply the %s fixes (they move or archive files; backups are kept)?", check))
	asked[check] = v
	return v
}

func severityRank(s string) int {
	switch s {
	case "error":
		return 0
	case "warning":
		return 1
	}
	return 2
}

func summarize(st *state, probs []Problem) []AgentSummary {
	var out []AgentSummary
	for _, a := range st.agents {
		s := AgentSummary{ID: a.id, SessionsDir: a.dir, Entries: a.entries, Transcripts: a.transcripts, SQLite: a.sqliteEra(),
			Era: "jsonl", DBSessions: a.dbSessions, DBEvents: a.dbEvents}
		switch {
		case a.era.SQLite && a.era.HalfMigrated:
			s.Era = "sqlite (half-migrated)"
		case a.era.SQLite:
			s.Era = "sqlite"
		case a.era.Unknown != "":
			s.Era = "unknown"
		}
		for _, p := range probs {
			if p.Agent != a.id {
				continue
			}
			if p.isOpen() {
				s.Problems++
			}
			switch p.Status {
			case StatusWouldFix:
				s.Fixable++
			case StatusFixed:
				s.Fixed++
			}
		}
		out = append(out, s)
	}
	return out
}

// nextSteps turns what is left into the commands an operator should run next.
func nextSteps(opts Options, res *Result) []string {
	var next []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			next = append(next, s)
		}
	}
	sd := quote(opts.StateDir)
	needFix, needYes := false, false
	for _, p := range res.Problems {
		if p.Status != StatusWouldFix {
			continue
		}
		if p.Gate == GateYes {
			needYes = true
		} else {
			needFix = true
		}
	}
	if needFix {
		add("clawdoctor doctor --fix --state-dir " + sd)
	}
	if needYes {
		add("clawdoctor doctor --fix --yes --state-dir " + sd + "   # archives or moves history; backups are kept")
	}
	for _, p := range res.Problems {
		if p.Status == StatusFixed {
			continue
		}
		if hint, ok := p.Evidence["run"].(string); ok && hint != "" {
			add(hint)
		}
	}
	if res.BackupDir != "" {
		add("backups of everything changed are in " + res.BackupDir)
	}
	if len(next) == 0 {
		add("nothing to do")
	}
	return next
}

func quote(p string) string {
	if p == "" {
		return "~/.openclaw"
	}
	for _, c := range p {
		if c == ' ' || c == '\'' || c == '"' || c == '$' {
			return "'" + filepath.ToSlash(p) + "'"
		}
	}
	return p
}

// flushStores writes each sessions.json that fixes edited in memory, once, atomically and
// after a backup into the run's backup dir. The problems whose edits it carries get the backup
// path, or fail together.
func flushStores(st *state, b *Backups, probs []Problem) {
	for _, a := range st.agents {
		if !a.dirty {
			continue
		}
		backup, err := writeStore(a, b)
		for i := range probs {
			p := &probs[i]
			if p.edits != a || p.Status != StatusFixed {
				continue
			}
			p.Backup = backup
			if err != nil {
				p.Status = StatusFailed
				p.Error = err.Error()
			}
		}
	}
}

// writeStore refuses when sessions.json changed on disk since doctor read it (a gateway
// wrote meanwhile), keeps its bytes in the backup dir, then replaces it atomically.
func writeStore(a *agentState, b *Backups) (string, error) {
	if a.refuse != "" {
		return "", errors.New(a.refuse)
	}
	data, err := a.store.Marshal()
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(a.storePath)
	switch {
	case err == nil && (fi.Size() != a.store.Size || !fi.ModTime().Equal(a.store.ModTime)):
		return "", fmt.Errorf("%s: %w", a.storePath, store.ErrChanged)
	case err == nil:
		a.tempNotes = append(a.tempNotes, store.RemoveStaleTemps(a.storePath)...)
		backup, err := b.Copy(a.storePath)
		if err != nil {
			return "", err
		}
		return backup, safefile.WriteFile(a.storePath, data)
	case errors.Is(err, os.ErrNotExist):
		return "", safefile.WriteFile(a.storePath, data)
	}
	return "", err
}

// isOpen reports whether p still needs attention: anything not fixed, except informational
// findings that have nothing to fix.
func (p *Problem) isOpen() bool {
	return p.Status != StatusFixed && !(p.Status == StatusFound && p.Severity == "info")
}

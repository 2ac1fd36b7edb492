// Package recovery writes back what OpenClaw's SQLite import left out. The import (2026.8+)
// keeps only the readable prefix of a damaged transcript and exits 0; the original stays in
// the import archive (or in sessions/). For each such session, recovery writes OUT/<id>.jsonl:
// the database's events as they are, then the original's lines the import did not read,
// repaired as `clawdoctor repair` repairs a transcript, and, when the gateway wrote events
// after the import, one `custom` entry whose parent is the database's last event, so that the
// conversation the user is in stays the active one (pi's leaf is the last entry). The
// database's events being a prefix of the file, OpenClaw's own `doctor --session-sqlite
// recover` imports the rest ("an appendable suffix") once the file is put where the session's
// transcript lives. Nothing in the state dir is ever written.
package recovery

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/export"
	"github.com/clawdoctor/clawdoctor/internal/migration"
	"github.com/clawdoctor/clawdoctor/internal/progress"
	"github.com/clawdoctor/clawdoctor/internal/store"
	"github.com/clawdoctor/clawdoctor/repair"
)

// ErrNotSQLite: the agent keeps its sessions in JSONL: nothing was imported.
var ErrNotSQLite = errors.New("the agent is not SQLite era: nothing was imported, so nothing is missing from a database")

// LeafType is the customType of the entry that keeps the database's leaf.
const LeafType = "clawdoctor.recovered"

// Options say which agent to recover and where to write.
type Options struct {
	StateDir    string
	SessionsDir string // the agent's sessions dir
	Out         string // output dir, outside the state dir's agents/
	Sessions    []string
	Now         time.Time
	Repair      repair.Options // the repair rules of the lost lines (Release)
	// NewID makes the id of the leaf entry; nil: 8 random hex digits, as pi's ids.
	NewID func() string
}

// State is what recovery found for one original.
type State string

const (
	// Recovered: the import left entries out; the file written holds them.
	Recovered State = "recovered"
	// Complete: the database holds every entry of the original (the import rewrote some
	// bytes: a BOM, CRLF, a second header); nothing to recover.
	Complete State = "complete"
	// Incomplete: entries are missing and the file could not be made, or not whole: Reason.
	Incomplete State = "incomplete"
	// Lost: the import left entries out that recover can add back (Assess; Run writes them
	// and says Recovered).
	Lost State = "lost"
)

// Session is the outcome for one original.
type Session struct {
	Session  string `json:"session"`
	Original string `json:"original"` // the file the import read, as it is now
	State    State  `json:"state"`
	Reason   string `json:"reason"`
	// File is the written transcript; Install is where OpenClaw looks for it (the session's
	// transcript path, sessions/<id>.jsonl, where the original itself may sit), and
	// OriginalCopy the copy of the original kept in the output dir.
	File         string `json:"file,omitempty"`
	Install      string `json:"install,omitempty"`
	OriginalCopy string `json:"originalCopy,omitempty"`
	// Retire is the original left in sessions/ under another name than Install, which must
	// leave sessions/ (its copy is OriginalCopy) for OpenClaw to take the recovered file.
	Retire   string `json:"retire,omitempty"`
	DBEvents int64  `json:"dbEvents"`
	// ImportKept is how many events the import made of the original (migration.Predict);
	// FirstLost the original's first line it did not read; Lines the original's lines.
	ImportKept int64 `json:"importKept"`
	FirstLost  int64 `json:"firstLostLine,omitempty"`
	Lines      int64 `json:"lines"`
	// AddedLines are the original's lines the file adds after the database's events, after
	// repair; Skipped the lost lines left out, with why (already in the database).
	AddedLines int64    `json:"addedLines"`
	Skipped    []string `json:"skipped,omitempty"`
	// ReplacedUTF8 counts added lines whose invalid UTF-8 was replaced by U+FFFD.
	ReplacedUTF8 int64 `json:"replacedInvalidUtf8Lines,omitempty"`
	// Repair is what repair did to the lost lines (Changes: lines of the original); Kept are
	// repairs of the database's own events that were not made (Line: seq+1; the database's
	// events stay as they are, or OpenClaw would refuse the file).
	Repair  repair.Counts   `json:"repair"`
	Changes []repair.Change `json:"changes,omitempty"`
	Kept    []repair.Change `json:"keptAsInDatabase,omitempty"`
	// Leaf is the id of the custom entry that keeps the database's last event the active
	// leaf ("" when the database has no events after the import's).
	Leaf string `json:"leafEntry,omitempty"`
}

// Result is one recovery run.
type Result struct {
	Agent    string        `json:"agent"`
	DB       string        `json:"db"`
	Out      string        `json:"out"`
	Sessions []Session     `json:"sessions"`
	Files    []export.File `json:"files,omitempty"`
	// Unchecked are originals the migration check could not compare, with why.
	Unchecked []string `json:"unchecked,omitempty"`
}

// Count returns how many sessions are in state s.
func (r *Result) Count(s State) int {
	n := 0
	for _, x := range r.Sessions {
		if x.State == s {
			n++
		}
	}
	return n
}

// Run finds the originals that hold more than the database and writes their recovered
// transcripts. It writes nothing when an output file exists or the output dir is refused.
func Run(ctx context.Context, opts Options, c progress.Counter) (*Result, error) {
	era := store.DetectEra(opts.SessionsDir)
	if !era.SQLite {
		if era.Unknown != "" {
			return nil, fmt.Errorf("%s: %w: %s", opts.SessionsDir, store.ErrEraUnknown, era.Unknown)
		}
		return nil, fmt.Errorf("%s: %w", opts.SessionsDir, ErrNotSQLite)
	}
	if err := export.CheckOut(opts.Out, opts.StateDir, opts.SessionsDir); err != nil {
		return nil, err
	}
	if abs, err := filepath.Abs(opts.Out); err == nil {
		opts.Out = abs // the steps printed name it from anywhere
	}
	rep, err := migration.Check(ctx, opts.StateDir, opts.SessionsDir)
	if err != nil {
		return nil, err
	}
	res := &Result{Agent: rep.Agent, DB: rep.DB, Out: opts.Out, Unchecked: rep.Unreadable}
	db, err := agentdb.OpenSessions(ctx, era.DB)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	want := map[string]bool{}
	for _, s := range opts.Sessions {
		id, err := db.Resolve(ctx, s)
		if err != nil {
			return nil, err
		}
		want[id] = true
	}
	var items []export.Item
	names := map[string]bool{}
	for _, v := range rep.Verdicts {
		if len(want) > 0 && !want[v.Session] {
			continue
		}
		if v.State != migration.Divergent && v.State != migration.NotInDB {
			continue // identical or already imported whole
		}
		s, item, err := plan(ctx, db, opts, v)
		if err != nil {
			return nil, err
		}
		if item != nil {
			if names[item.Name] {
				s.State, s.Reason = Incomplete, fmt.Sprintf("another original of session %s was recovered first: recover them one at a time with --session", s.Session)
				item = nil
			} else {
				names[item.Name] = true
				s.File = filepath.Join(opts.Out, item.Name)
				s.Install = filepath.Join(opts.SessionsDir, item.Name)
				if v.Where == "sessions" && filepath.Clean(v.File) != s.Install {
					// an original left in sessions/ under another name (a topic's
					// <id>-topic-<n>.jsonl) still claims the session: OpenClaw defers the
					// recovered file while it is there (2026.9.6: "A registered primary already
					// claims this identity"); it goes once its copy below is checked
					s.Retire = v.File
				}
				copyName := filepath.Join("originals", filepath.Base(v.File))
				s.OriginalCopy = filepath.Join(opts.Out, copyName)
				items = append(items, *item, copyItem(copyName, v.File))
			}
		}
		res.Sessions = append(res.Sessions, s)
	}
	if len(items) > 0 {
		files, err := export.WriteAll(ctx, opts.Out, items, c)
		if err != nil {
			return res, err
		}
		res.Files = files
	}
	return res, nil
}

// assessed is what assess learned of one original, for plan.
type assessed struct {
	pred migration.Prediction
	ids  map[string]bool // entry ids of the database's events
	last string          // id of the database's last event
}

// Assess says, without writing, what recover would find for each original of the migration
// check that differs from the database (doctor reports it): Lost when the import left
// entries out that recover can add back, Complete when the database holds them all,
// Incomplete when neither can be shown.
func Assess(ctx context.Context, rep *migration.Report) ([]Session, error) {
	if rep == nil || rep.DB == "" {
		return nil, nil
	}
	var out []Session
	var db *agentdb.DB
	for _, v := range rep.Verdicts {
		if v.State != migration.Divergent && v.State != migration.NotInDB {
			continue
		}
		if db == nil {
			var err error
			if db, err = agentdb.OpenSessions(ctx, rep.DB); err != nil {
				return nil, err
			}
			defer db.Close()
		}
		s, _, err := assess(ctx, db, v)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// assess decides one original: Lost (with FirstLost), Complete or Incomplete.
func assess(ctx context.Context, db *agentdb.DB, v migration.Verdict) (Session, *assessed, error) {
	s := Session{Session: v.Session, Original: v.File, Lines: v.FileLines, DBEvents: v.DBEvents}
	pred, err := migration.PredictFile(ctx, v.File)
	if err != nil {
		return s, nil, err
	}
	s.ImportKept = pred.Kept
	if pred.Unexamined != "" {
		s.State, s.Reason = Incomplete, pred.Unexamined+": the lines from it on cannot be recovered by clawdoctor"
		return s, nil, nil
	}
	ids, last, err := databaseIDs(ctx, db, v.Session)
	if err != nil {
		return s, nil, err
	}
	cut := pred.Stop // the first line the import did not read (1-based); 0: it read them all
	if !pred.Truncates() {
		cut = 0
	}
	missing, lost, err := missing(ctx, v.File, cut, ids)
	if err != nil {
		return s, nil, err
	}
	switch {
	case missing == "" && lost == "":
		s.State = Complete
		s.Reason = "the database holds every entry of the original"
		if cut > 0 {
			s.Reason += fmt.Sprintf(", also those after line %d where the import stopped (recovered since)", cut)
		} else if rw := pred.Rewrites(); rw != "" {
			s.Reason += " (the import rewrote: " + rw + ")"
		}
		return s, nil, nil
	case cut == 0:
		s.State, s.Reason = Incomplete, "the import should have kept every entry, but the database lacks "+missing+": was the database or the original changed after the import?"
		return s, nil, nil
	}
	s.FirstLost = cut
	if missing != "" {
		s.State, s.Reason = Incomplete, fmt.Sprintf("the database lacks %s, before line %d where the import stopped: it does not hold the prefix this original would give (another original, or a changed one?)", missing, cut)
		return s, nil, nil
	}
	if !store.ValidSessionID(v.Session) {
		s.State, s.Reason = Incomplete, fmt.Sprintf("session id %q is not a safe file name", v.Session)
		return s, nil, nil
	}
	if v.State == migration.NotInDB {
		// OpenClaw's recover looks for a transcript of each session node only
		nodes, err := db.Nodes(ctx)
		if err != nil {
			return s, nil, err
		}
		if !slices.ContainsFunc(nodes, func(n agentdb.Node) bool { return n.SessionID == v.Session }) {
			s.State, s.Reason = Incomplete, fmt.Sprintf("the import stopped at line %d and the database has neither events nor a session node for %s: OpenClaw's recover would not look for a file of it (run openclaw doctor --session-sqlite import with the original in sessions/ and a sessions.json row naming it)", cut, v.Session)
			return s, nil, nil
		}
	}
	s.State = Lost
	s.Reason = fmt.Sprintf("the import stopped at line %d of %d: %s; %d entr%s from there on are not in the database",
		cut, s.Lines, pred.Reason, pred.Lost, map[bool]string{true: "y", false: "ies"}[pred.Lost == 1])
	return s, &assessed{pred: pred, ids: ids, last: last}, nil
}

// plan decides one original; item is nil when nothing is written for it.
func plan(ctx context.Context, db *agentdb.DB, opts Options, v migration.Verdict) (Session, *export.Item, error) {
	s, a, err := assess(ctx, db, v)
	if err != nil || s.State != Lost {
		return s, nil, err
	}
	cut := s.FirstLost
	b := &builder{ctx: ctx, db: db, session: v.Session, original: v.File, cut: cut, ids: a.ids}
	if s.DBEvents > a.pred.Kept && a.last != "" {
		// the gateway wrote events after the import: keep its last one the active leaf
		id := newID(opts.NewID, a.ids)
		b.leaf = leafLine(id, a.last, opts.Now, filepath.Base(v.File), cut)
		s.Leaf = id
	}
	if err := b.measure(); err != nil {
		var le *lineError
		if errors.As(err, &le) {
			s.State, s.Reason = Incomplete, fmt.Sprintf("%s: the import stopped at line %d, and %s; recover cannot carry it (the original keeps it)", s.Reason, cut, le)
			return s, nil, nil
		}
		return s, nil, err
	}
	s.Skipped, s.ReplacedUTF8 = b.skipped, b.replaced
	p, err := repair.PlanStream(ctx, b.open, v.File, opts.Repair)
	if err != nil {
		return s, nil, err
	}
	if p.Skip != "" {
		s.State, s.Reason = Incomplete, "repair refuses the recovered file: "+p.Skip
		return s, nil, nil
	}
	plan := keepPrefix(p, b.prefix, &s)
	s.Repair, s.Changes = plan.Counts, plan.Changes
	for i := range s.Changes { // lines of the original, as the user knows them
		if n := b.originalLine(s.Changes[i].Line, s.DBEvents); n > 0 {
			s.Changes[i].Line = n
		}
	}
	s.AddedLines = b.tailLines - int64(plan.Counts.DroppedLines)
	s.State = Recovered
	s.Reason = fmt.Sprintf("the import stopped at line %d of %d: %s; %d line(s) of the original added after the database's %d event(s)",
		cut, s.Lines, a.pred.Reason, s.AddedLines, s.DBEvents)
	if s.ReplacedUTF8 > 0 {
		s.Reason += fmt.Sprintf(" (in %d of them invalid UTF-8 replaced by U+FFFD, as the JSONL-era gateway read them and as the import must)", s.ReplacedUTF8)
	}
	if s.Leaf != "" {
		s.Reason += fmt.Sprintf(", then entry %s keeps the database's last event the active leaf (the gateway wrote %d event(s) after the import)", s.Leaf, s.DBEvents-a.pred.Kept)
	}
	item := &export.Item{Name: v.Session + ".jsonl", Source: v.File, Write: func(w io.Writer) (int64, error) {
		rc, err := b.open()
		if err != nil {
			return 0, err
		}
		defer rc.Close()
		_, err = repair.Apply(ctx, plan, rc, w)
		return 0, err
	}}
	return s, item, nil
}

// keepPrefix drops the edits of p that would change the database's own events (bytes before
// prefix): OpenClaw imports the file only when the database's events are its prefix.
func keepPrefix(p *repair.Plan, prefix int64, s *Session) *repair.Plan {
	out := *p
	out.Edits = out.Edits[:0:0]
	for _, e := range p.Edits {
		if e.Off < prefix {
			continue
		}
		out.Edits = append(out.Edits, e)
	}
	if len(out.Edits) == len(p.Edits) {
		return &out
	}
	out.Changes = nil
	for _, ch := range p.Changes {
		if ch.Line <= s.DBEvents {
			s.Kept = append(s.Kept, ch)
		} else {
			out.Changes = append(out.Changes, ch)
		}
	}
	return &out
}

func newID(gen func() string, taken map[string]bool) string {
	for {
		var id string
		if gen != nil {
			id = gen()
		} else {
			var b [4]byte
			rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		if !taken[id] {
			return id
		}
	}
}

// leafLine is the custom entry appended after the recovered lines. A custom entry is
// extension state: pi never sends it to a model, and its parent chain leads to the
// database's last event, the conversation the gateway was in.
func leafLine(id, parent string, now time.Time, original string, cut int64) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"custom","customType":"` + LeafType + `","data":{"original":`)
	writeJSONString(&b, original)
	fmt.Fprintf(&b, `,"fromLine":%d,"note":"lines the SQLite import left out, added back by clawdoctor recover; this entry keeps the conversation that followed the import the active one"},"id":`, cut)
	writeJSONString(&b, id)
	b.WriteString(`,"parentId":`)
	writeJSONString(&b, parent)
	b.WriteString(`,"timestamp":"` + now.UTC().Format("2006-01-02T15:04:05.000Z") + `"}` + "\n")
	return b.Bytes()
}

func writeJSONString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// describeIDs names up to three ids.
func describeIDs(ids []string, total int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d entr", total)
	if total == 1 {
		b.WriteString("y")
	} else {
		b.WriteString("ies")
	}
	b.WriteString(" (" + strings.Join(ids, ", "))
	if total > len(ids) {
		b.WriteString(", …")
	}
	b.WriteString(")")
	return b.String()
}

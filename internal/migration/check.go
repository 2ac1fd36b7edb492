package migration

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/store"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// Changed is an original in the import archive whose bytes differ from what the run manifest
// recorded when it moved the file.
type Changed struct {
	File     string `json:"file"`
	Run      string `json:"run"`
	Recorded string `json:"recorded_sha256"`
	Now      string `json:"sha256"`
	Missing  bool   `json:"missing,omitempty"` // the archived original is gone
}

// Report is the migration check of one agent.
type Report struct {
	Agent    string    `json:"agent"`
	DB       string    `json:"db"`
	Runs     int       `json:"runs"`
	Sessions int       `json:"sessions"` // session ids with events in the database
	Events   int64     `json:"events"`
	Verdicts []Verdict `json:"verdicts"`
	Changed  []Changed `json:"changed,omitempty"`
	// Skipped are originals that are not transcripts of a session (trajectories, the legacy
	// store, unreferenced checkpoints), with why.
	Skipped []string `json:"skipped,omitempty"`
	// Unreadable are originals that could not be read or compared, with why: the check is not
	// a clean pass for them.
	Unreadable []string `json:"unreadable,omitempty"`
}

// Count returns how many verdicts have state s.
func (r *Report) Count(s State) int {
	n := 0
	for _, v := range r.Verdicts {
		if v.State == s {
			n++
		}
	}
	return n
}

// reImported matches an import-archive original: <key slug>.<session file>.imported-<ms>.
var reImported = lazyre.New(`^(.*)\.imported-(\d+)$`)

// Check compares the originals of the agent owning sessionsDir (its import archive and the
// .jsonl left in sessions/) with its database, and checks the run manifests of stateDir.
func Check(ctx context.Context, stateDir, sessionsDir string) (*Report, error) {
	era := store.DetectEra(sessionsDir)
	if !era.SQLite {
		return nil, nil
	}
	agentDir := filepath.Dir(era.DB)
	agentDir = filepath.Dir(agentDir)
	rep := &Report{Agent: filepath.Base(agentDir), DB: era.DB}
	db, err := agentdb.OpenSessions(ctx, era.DB)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	has := map[string]bool{}
	sessions, err := db.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range sessions {
		has[s.ID] = true
		rep.Events += s.Events
	}
	rep.Sessions = len(sessions)
	compare := func(path, where, id string) error {
		if !has[id] {
			n, err := fileLines(path)
			if err != nil {
				rep.Unreadable = append(rep.Unreadable, err.Error())
				return nil
			}
			rep.Verdicts = append(rep.Verdicts, Verdict{File: path, Where: where, Session: id, State: NotInDB, FirstDiff: -1, FileLines: n,
				Detail: "the database has no events for session " + id})
			return nil
		}
		v, err := Compare(ctx, db, id, path)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			var dbe *agentdb.Error
			if errors.As(err, &dbe) {
				return err // the database, not the file, failed: no verdict is trustworthy
			}
			rep.Unreadable = append(rep.Unreadable, err.Error())
			return nil
		}
		v.Where = where
		rep.Verdicts = append(rep.Verdicts, v)
		return nil
	}
	archive := era.ImportArchive
	if archive != "" {
		ents, err := os.ReadDir(archive)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			m := reImported.FindStringSubmatch(e.Name())
			if m == nil || !e.Type().IsRegular() {
				continue
			}
			inner := m[1] // <key slug>.<original name>
			if strings.HasPrefix(inner, "legacy-store.") || strings.HasPrefix(inner, "archive-tier.") ||
				!strings.HasSuffix(inner, ".jsonl") || strings.HasSuffix(inner, ".trajectory.jsonl") {
				rep.Skipped = append(rep.Skipped, e.Name()+": not a session transcript")
				continue
			}
			p := filepath.Join(archive, e.Name())
			if err := compare(p, "import-archive", sessionOf(p, inner)); err != nil {
				return nil, err
			}
		}
	}
	for _, name := range era.Legacy {
		if !store.Classify(name).Kind.IsPrimary() {
			continue
		}
		p := filepath.Join(sessionsDir, name)
		if err := compare(p, "sessions", sessionOf(p, name)); err != nil {
			return nil, err
		}
	}
	sort.Slice(rep.Verdicts, func(i, j int) bool { return rep.Verdicts[i].File < rep.Verdicts[j].File })
	runs, err := Runs(stateDir)
	if err != nil {
		return nil, err
	}
	rep.Runs = len(runs)
	rep.Changed = changedSince(runs, rep.Agent, archive)
	return rep, nil
}

// sessionOf is the session id a transcript belongs to: its header's id, else the id its
// name carries (<id>.jsonl, <id>-topic-<t>.jsonl, <slug>.<id>.jsonl).
func sessionOf(path, name string) string {
	if f, err := jsonl.Open(path, nil); err == nil {
		line, _ := readLine(f, 64<<10)
		f.Close()
		var h struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		}
		if json.Unmarshal(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")), &h) == nil && h.Type == "session" && store.ValidSessionID(h.ID) {
			return h.ID
		}
	}
	base := strings.TrimSuffix(name, ".jsonl")
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		base = base[i+1:]
	}
	if i := strings.Index(base, "-topic-"); i > 0 {
		base = base[:i]
	}
	return base
}

func readLine(r io.Reader, max int) ([]byte, error) {
	buf := make([]byte, max)
	n, err := io.ReadFull(r, buf)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = nil
	}
	line, _, _ := bytes.Cut(buf[:n], nl)
	return bytes.TrimSuffix(line, []byte("\r")), err
}

// changedSince hashes each original a run recorded for agent and lists those that differ. The
// original is looked up by name in this agent's archive: the recorded absolute path may be of
// a state dir that was moved or restored elsewhere.
func changedSince(runs []Run, agent, archive string) []Changed {
	var out []Changed
	for _, r := range runs {
		for _, t := range r.Targets {
			if t.AgentID != "" && store.NormalizeAgentID(t.AgentID) != agent {
				continue
			}
			for _, m := range t.CompletedMoves {
				want, _ := m.SHA256()
				if want == "" || m.ArchivePath == "" {
					continue
				}
				p := m.ArchivePath
				if archive != "" {
					p = filepath.Join(archive, filepath.Base(m.ArchivePath))
				}
				got, err := fileSHA256(p)
				switch {
				case err != nil:
					out = append(out, Changed{File: p, Run: r.Path, Recorded: want, Missing: true})
				case !strings.EqualFold(got, want):
					out = append(out, Changed{File: p, Run: r.Path, Recorded: want, Now: got})
				}
			}
		}
	}
	return out
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// fileLines counts the lines of the file at path (plain, gzip or zstd).
func fileLines(path string) (int64, error) {
	f, err := jsonl.Open(path, nil)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, err := countLines(bufio.NewReaderSize(f, 64<<10), '\n')
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

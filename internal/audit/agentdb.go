package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"hash/maphash"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/progress"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

// auditDB audits the sessions of a SQLite-era agent database with the same per-transcript
// scan as a JSONL file (each session streamed by seq, header included, named
// "<db>#<session id>"), and its session nodes with the store rules that still apply. only,
// when set, is the one session id or key to audit. A database or session that cannot be
// read is listed in Result.Unreadable with the reason.
func auditDB(ctx context.Context, dbPath, only string, opts Options, deliveries map[string]int64, c progress.Counter, res *Result, bindings *[]cliBinding) error {
	db, err := agentdb.OpenSessions(ctx, dbPath)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		res.Unreadable = append(res.Unreadable, err.Error())
		return nil
	}
	sessions, err := db.Sessions(ctx)
	var nodes []agentdb.Node
	var cold []agentdb.ColdArchive
	if err == nil {
		nodes, err = db.Nodes(ctx)
	}
	if err == nil {
		cold, err = db.ColdArchives(ctx)
	}
	if err != nil {
		db.Close()
		res.Unreadable = append(res.Unreadable, err.Error())
		return nil
	}
	if only != "" {
		sessions = pickSession(sessions, nodes, only)
		if len(sessions) == 0 {
			db.Close()
			res.Unreadable = append(res.Unreadable, fmt.Sprintf("%s: no session %q (neither a session id nor a key with events)", dbPath, only))
			return nil
		}
	} else {
		checkNodes(dbPath, nodes, sessions, cold, func(f Finding) { res.Findings = append(res.Findings, dbFinding(f)) }, bindings)
	}
	res.Summary.Files++ // the database itself, as for sessions.json
	// Sessions are scanned side by side (agentdb.MaxReaders, one per core, as files of a
	// sessions dir are); their results are added in session order, so the output is the same.
	type sessionResult struct {
		findings []Finding
		entries  int64
		err      error // unreadable: listed; ctx errors end the run
		read     bool  // the whole session was read
	}
	out := make([]sessionResult, len(sessions))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(agentdb.MaxReaders, runtime.GOMAXPROCS(0), max(len(sessions), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = func() sessionResult {
					tr, err := db.Transcript(ctx, sessions[i].ID)
					if err != nil {
						return sessionResult{err: err}
					}
					defer tr.Close()
					ref := agentdb.Ref(dbPath, sessions[i].ID)
					sc := newScan(ctx, ref, opts)
					sc.ident = &identKeys{}
					if len(deliveries) > 0 {
						sc.deliveries = deliveries
					}
					fs, n, err := sc.run(progress.Reader(tr, c))
					if err == nil {
						fs = append(fs, rowFindings(ctx, db, ref, sessions[i].ID, tr.FirstGap, sc.ident, sc.seed)...)
					}
					return sessionResult{findings: fs, entries: n, err: err, read: err == nil}
				}()
			}
		}()
	}
	for i := range sessions {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		db.Close()
		return err
	}
	for _, r := range out {
		for _, f := range r.findings {
			res.Findings = append(res.Findings, dbFinding(f))
		}
		res.Summary.Entries += r.entries
		if r.err != nil {
			res.Unreadable = append(res.Unreadable, r.err.Error())
			continue
		}
		if r.read {
			res.Summary.Files++
		}
	}
	if only == "" {
		archiveFindings(ctx, db, dbPath, cold, func(f Finding) { res.Findings = append(res.Findings, f) }, res)
	}
	if err := db.Close(); err != nil {
		res.Unreadable = append(res.Unreadable, err.Error()) // changed while read: not a clean pass
	}
	return nil
}

// archiveFindings verifies each archived transcript as OpenClaw verifies it before reading it:
// an in-database archive by the sha256 of its blob, a cold archive by its size and sha256 and
// by decoding it (a header naming the session, its events in order and as many as its row
// counts).
func archiveFindings(ctx context.Context, db *agentdb.DB, dbPath string, cold []agentdb.ColdArchive, add func(Finding), res *Result) {
	archives, err := db.Archives(ctx)
	if err != nil {
		res.Unreadable = append(res.Unreadable, err.Error())
	}
	for _, a := range archives {
		if _, _, err := db.ArchiveContent(ctx, a); err != nil {
			if errors.Is(err, agentdb.ErrArchiveHash) {
				add(newFinding("sqlite.archive-unverified", agentdb.Ref(dbPath, a.SessionID), 0, "", err.Error(), "", map[string]any{"archive": a.Name, "sha256": a.SHA256}))
			} else {
				res.Unreadable = append(res.Unreadable, err.Error())
			}
		}
	}
	sessionsDir := filepath.Join(filepath.Dir(filepath.Dir(dbPath)), "sessions")
	for _, c := range cold {
		err := db.ColdEvents(ctx, sessionsDir, c, func(int64, []byte) error { return nil })
		switch {
		case err == nil:
		case errors.Is(err, agentdb.ErrArchiveHash):
			add(newFinding("sqlite.cold-archive", agentdb.Ref(dbPath, c.SessionID), 0, "", err.Error(), "",
				map[string]any{"archive": c.Name, "storage": c.Storage, "sha256": c.SHA256, "bytes": c.ArchiveBytes, "events": c.Events}))
		case ctx.Err() != nil:
			return
		default:
			res.Unreadable = append(res.Unreadable, err.Error())
		}
	}
}

// pickSession keeps the session whose id, or whose node's key, is want.
func pickSession(sessions []agentdb.Session, nodes []agentdb.Node, want string) []agentdb.Session {
	id := want
	for _, n := range nodes {
		if n.Key == want {
			id = n.SessionID
		}
	}
	for _, s := range sessions {
		if s.ID == id {
			return []agentdb.Session{s}
		}
	}
	return nil
}

// dbFinding names a finding about a session of an agent database as the database holds it: a
// row of transcript_events by its seq (the transcript's line N is seq N-1), not a line of a
// file, and gives a hint that works for a database: clawdoctor never writes one, so a hint
// that names a writing command is replaced by what does (issue 29: the hint said "Run:
// clawdoctor repair <db>#<session>", a command that is refused for a database).
func dbFinding(f Finding) Finding {
	if f.Line > 0 {
		seq := f.Line - 1
		f.Message = lineRE.ReplaceAllStringFunc(f.Message, func(m string) string {
			var n int64
			fmt.Sscanf(m[len("line "):], "%d", &n)
			return fmt.Sprintf("seq %d", n-1)
		})
		ev := make(map[string]any, len(f.Evidence)+1)
		for k, v := range f.Evidence {
			ev[k] = v
		}
		ev["seq"] = seq
		f.Evidence, f.Line = ev, 0
	}
	if strings.Contains(f.Hint, "clawdoctor repair") || strings.Contains(f.Hint, "clawdoctor doctor --fix") {
		f.Hint = sqliteHint
	}
	return f
}

// lineRE finds the line numbers a finding's message names.
var lineRE = lazyre.New(`\bline \d+\b`)

// sqliteHint is the hint of a finding about a database session that, about a file, would name
// a writing clawdoctor command.
const sqliteHint = "This session lives in the agent database, which clawdoctor never writes: see it as JSONL with `clawdoctor export --out DIR` (a copy you may repair), or let OpenClaw repair the rows: openclaw doctor --session-sqlite recover"

// checkNodes applies the store rules that still mean something to session_nodes: rows a
// gateway cannot use, sessions without events, oversized blobs and CLI bindings.
// Sessions in cold storage have no events in transcript_events but are not missing (their
// archive is not audited here).
func checkNodes(dbPath string, nodes []agentdb.Node, sessions []agentdb.Session, cold []agentdb.ColdArchive, add func(Finding), bindings *[]cliBinding) {
	has := map[string]bool{}
	for _, s := range sessions {
		has[s.ID] = true
	}
	for _, c := range cold {
		has[c.SessionID] = true
	}
	for _, n := range nodes {
		var e storeEntry
		if len(n.Entry) == 0 || n.Entry[0] != '{' || json.Unmarshal(n.Entry, &e) != nil {
			add(newFinding("store.invalid-entry", dbPath, 0, n.SessionID, fmt.Sprintf("session node %q holds an entry_json that is not a JSON object; the gateway cannot use it", n.Key), "", map[string]any{"key": n.Key}))
			continue
		}
		if !store.ValidSessionID(n.SessionID) {
			add(newFinding("store.invalid-entry", dbPath, 0, "", fmt.Sprintf("session node %q has no safe current_session_id (%q)", n.Key, n.SessionID), "", map[string]any{"key": n.Key, "sessionId": n.SessionID}))
			continue
		}
		if !has[n.SessionID] && !n.Archived {
			add(newFinding("store.missing-transcript", dbPath, 0, n.SessionID, fmt.Sprintf("session node %q points at session %s, which has no transcript events in the database; OpenClaw starts it empty", n.Key, n.SessionID), "",
				map[string]any{"key": n.Key, "sessionId": n.SessionID}))
		}
		for _, blob := range []struct {
			name string
			raw  json.RawMessage
		}{{"skillsSnapshot", e.SkillsSnapshot}, {"systemPromptReport", e.SystemPromptReport}} {
			if len(blob.raw) > oversizedBlob {
				add(newFinding("store.oversized-entry", dbPath, 0, n.SessionID, fmt.Sprintf("session node %q carries a %s of %.1f MB; the gateway re-reads it with the node", n.Key, blob.name, float64(len(blob.raw))/1e6), "",
					map[string]any{"key": n.Key, "field": blob.name, "bytes": len(blob.raw)}))
			}
		}
		checkBindings(dbPath, n.Key, func() int64 { return 0 }, n.SessionID, &e, add, bindings)
	}
}

// rowFindings are the checks of a session's rows as rows: a gap in its seqs (gap >= 0: the
// first seq that did not follow its predecessor), and identity rows that disagree with their
// events. The identity rows are first held to the ids the scan read (k, identitiesAgree);
// only a session where they may disagree is asked of SQL, whose query reads every JSON event
// of the session again. (Before, that query ran only on sessions that already had findings,
// for its cost, so a drifted identity row in an otherwise clean session went unseen.)
func rowFindings(ctx context.Context, db *agentdb.DB, ref, session string, gap int64, k *identKeys, seed maphash.Seed) []Finding {
	var out []Finding
	if gap >= 0 {
		out = append(out, newFinding("sqlite.seq-gap", ref, 0, "", fmt.Sprintf("transcript_events of session %s jump to seq %d: the rows before it are missing, so it no longer reads as the file it was imported from", session, gap), "",
			map[string]any{"seq": gap}))
	}
	if identitiesAgree(ctx, db, session, gap, k, seed) {
		return out
	}
	ms, err := db.IdentityMismatches(ctx, session, 10)
	if err != nil {
		return out // the events were read: a failing side query is not a finding
	}
	for _, m := range ms {
		what := fmt.Sprintf("id %q where the event has %q", m.EventID, m.ID)
		if m.EventID == m.ID {
			what = fmt.Sprintf("parent %q where the event has %q", m.ParentID, m.EventParentID)
		}
		out = append(out, newFinding("sqlite.identity-mismatch", ref, 0, m.ID, fmt.Sprintf("the identity row of seq %d names %s: OpenClaw's lookups by id find the wrong entry", m.Seq, what), "",
			map[string]any{"seq": m.Seq, "identityId": m.EventID, "eventId": m.ID, "identityParent": m.ParentID, "eventParent": m.EventParentID}))
	}
	return out
}

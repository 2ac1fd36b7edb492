package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/progress"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

// sqliteNote is added to findings about a session of an agent database whose hint names a
// clawdoctor command that writes: those commands refuse a SQLite-era agent.
const sqliteNote = " (This session lives in the agent database, which clawdoctor never writes: run that on a `clawdoctor export` copy, or let OpenClaw fix it: openclaw doctor --session-sqlite recover.)"

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
					sc := newScan(ctx, agentdb.Ref(dbPath, sessions[i].ID), opts)
					if len(deliveries) > 0 {
						sc.deliveries = deliveries
					}
					fs, n, err := sc.run(progress.Reader(tr, c))
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
	if err := db.Close(); err != nil {
		res.Unreadable = append(res.Unreadable, err.Error()) // changed while read: not a clean pass
	}
	return nil
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

// dbFinding adds the SQLite-era note to a finding whose hint names a writing command.
func dbFinding(f Finding) Finding {
	if strings.Contains(f.Hint, "clawdoctor repair") || strings.Contains(f.Hint, "clawdoctor doctor --fix") {
		f.Hint += sqliteNote
	}
	return f
}

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

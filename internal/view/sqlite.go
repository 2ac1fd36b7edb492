package view

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

// A SQLite-era agent (OpenClaw 2026.8+) keeps one row per former JSONL line in
// agents/<id>/agent/openclaw-agent.sqlite. agentdb streams a session's rows back as the JSONL
// they were imported from, so the view exports each session to a temp file and reads it
// with the same index, audit and replay as any transcript. The database is never written
// (agentdb reads a snapshot).

// dbSession is one session exported from an agent database.
type dbSession struct {
	ID, Key, Channel, Chat string
	Updated                int64
	File                   string // the temp JSONL
	Bytes                  int64
	Events                 int64
}

// agentDB returns the agent database beside a sessions dir when it holds sessions.
func agentDB(ctx context.Context, sessionsDir string) string {
	p := filepath.Join(filepath.Dir(sessionsDir), "agent", agentdb.FileName)
	pr, err := agentdb.ProbeFile(ctx, p)
	if err != nil || !pr.Sessions {
		return ""
	}
	return p
}

// exportDB writes every session of the database at dbPath into dir as JSONL.
func exportDB(ctx context.Context, dbPath, dir string) ([]dbSession, error) {
	db, err := agentdb.OpenSessions(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	nodes, err := db.Nodes(ctx)
	if err != nil {
		return nil, err
	}
	byID := map[string]agentdb.Node{}
	for _, n := range nodes {
		byID[n.SessionID] = n
	}
	sessions, err := db.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	var out []dbSession
	for k, s := range sessions {
		ds := dbSession{ID: s.ID, Key: s.Key, Events: s.Events}
		if n, ok := byID[s.ID]; ok {
			ds.Key, ds.Updated = n.Key, n.UpdatedAt
			var e struct {
				LastChannel string `json:"lastChannel"`
				ChatType    string `json:"chatType"`
				Delivery    struct {
					Channel string `json:"channel"`
				} `json:"delivery"`
			}
			if json.Unmarshal(n.Entry, &e) == nil {
				ds.Channel, ds.Chat = e.LastChannel, e.ChatType
				if ds.Channel == "" {
					ds.Channel = e.Delivery.Channel
				}
			}
		}
		name := s.ID + ".jsonl"
		if !store.ValidSessionID(s.ID) {
			name = fmt.Sprintf("session-%d.jsonl", k+1) // an id unfit for a file name
		}
		ds.File = filepath.Join(dir, name)
		n, err := exportOne(ctx, db, s.ID, ds.File)
		if err != nil {
			return nil, err
		}
		ds.Bytes = n
		out = append(out, ds)
	}
	return out, nil
}

func exportOne(ctx context.Context, db *agentdb.DB, id, path string) (int64, error) {
	tr, err := db.Transcript(ctx, id)
	if err != nil {
		return 0, err
	}
	defer tr.Close()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(f, tr)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// dbTarget is the state target of a PATH naming an agent database directly.
func dbTarget(path string) (store.Target, bool) {
	if !strings.HasSuffix(path, ".sqlite") {
		return store.Target{}, false
	}
	abs := absPath(path)
	agentDir := filepath.Dir(filepath.Dir(abs)) // agents/<id>/agent/<file>
	t := store.Target{Agent: filepath.Base(agentDir), SessionsDir: filepath.Join(agentDir, "sessions")}
	if filepath.Base(filepath.Dir(agentDir)) == "agents" {
		t.StateDir = filepath.Dir(filepath.Dir(agentDir))
	}
	return t, true
}

package agentdb

import (
	"context"
	"errors"
	"os"
	"sync"
)

// Probe is what decides an agent's era: whether its database holds sessions.
type Probe struct {
	Path        string `json:"path"`
	UserVersion int    `json:"user_version"`
	Meta        Meta   `json:"meta"`
	// Sessions is set when the database holds sessions (see [DB.HasSessions]).
	Sessions bool `json:"sessions"`
	// Tables is set only when the tables had to be read (a user_version below
	// SessionsSchema).
	Tables []string `json:"tables,omitempty"`
}

var probes = struct {
	sync.Mutex
	m map[string]probeResult
}{m: map[string]probeResult{}}

type probeResult struct {
	at  fileSet
	p   Probe
	err error
}

// ProbeFile reads just enough of the database at path to tell its era, and remembers the
// answer for as long as the files are unchanged (every writer asks before every write). A
// user_version of SessionsSchema or more in the file header is enough (versions only grow);
// otherwise the tables are read from a snapshot, which sees a migration still in the WAL.
// A missing file returns an error satisfying errors.Is(err, os.ErrNotExist).
func ProbeFile(ctx context.Context, path string) (Probe, error) {
	fs, err := sigsOf(path)
	if err != nil {
		return Probe{}, dbErr(path, err)
	}
	if !fs.db.exists {
		return Probe{}, dbErr(path, os.ErrNotExist)
	}
	probes.Lock()
	r, ok := probes.m[path]
	probes.Unlock()
	if ok && r.at.same(fs) {
		return r.p, r.err
	}
	p, err := probe(ctx, path)
	if err == nil || !errors.Is(err, context.Canceled) {
		probes.Lock()
		probes.m[path] = probeResult{at: fs, p: p, err: err}
		probes.Unlock()
	}
	return p, err
}

func probe(ctx context.Context, path string) (Probe, error) {
	p := Probe{Path: path}
	h, _, err := readHeader(path)
	if err != nil {
		return p, dbErr(path, err)
	}
	if h.userVersion >= SessionsSchema {
		p.UserVersion, p.Sessions = h.userVersion, true
		return p, nil
	}
	db, err := Open(ctx, path)
	if err != nil {
		return p, err
	}
	p.UserVersion, p.Meta, p.Sessions, p.Tables = db.UserVersion, db.Meta, db.HasSessions(), db.Tables()
	return p, db.Close()
}

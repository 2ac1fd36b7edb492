package replay

import (
	"context"

	"github.com/clawdoctor/clawdoctor/internal/agentdb"
)

// runRef replays one session of an agent database ("<db>#<session id or key>"): its events
// read as the JSONL they were imported from, through the same pipeline as a file. Unlike
// RunFile it reads the whole session (the database has no byte offsets to index).
func runRef(ctx context.Context, dbPath, session string, o Options) (*Result, error) {
	db, err := agentdb.OpenSessions(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	id, err := db.Resolve(ctx, session)
	if err != nil {
		db.Close()
		return nil, err
	}
	tr, err := db.Transcript(ctx, id)
	if err != nil {
		db.Close()
		return nil, err
	}
	res, err := Run(ctx, tr, agentdb.Ref(dbPath, id), o)
	tr.Close()
	if cerr := db.Close(); err == nil && cerr != nil {
		return nil, cerr
	}
	return res, err
}

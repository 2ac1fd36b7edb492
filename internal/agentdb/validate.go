package agentdb

import (
	"context"
	"os"

	"github.com/clawdoctor/clawdoctor/internal/progress"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// ValidatePaths is jsonl.ValidateFiles over paths that may also name an agent database (every
// session in it) or one session of it ("<db>#<session id or key>"); each session is validated
// as the JSONL it holds, named by its Ref. A database or session that cannot be read gets a
// Summary with Err, as an unreadable file does.
func ValidatePaths(ctx context.Context, paths []string, opts jsonl.ValidateOptions, c progress.Counter) (jsonl.Result, error) {
	c = progress.OrNoop(c)
	defer c.Done()
	var total int64
	for _, p := range paths {
		if db, _, ok := ParseRef(p); ok {
			p = db
		}
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			total += st.Size()
		}
	}
	c.SetTotal(total)
	var res jsonl.Result
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		dbPath, session, isRef := ParseRef(p)
		if !isRef && !IsDBPath(p) {
			r, err := jsonl.ValidateFiles(ctx, []string{p}, opts, noDone{c})
			if err != nil {
				return res, err
			}
			for _, s := range r.Files {
				res.Add(s)
			}
			continue
		}
		if !isRef {
			dbPath = p
		}
		if err := validateDB(ctx, dbPath, session, opts, c, &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

func validateDB(ctx context.Context, dbPath, session string, opts jsonl.ValidateOptions, c progress.Counter, res *jsonl.Result) error {
	failed := func(name string, err error) {
		s := jsonl.Summary{Path: name, Compression: "sqlite", Err: err.Error()}
		res.Add(s)
	}
	db, err := OpenSessions(ctx, dbPath)
	if err != nil {
		failed(dbPath, err)
		return ctx.Err()
	}
	var ids []string
	if session != "" {
		id, err := db.Resolve(ctx, session)
		if err != nil {
			db.Close()
			failed(Ref(dbPath, session), err)
			return ctx.Err()
		}
		ids = []string{id}
	} else {
		all, err := db.Sessions(ctx)
		if err != nil {
			db.Close()
			failed(dbPath, err)
			return ctx.Err()
		}
		for _, s := range all {
			ids = append(ids, s.ID)
		}
	}
	for _, id := range ids {
		tr, err := db.Transcript(ctx, id)
		if err != nil {
			failed(Ref(dbPath, id), err)
			continue
		}
		s, err := jsonl.Validate(ctx, progress.Reader(tr, c), Ref(dbPath, id), opts)
		tr.Close()
		s.Compression = "sqlite"
		if err != nil {
			if ctx.Err() != nil {
				db.Close()
				return ctx.Err()
			}
		}
		res.Add(s)
	}
	if err := db.Close(); err != nil {
		failed(dbPath, err)
	}
	return nil
}

// noDone passes a shared counter on without letting one call end it.
type noDone struct{ progress.Counter }

func (noDone) SetTotal(int64) {}
func (noDone) Done()          {}

package doctor

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // pure-Go SQLite: reads openclaw-agent.sqlite without cgo

	"github.com/clawdoctor/clawdoctor/internal/safefile"
)

// DBCounts is what the SQLite-era database of one agent holds.
type DBCounts struct {
	Path     string         `json:"path"`
	Tables   []string       `json:"tables"`
	Sessions int            `json:"sessions"`       // distinct session ids with events
	Events   int            `json:"events"`         // transcript_events rows
	BySessID map[string]int `json:"-"`              // events per session id
	Note     string         `json:"note,omitempty"` // why counts may be partial
}

// ReadDB counts the transcript events of an agent database (context-and-forensics §0: table
// transcript_events(session_id, seq, event_json, created_at)). The database is never written:
// without a WAL it is opened immutable; with one, the files are copied to a temp dir first so
// not even a -shm file appears beside the user's database.
func ReadDB(ctx context.Context, path string) (*DBCounts, error) {
	open := path
	params := "mode=ro&immutable=1"
	if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
		tmp, err := os.MkdirTemp("", "clawdoctor-sqlite-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		for _, suffix := range []string{"", "-wal"} {
			if err := copyFile(path+suffix, filepath.Join(tmp, "db.sqlite"+suffix)); err != nil {
				return nil, err
			}
		}
		open = filepath.Join(tmp, "db.sqlite")
		params = "mode=ro"
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: open}).EscapedPath()+"?"+params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer db.Close()
	out := &DBCounts{Path: path, BySessID: map[string]int{}}
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type='table' ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable SQLite database: %w", path, err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return nil, err
		}
		out.Tables = append(out.Tables, name)
	}
	rows.Close()
	if !contains(out.Tables, "transcript_events") {
		out.Note = "no transcript_events table: schema not recognised, counts unavailable"
		return out, nil
	}
	rows, err = db.QueryContext(ctx, `SELECT session_id, COUNT(*) FROM transcript_events GROUP BY session_id`)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		out.BySessID[id] = n
		out.Sessions++
		out.Events += n
	}
	return out, rows.Err()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func copyFile(src, dst string) error {
	in, err := safefile.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

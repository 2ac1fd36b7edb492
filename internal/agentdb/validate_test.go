package agentdb_test

import (
	"context"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/agentdb"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

func TestValidatePaths(t *testing.T) {
	db := realDB(t, fixtures.SQLite96)
	res, err := agentdb.ValidatePaths(context.Background(), []string{db, agentdb.Ref(db, "agent:main:main"), agentdb.Ref(db, "nope")}, jsonl.ValidateOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if s.Files != 10 || s.Clean != 9 || s.Unreadable != 1 || s.Lines < 200 {
		t.Fatalf("summary %+v, want 8 sessions + 1 by key clean, 1 unreadable", s)
	}
	last := res.Files[len(res.Files)-1]
	if !strings.HasSuffix(last.Path, "#nope") || !strings.Contains(last.Err, "no such session") {
		t.Errorf("unknown session: %+v", last)
	}
	byKey := res.Files[8]
	if !strings.Contains(byKey.Path, agentdb.FileName+"#") || strings.HasSuffix(byKey.Path, "#agent:main:main") || byKey.Lines == 0 {
		t.Errorf("a key resolves to its session id: %+v", byKey)
	}
}

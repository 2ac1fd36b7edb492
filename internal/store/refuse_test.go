package store_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

// issue 10, scope 8: the one write rule every writer calls, case by case.
func TestCheckWrite(t *testing.T) {
	live := func(dir string) {
		os.WriteFile(filepath.Join(dir, "a.jsonl.lock"), []byte(fmt.Sprintf(`{"pid":%d,"createdAt":%q}`, os.Getpid(), time.Now().UTC().Format(time.RFC3339Nano))), 0o644)
	}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, state, sessions string)
		scope func(s store.WriteScope) store.WriteScope
		want  error // nil: allowed
	}{
		{"plain agent", nil, nil, nil},
		{"sqlite agent db (a real 2026.9.6 one), even forced", func(t *testing.T, state, sessions string) {
			if err := fixtures.WriteAgentDB("sqlite-2026.9.6", filepath.Join(state, "agents", "main", "agent")); err != nil {
				t.Fatal(err)
			}
		}, func(s store.WriteScope) store.WriteScope { s.Force = true; return s }, store.ErrSQLiteEra},
		{"live lock", func(t *testing.T, state, sessions string) { live(sessions) }, nil, store.ErrGatewayLive},
		{"live lock, forced", func(t *testing.T, state, sessions string) { live(sessions) },
			func(s store.WriteScope) store.WriteScope { s.Force = true; return s }, nil},
		{"live lock of another file, one transcript written", func(t *testing.T, state, sessions string) { live(sessions) },
			func(s store.WriteScope) store.WriteScope {
				s.Transcript = filepath.Join(s.SessionsDir, "b.jsonl")
				return s
			}, nil},
		{"FIFO lock", func(t *testing.T, state, sessions string) {
			if err := syscallMkfifo(filepath.Join(sessions, "a.jsonl.lock")); err != nil {
				t.Skip(err)
			}
		}, nil, store.ErrBadLock},
		{"directory lock", func(t *testing.T, state, sessions string) {
			os.Mkdir(filepath.Join(sessions, "sessions.json.lock"), 0o755)
		}, nil, store.ErrBadLock},
		{"sessions dir symlinked out of the state dir", func(t *testing.T, state, sessions string) {
			out := t.TempDir()
			os.Remove(sessions)
			os.Symlink(out, sessions)
		}, func(s store.WriteScope) store.WriteScope { s.Force = true; return s }, store.ErrSymlinkEscape},
		{"agent dir symlinked out of the state dir", func(t *testing.T, state, sessions string) {
			out := t.TempDir()
			os.MkdirAll(filepath.Join(out, "sessions"), 0o755)
			os.RemoveAll(filepath.Dir(sessions))
			os.Symlink(out, filepath.Dir(sessions))
		}, nil, store.ErrSymlinkEscape},
		{"symlink out, --follow-symlinks", func(t *testing.T, state, sessions string) {
			out := t.TempDir()
			os.Remove(sessions)
			os.Symlink(out, sessions)
		}, func(s store.WriteScope) store.WriteScope { s.FollowSymlinks = true; return s }, nil},
		{"symlink inside the state dir", func(t *testing.T, state, sessions string) {
			other := filepath.Join(state, "agents", "other", "sessions")
			os.MkdirAll(other, 0o755)
			os.Remove(sessions)
			os.Symlink(other, sessions)
		}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := t.TempDir()
			sessions := filepath.Join(state, "agents", "main", "sessions")
			os.MkdirAll(sessions, 0o755)
			if tc.setup != nil {
				tc.setup(t, state, sessions)
			}
			s := store.WriteScope{SessionsDir: sessions, StateDir: state}
			if tc.scope != nil {
				s = tc.scope(s)
			}
			err := store.CheckWrite(s)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("CheckWrite: %v, want %v", err, tc.want)
			}
		})
	}
}

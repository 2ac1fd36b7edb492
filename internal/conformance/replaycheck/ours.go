package replaycheck

import (
	"context"

	"github.com/clawdoctor/clawdoctor/internal/hygiene"
	"github.com/clawdoctor/clawdoctor/internal/replay"
)

// ReplayOptions are the replay options that match a request for t.
func ReplayOptions(t Target, release string, nowMs int64) replay.Options {
	return replay.Options{Provider: t.Provider, Model: t.Model, API: t.API, Reasoning: t.Reasoning,
		Release: hygiene.Release(release), NowMs: nowMs}
}

// OursFile replays a transcript file with our engine.
func OursFile(ctx context.Context, path string, t Target, release string, nowMs int64) (*replay.Result, error) {
	return replay.RunFile(ctx, path, ReplayOptions(t, release, nowMs))
}

// OursFileOpts replays a transcript file with explicit options.
func OursFileOpts(ctx context.Context, path string, o replay.Options) (*replay.Result, error) {
	return replay.RunFile(ctx, path, o)
}

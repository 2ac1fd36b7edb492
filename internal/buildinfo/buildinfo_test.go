package buildinfo

import (
	"runtime/debug"
	"testing"
)

// The commit and its date come from -ldflags when a release build stamps them, else from the
// Go toolchain's VCS stamp; the version from -ldflags, else the module version.
func TestRead(t *testing.T) {
	vcs := func(rev, at, modified string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: at}, {Key: "vcs.modified", Value: modified}}}, true
		}
	}
	defer func(v, c, d string) { version, commit, date = v, c, d }(version, commit, date)

	version, commit, date = "", "", ""
	i := read(vcs("abc123", "2026-12-01T10:00:00Z", "true"))
	if i.Version != "(devel)" || i.Commit != "abc123" || i.Date != "2026-12-01T10:00:00Z" || !i.Modified {
		t.Errorf("from the VCS stamp: %+v", i)
	}
	version, commit, date = "v0.4.0", "def456", "2026-12-02T00:00:00Z"
	i = read(vcs("abc123", "2026-12-01T10:00:00Z", "false"))
	if i.Version != "v0.4.0" || i.Commit != "def456" || i.Date != "2026-12-02T00:00:00Z" || i.Modified {
		t.Errorf("stamped by -ldflags: %+v", i)
	}
	version, commit, date = "", "", ""
	i = read(func() (*debug.BuildInfo, bool) { return nil, false })
	if i.Version != "(devel)" || i.Commit != "" || i.OpenClaw.JSONL.Default == "" || len(i.OpenClaw.SQLite.Verified) < 2 {
		t.Errorf("no build info: %+v", i)
	}
}

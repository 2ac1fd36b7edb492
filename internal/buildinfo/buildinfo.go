// Package buildinfo says what was built: the version, the commit and its time, the Go
// toolchain and platform, and the OpenClaw releases whose behaviour this build follows, per
// era. Release builds stamp the version through -ldflags (scripts/release.sh); the commit comes
// from the Go toolchain's VCS stamp, so a bug report can say exactly what ran.
package buildinfo

import (
	"runtime"
	"runtime/debug"

	"github.com/clawdoctor/clawdoctor/internal/openclaw"
)

// version, commit and date are set by scripts/release.sh:
//
//	-ldflags "-X github.com/clawdoctor/clawdoctor/internal/buildinfo.version=v0.4.0 ..."
//
// date is the commit's time, never the build's clock, so two builds of a commit are the same
// bytes. Unset, they come from the VCS stamp of debug.ReadBuildInfo.
var version, commit, date string

// Info describes the running build.
type Info struct {
	Version string `json:"version"`
	Commit  string `json:"commit"` // "" when built outside a git checkout
	// Modified is set when the checkout had uncommitted changes.
	Modified bool   `json:"modified,omitempty"`
	Date     string `json:"date"` // the commit's time (RFC 3339, UTC): a build stamps no clock
	Go       string `json:"go"`
	Platform string `json:"platform"` // GOOS/GOARCH
	OpenClaw Eras   `json:"openclaw"`
}

// Eras are the OpenClaw releases this build follows.
type Eras struct {
	JSONL  Era `json:"jsonl"`
	SQLite Era `json:"sqlite"`
}

// Era is one storage era's releases: the one followed when nothing says otherwise and every
// release whose behaviour the conformance harness checks against the real program.
type Era struct {
	Default  string   `json:"default"`
	Verified []string `json:"verified"`
}

// Read returns the running build's Info.
func Read() Info {
	return read(debug.ReadBuildInfo)
}

func read(buildInfo func() (*debug.BuildInfo, bool)) Info {
	i := Info{Version: version, Commit: commit, Date: date, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := buildInfo(); ok {
		if i.Version == "" && bi.Main.Version != "" {
			i.Version = bi.Main.Version // go install ...@v1.2.3
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if i.Commit == "" {
					i.Commit = s.Value
				}
			case "vcs.time":
				if i.Date == "" {
					i.Date = s.Value
				}
			case "vcs.modified":
				i.Modified = i.Modified || s.Value == "true"
			}
		}
	}
	if i.Version == "" {
		i.Version = "(devel)"
	}
	i.OpenClaw = Eras{
		JSONL:  Era{Default: openclaw.DefaultVersion, Verified: names(openclaw.Verified)},
		SQLite: Era{Default: openclaw.SQLiteDefault.String(), Verified: names(openclaw.SQLiteVerified)},
	}
	return i
}

func names(rs []openclaw.Release) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.String()
	}
	return out
}

// Package openclaw knows the OpenClaw releases clawdoctor follows: how a release is named, which
// behaviour each verified release has where releases differ (every entry checked against the
// real release by the conformance harness, see docs/conformance.md), and which release a state
// dir was last written by. Engines ask a Release whether it Has a Feature instead of comparing
// version numbers themselves.
package openclaw

import (
	"fmt"
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"strconv"
)

// Release is an OpenClaw calendar version such as 2026.6.11 (year.month.patch: the last part
// is not a day, 2026.7.35 exists), with an optional pre-release suffix ("2026.7.2-beta.1").
type Release struct {
	Year, Month, Day int
	Pre              string // "-beta.1" style suffix, "" for a stable release
}

// DefaultVersion is the release clawdoctor follows when nothing else says: 2026.7.35, the last
// release of the JSONL era (2026.7.33–.35 shipped in September 2026; 2026.8.1 moved sessions
// into SQLite), whose repair, replay, compaction and cleanup the conformance harness finds
// equal to ours (docs/conformance.md).
const DefaultVersion = "2026.7.35"

// NewestJSONL is the last release of the JSONL era. TestDefaultIsNewestVerified keeps the texts
// that name it and the default honest.
const NewestJSONL = "2026.7.35"

// Default is DefaultVersion parsed.
var Default = MustParse(DefaultVersion)

// Verified lists the releases whose behaviour the conformance harness compares against the
// real program, oldest first. A Feature's Since is always one of them.
var Verified = []Release{MustParse("2026.3.13"), MustParse("2026.4.24"), MustParse("2026.6.11"), MustParse("2026.7.35")}

// SQLiteSince is the first stable release that keeps sessions in SQLite.
var SQLiteSince = MustParse("2026.8.1")

// SQLiteVerified lists the SQLite-era releases whose databases clawdoctor reads and whose
// behaviour it is checked against (real databases of both in fixtures/sqlite; cleanup's plan
// against 2026.9.6's), oldest first.
var SQLiteVerified = []Release{SQLiteSince, MustParse("2026.9.6")}

// SQLiteDefault is the SQLite-era release whose behaviour is followed where it matters
// (cleanup's plan of a database): the newest verified one.
var SQLiteDefault = SQLiteVerified[len(SQLiteVerified)-1]

var versionRE = lazyre.New(`^v?(\d{4})\.(\d{1,2})\.(\d{1,2})((?:-[0-9A-Za-z.-]+)?)$`)

// Parse reads "2026.6.11", "v2026.6.11" or "2026.7.2-beta.1".
func Parse(s string) (Release, error) {
	m := versionRE.FindStringSubmatch(s)
	if m == nil {
		return Release{}, fmt.Errorf("%q is not an OpenClaw release (like %s)", s, DefaultVersion)
	}
	y, _ := strconv.Atoi(m[1])
	mo, _ := strconv.Atoi(m[2])
	d, _ := strconv.Atoi(m[3])
	if mo < 1 || mo > 12 || d < 1 { // the third part is a patch number: 2026.7.35 exists
		return Release{}, fmt.Errorf("%q is not an OpenClaw release (like %s)", s, DefaultVersion)
	}
	return Release{Year: y, Month: mo, Day: d, Pre: m[4]}, nil
}

// MustParse is Parse for constants.
func MustParse(s string) Release {
	r, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return r
}

func (r Release) String() string { return fmt.Sprintf("%d.%d.%d%s", r.Year, r.Month, r.Day, r.Pre) }

// MarshalText writes r as its version string (JSON output).
func (r Release) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads a version string.
func (r *Release) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err == nil {
		*r = v
	}
	return err
}

// Compare orders releases: -1 when r is older than o, 0 when equal, 1 when newer. A pre-release
// comes before its stable release.
func (r Release) Compare(o Release) int {
	for _, d := range [][2]int{{r.Year, o.Year}, {r.Month, o.Month}, {r.Day, o.Day}} {
		if d[0] != d[1] {
			if d[0] < d[1] {
				return -1
			}
			return 1
		}
	}
	switch {
	case r.Pre == o.Pre:
		return 0
	case r.Pre == "":
		return 1
	case o.Pre == "":
		return -1
	case r.Pre < o.Pre:
		return -1
	}
	return 1
}

// SQLiteEra reports whether r keeps sessions in SQLite rather than JSONL files.
func (r Release) SQLiteEra() bool { return r.Compare(SQLiteSince) >= 0 }

// Behaves is the verified release whose behaviour r is taken to have: r itself when verified,
// else the newest verified release older than r (the oldest one for anything older), and
// exact says whether r was verified itself.
func (r Release) Behaves() (v Release, exact bool) {
	v = Verified[0]
	for _, w := range Verified {
		switch c := w.Compare(r); {
		case c == 0:
			return w, true
		case c < 0:
			v = w
		}
	}
	return v, false
}

package hygiene

import "fmt"

// Release is the OpenClaw release whose replay pipeline the sanitizers follow. Every
// behaviour that differs between releases is switched on a Release in this package (see
// conformance.md for what was measured against each).
type Release string

// The releases replay was checked against (internal/conformance/replaycheck).
const (
	Release20260313 Release = "2026.3.13"
	Release20260424 Release = "2026.4.24"
	Release20260611 Release = "2026.6.11"
	Release20260735 Release = "2026.7.35"
	// DefaultRelease is the newest verified JSONL-era release (openclaw.DefaultVersion).
	DefaultRelease = Release20260735
)

// Releases lists the supported releases, oldest first.
var Releases = []Release{Release20260313, Release20260424, Release20260611, Release20260735}

// ParseRelease returns the supported release named s ("" is DefaultRelease).
func ParseRelease(s string) (Release, error) {
	if s == "" {
		return DefaultRelease, nil
	}
	for _, r := range Releases {
		if string(r) == s {
			return r, nil
		}
	}
	return "", fmt.Errorf("unsupported OpenClaw release %q for replay (want one of %v)", s, Releases)
}

func (r Release) orDefault() Release {
	if r == "" {
		return DefaultRelease
	}
	return r
}

// atLeast reports whether r is release x or newer.
func (r Release) atLeast(x Release) bool {
	return compareRelease(r.orDefault(), x) >= 0
}

// CompareReleases orders two release names of the form YYYY.M.D (-1, 0, 1).
func CompareReleases(a, b Release) int { return compareRelease(a, b) }

// compareRelease orders two release names of the form YYYY.M.D.
func compareRelease(a, b Release) int {
	var ay, am, ad, by, bm, bd int
	fmt.Sscanf(string(a), "%d.%d.%d", &ay, &am, &ad)
	fmt.Sscanf(string(b), "%d.%d.%d", &by, &bm, &bd)
	for _, d := range [][2]int{{ay, by}, {am, bm}, {ad, bd}} {
		if d[0] != d[1] {
			if d[0] < d[1] {
				return -1
			}
			return 1
		}
	}
	return 0
}

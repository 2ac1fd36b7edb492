package retention

import (
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"strings"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/config"
)

var (
	archiveTimestampRe = lazyre.New(`^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{3})?Z$`)
	legacyStoreBackup  = lazyre.New(`^sessions\.json\.bak\.\d+$`)
	checkpointRe       = lazyre.New(`(?i)^(.+)\.checkpoint\.([0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})\.jsonl$`)
	blobNameRe         = lazyre.New(`^[a-f0-9]{64}\.txt$`)
	blobTempRe         = lazyre.New(`^[a-f0-9]{64}\.txt\.(?:\d+\.)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp$`)
)

func normalizeAgent(id string) string { return config.NormalizeAgentID(id) }

// archiveSuffix returns the raw timestamp after the last ".<reason>." of name, if valid.
func archiveSuffix(name, reason string) (string, bool) {
	var marker string
	switch reason { // constant markers: the concatenation was paid per name and reason
	case "deleted":
		marker = ".deleted."
	case "reset":
		marker = ".reset."
	case "bak":
		marker = ".bak."
	default:
		marker = "." + reason + "."
	}
	i := strings.LastIndex(name, marker)
	if i < 0 {
		return "", false
	}
	raw := name[i+len(marker):]
	return raw, archiveTimestampRe.MatchString(raw)
}

// IsArchive is isSessionArchiveArtifactName: .deleted./.reset./.bak.<ts> or sessions.json.bak.<n>.
func IsArchive(name string) bool {
	if strings.HasPrefix(name, "sessions.json.bak.") && legacyStoreBackup.MatchString(name) {
		return true
	}
	for _, r := range []string{"deleted", "reset", "bak"} {
		if _, ok := archiveSuffix(name, r); ok {
			return true
		}
	}
	return false
}

// ArchiveTime parses the timestamp of a .<reason>.<ts> archive name.
func ArchiveTime(name, reason string) (time.Time, bool) {
	raw, ok := archiveSuffix(name, reason)
	if !ok {
		return time.Time{}, false
	}
	date, clock, found := strings.Cut(raw, "T")
	if !found {
		return time.Time{}, false
	}
	iso := date + "T" + strings.ReplaceAll(clock, "-", ":")
	for _, layout := range []string{"2006-01-02T15:04:05.000Z", "2006-01-02T15:04:05Z"} {
		if t, err := time.Parse(layout, iso); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// ArchiveStamp formats t as an archive suffix timestamp (ISO with ":" → "-").
func ArchiveStamp(t time.Time) string {
	return strings.ReplaceAll(t.UTC().Format("2006-01-02T15:04:05.000Z"), ":", "-")
}

// IsCheckpoint reports a compaction checkpoint transcript name.
func IsCheckpoint(name string) bool {
	return containsCheckpoint(name) && checkpointRe.MatchString(name)
}

// containsCheckpoint is strings.Contains(strings.ToLower(name), ".checkpoint."), without the
// lower-cased copy for ASCII names (every name of a big dir is asked).
func containsCheckpoint(name string) bool {
	for i := 0; i < len(name); i++ {
		if name[i] >= 0x80 {
			return strings.Contains(strings.ToLower(name), ".checkpoint.") // Unicode folding
		}
	}
	const m = ".checkpoint."
	for i := 0; i+len(m) <= len(name); i++ {
		if name[i] == '.' && strings.EqualFold(name[i:i+len(m)], m) {
			return true
		}
	}
	return false
}

// IsTrajectory reports a .trajectory.jsonl or .trajectory-path.json sidecar.
func IsTrajectory(name string) bool {
	return strings.HasSuffix(name, ".trajectory.jsonl") || strings.HasSuffix(name, ".trajectory-path.json")
}

// IsPrimaryTranscript is isPrimarySessionTranscriptFileName.
func IsPrimaryTranscript(name string) bool {
	if name == "sessions.json" || !strings.HasSuffix(name, ".jsonl") {
		return false
	}
	return !strings.HasSuffix(name, ".trajectory.jsonl") && !IsCheckpoint(name) && !IsArchive(name)
}

// IsStoreTemp is isSessionStoreTempArtifactName for a store named storeBase.
func IsStoreTemp(name, storeBase string) bool {
	// Lower-casing maps no rune but ASCII ones to ".", "t", "m" or "p", so a name whose last
	// four bytes are not ".tmp" in any case cannot be one: the check every file of a big dir
	// pays is then one comparison, not two lower-cased copies.
	if len(name) < 4 || !strings.EqualFold(name[len(name)-4:], ".tmp") {
		return false
	}
	if storeBase == "" || !strings.HasPrefix(strings.ToLower(name), strings.ToLower(storeBase)+".") {
		return false
	}
	rest := strings.ToLower(name[len(storeBase)+1:])
	if !strings.HasSuffix(rest, ".tmp") {
		return false
	}
	rest = strings.TrimSuffix(rest, ".tmp")
	if i := strings.IndexByte(rest, '.'); i >= 0 {
		digits := rest[:i]
		if digits == "" || strings.Trim(digits, "0123456789") != "" {
			return false
		}
		rest = rest[i+1:]
	}
	return isUUID(rest)
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
	}
	return true
}

// A file name's classes, as the plan's steps ask them of every file of the dir (the budget,
// the sweep, the kept-file reasons): the listing computes them once a file, beside the store's
// read, instead of each step again (on 200,000 files the name checks were a fifth of the
// budget plan's serial time).
const (
	classKnown     uint8 = 1 << iota // the other bits are set
	classStoreTemp                   // IsStoreTemp for the store's name
	classArchive                     // IsArchive
	classArtifact                    // isUnreferencedArtifactName
)

// classify returns the classes of a file named name beside a store named storeName: the
// predicates below, each name check made once (isUnreferencedArtifactName alone made the
// checkpoint and archive checks twice).
func classify(name, storeName string) uint8 {
	c := classKnown
	if IsStoreTemp(name, storeName) {
		c |= classStoreTemp
	}
	archive := IsArchive(name)
	if archive {
		c |= classArchive
	}
	checkpoint := IsCheckpoint(name)
	primary := name != "sessions.json" && strings.HasSuffix(name, ".jsonl") && // IsPrimaryTranscript
		!strings.HasSuffix(name, ".trajectory.jsonl") && !checkpoint && !archive
	if checkpoint || IsTrajectory(name) || primary {
		c |= classArtifact
	}
	return c
}

// fileClass returns f's classes, from the listing when it set them.
func (s *state) fileClass(f File) uint8 {
	if f.class != 0 {
		return f.class
	}
	return classify(f.Name, s.in.StoreName)
}

// isUnreferencedArtifactName: the names the sweep and the budget may delete when unreferenced.
func isUnreferencedArtifactName(name string) bool {
	return IsCheckpoint(name) || IsTrajectory(name) || IsPrimaryTranscript(name)
}

// ValidSessionID is validateSessionId: SAFE_SESSION_ID_RE and not checkpoint-shaped.
func ValidSessionID(id string) (string, bool) {
	t := strings.TrimSpace(id)
	if !safeSessionID(t) || IsCheckpoint(t+".jsonl") {
		return "", false
	}
	return t, true
}

// safeSessionID is SAFE_SESSION_ID_RE: ^[a-z0-9][a-z0-9._-]{0,127}$, case-insensitive.
func safeSessionID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20 // fold ASCII letters
		alnum := c >= 'a' && c <= 'z' || s[i] >= '0' && s[i] <= '9'
		if !alnum && (i == 0 || s[i] != '.' && s[i] != '_' && s[i] != '-') {
			return false
		}
	}
	return true
}

// IsBlobName reports a skills prompt blob "<64 hex>.txt"; IsBlobTemp its write temp.
func IsBlobName(name string) bool { return blobNameRe.MatchString(name) }

// IsBlobTemp reports a skills prompt blob write temp.
func IsBlobTemp(name string) bool { return blobTempRe.MatchString(name) }

// trajectorySidecars returns the .trajectory-path.json and .trajectory.jsonl names of a
// transcript path.
func trajectorySidecars(p string) (pointer, runtime string) {
	base := p
	if strings.HasSuffix(p, ".jsonl") {
		base = p[:len(p)-len(".jsonl")]
	}
	return base + ".trajectory-path.json", base + ".trajectory.jsonl"
}

package store

import (
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Kind is what a file in a sessions dir is, judged from its name alone (store.md §1.4).
type Kind string

// The kinds of file met in a sessions dir.
const (
	KindStore             Kind = "store"              // sessions.json
	KindTranscript        Kind = "transcript"         // <sessionId>.jsonl and any other *.jsonl
	KindTopic             Kind = "topic"              // <sessionId>-topic-<topic>.jsonl
	KindResetArchive      Kind = "reset-archive"      // <file>.reset.<ts>[.zst]
	KindDeletedArchive    Kind = "deleted-archive"    // <file>.deleted.<ts>[.zst]
	KindBakArchive        Kind = "bak-archive"        // <file>.bak.<ts>[.zst]
	KindStoreBackup       Kind = "store-backup"       // sessions.json.bak.<epochMs> (phase A rotation)
	KindRepairBackup      Kind = "repair-backup"      // <file>.bak-<pid>-<ms> (transcript hygiene, clawdoctor)
	KindRepairTemp        Kind = "repair-temp"        // <file>.repair-<pid>-<ms>.tmp, .<file>.clawdoctor-[<pid>-]*.tmp
	KindCheckpoint        Kind = "checkpoint"         // <sessionId>.checkpoint.<uuid>.jsonl
	KindTrajectory        Kind = "trajectory"         // <base>.trajectory.jsonl
	KindTrajectoryPointer Kind = "trajectory-pointer" // <base>.trajectory-path.json
	KindTranscriptLock    Kind = "transcript-lock"    // <transcript>.jsonl.lock
	KindStoreLock         Kind = "store-lock"         // sessions.json.lock (phases A/B)
	KindStoreTemp         Kind = "store-temp"         // sessions.json.<pid>.<uuid>.tmp, sessions.json.<uuid>.tmp
	KindSkillsPrompt      Kind = "skills-prompt"      // skills-prompts/sha256/<hh>/<64 hex>.txt
	KindSkillsPromptTemp  Kind = "skills-prompt-temp" // skills-prompts/sha256/<hh>/<hash>.txt.<pid>.<uuid>.tmp
	KindSQLiteArchive     Kind = "sqlite-import-archive"
	KindColdArchive       Kind = "cold-archive" // cold/<sha256>.jsonl.zst (SQLite era cold storage)
	KindForeign           Kind = "foreign"      // anything OpenClaw does not write here
)

// Kinds lists every Kind in a stable order (for reports).
var Kinds = []Kind{KindStore, KindTranscript, KindTopic, KindResetArchive, KindDeletedArchive,
	KindBakArchive, KindStoreBackup, KindRepairBackup, KindRepairTemp, KindCheckpoint,
	KindTrajectory, KindTrajectoryPointer, KindTranscriptLock, KindStoreLock, KindStoreTemp,
	KindSkillsPrompt, KindSkillsPromptTemp, KindSQLiteArchive, KindColdArchive, KindForeign}

// IsArchive reports whether k is an archive artifact that OpenClaw's disk budget may delete
// (reset, deleted and bak archives and legacy store backups).
func (k Kind) IsArchive() bool {
	return k == KindResetArchive || k == KindDeletedArchive || k == KindBakArchive || k == KindStoreBackup
}

// IsPrimary reports whether k is a primary transcript (plain or topic).
func (k Kind) IsPrimary() bool { return k == KindTranscript || k == KindTopic }

// IsLock reports whether k is a lock file.
func (k Kind) IsLock() bool { return k == KindTranscriptLock || k == KindStoreLock }

// Name is what a file name says about the file. Only the fields of its Kind are set.
type Name struct {
	Kind Kind
	// Base is the file the artifact belongs to: the transcript an archive, backup, temp,
	// lock or trajectory sidecar was made from (e.g. "abc.jsonl"), or the blob's hash.
	Base string
	// SessionID is the session id a transcript, topic or checkpoint name carries (for a
	// checkpoint it is the parent session).
	SessionID string
	// Topic is the decoded topic id of a topic transcript.
	Topic string
	// CheckpointID is the uuid of a checkpoint.
	CheckpointID string
	// Time is the archive timestamp (reset/deleted/bak), the epoch-ms of a store backup or of a
	// repair backup/temp.
	Time time.Time
	// Generation is the 32-hex transcript generation a SQLite-era archive name carries after
	// its timestamp (<sid>.jsonl.deleted.<ts>.<generation>[.zst], OpenClaw 2026.9+).
	Generation string
	// Compressed is set for archives with a .zst suffix.
	Compressed bool
	// PID is the process id in a repair backup, repair temp or store temp name (0 if none).
	PID int
}

var (
	reArchiveTS   = lazyre.New(`^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{3})?Z$`)
	reStoreBackup = lazyre.New(`^sessions\.json\.bak\.(\d+)$`)
	reStoreTemp   = lazyre.New(`^sessions\.json\.(?:(\d+)\.)?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\.tmp$`)
	reRepairBak   = lazyre.New(`^(.+)\.bak-(\d+)-(\d+)$`)
	reRepairTmp   = lazyre.New(`^(.+)\.repair-(\d+)-(\d+)\.tmp$`)
	reOwnTemp     = lazyre.New(`^\.(.+)\.clawdoctor-(?:(\d+)-)?[^/]*\.tmp$`)
	reCheckpoint  = lazyre.New(`^(.+)\.checkpoint\.([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl$`)
	reTopic       = lazyre.New(`^(.+?)-topic-(.+)\.jsonl$`)
	reBlob        = lazyre.New(`^skills-prompts/sha256/([0-9a-f]{2})/([0-9a-f]{64})\.txt$`)
	reBlobTemp    = lazyre.New(`^skills-prompts/sha256/[0-9a-f]{2}/([0-9a-f]{64})\.txt\.(\d+)\.[^/]+\.tmp$`)
	reCold        = lazyre.New(`^cold/([0-9a-f]{64})\.jsonl\.zst$`)
	reGeneration  = lazyre.New(`^(.+)\.([0-9a-f]{32})$`)
)

// Classify says what a file in a sessions dir is from its name alone. name is the base name,
// or for files below skills-prompts/ the slash-separated path relative to the sessions dir.
// It is a pure function: it reads nothing.
func Classify(name string) Name {
	if strings.Contains(name, "/") {
		if m := reBlob.FindStringSubmatch(name); m != nil && m[1] == m[2][:2] {
			return Name{Kind: KindSkillsPrompt, Base: m[2]}
		}
		if m := reBlobTemp.FindStringSubmatch(name); m != nil {
			return Name{Kind: KindSkillsPromptTemp, Base: m[1], PID: atoi(m[2])}
		}
		if m := reCold.FindStringSubmatch(name); m != nil {
			return Name{Kind: KindColdArchive, Base: m[1], Compressed: true}
		}
		return Name{Kind: KindForeign}
	}
	switch name {
	case "sessions.json":
		return Name{Kind: KindStore}
	case "sessions.json.lock":
		return Name{Kind: KindStoreLock, Base: "sessions.json"}
	case "session-sqlite-import-archive":
		return Name{Kind: KindSQLiteArchive}
	}
	if strings.HasPrefix(name, "sessions.json.") {
		if m := reStoreBackup.FindStringSubmatch(name); m != nil {
			return Name{Kind: KindStoreBackup, Base: "sessions.json", Time: msTime(m[1])}
		}
		if m := reStoreTemp.FindStringSubmatch(name); m != nil {
			return Name{Kind: KindStoreTemp, Base: "sessions.json", PID: atoi(m[1])}
		}
	}
	// The regular expressions below only run on names that contain their marker.
	if base, ok := strings.CutSuffix(name, ".lock"); ok && strings.HasSuffix(base, ".jsonl") {
		return Name{Kind: KindTranscriptLock, Base: base}
	}
	if strings.Contains(name, ".bak-") {
		if m := reRepairBak.FindStringSubmatch(name); m != nil {
			return Name{Kind: KindRepairBackup, Base: m[1], PID: atoi(m[2]), Time: msTime(m[3])}
		}
	}
	if strings.Contains(name, ".repair-") {
		if m := reRepairTmp.FindStringSubmatch(name); m != nil {
			return Name{Kind: KindRepairTemp, Base: m[1], PID: atoi(m[2]), Time: msTime(m[3])}
		}
	}
	if strings.Contains(name, ".clawdoctor-") {
		if m := reOwnTemp.FindStringSubmatch(name); m != nil {
			return Name{Kind: KindRepairTemp, Base: m[1], PID: atoi(m[2])}
		}
	}
	if n, ok := classifyArchive(name); ok {
		return n
	}
	if base, ok := strings.CutSuffix(name, ".trajectory.jsonl"); ok && base != "" {
		return Name{Kind: KindTrajectory, Base: base + ".jsonl"}
	}
	if base, ok := strings.CutSuffix(name, ".trajectory-path.json"); ok && base != "" {
		return Name{Kind: KindTrajectoryPointer, Base: base + ".jsonl"}
	}
	if strings.Contains(name, ".checkpoint.") {
		if m := reCheckpoint.FindStringSubmatch(name); m != nil {
			return Name{Kind: KindCheckpoint, SessionID: m[1], CheckpointID: strings.ToLower(m[2])}
		}
	}
	if id, ok := strings.CutSuffix(name, ".jsonl"); ok && id != "" {
		if strings.Contains(name, "-topic-") {
			if m := reTopic.FindStringSubmatch(name); m != nil {
				topic, err := url.PathUnescape(m[2])
				if err != nil {
					topic = m[2]
				}
				return Name{Kind: KindTopic, Base: name, SessionID: m[1], Topic: topic}
			}
		}
		return Name{Kind: KindTranscript, Base: name, SessionID: id}
	}
	return Name{Kind: KindForeign}
}

// classifyArchive recognises <file>.(reset|deleted|bak).<ts>[.<32-hex generation>] with an
// optional .zst suffix (OpenClaw's ARCHIVE_SUFFIX_RE).
func classifyArchive(name string) (Name, bool) {
	n := Name{}
	rest := name
	if s, ok := strings.CutSuffix(rest, ".zst"); ok {
		rest, n.Compressed = s, true
	}
	for _, a := range []struct {
		marker string
		kind   Kind
	}{{".reset.", KindResetArchive}, {".deleted.", KindDeletedArchive}, {".bak.", KindBakArchive}} {
		i := strings.LastIndex(rest, a.marker)
		if i <= 0 {
			continue
		}
		ts, gen := rest[i+len(a.marker):], ""
		if m := reGeneration.FindStringSubmatch(ts); m != nil {
			ts, gen = m[1], m[2]
		}
		t, ok := ParseArchiveTime(ts)
		if !ok {
			continue
		}
		n.Kind, n.Base, n.Time, n.Generation = a.kind, rest[:i], t, gen
		return n, true
	}
	return Name{}, false
}

// ParseArchiveTime parses an archive suffix timestamp, new Date(ms).toISOString() with ':'
// replaced by '-' (e.g. 2026-03-14T09-05-33.123Z; milliseconds optional).
func ParseArchiveTime(s string) (time.Time, bool) {
	if !reArchiveTS.MatchString(s) {
		return time.Time{}, false
	}
	iso := s[:13] + ":" + s[14:16] + ":" + s[17:]
	t, err := time.Parse(time.RFC3339Nano, iso)
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// ArchiveTime formats t as an archive suffix, the inverse of ParseArchiveTime.
func ArchiveTime(t time.Time) string {
	return strings.ReplaceAll(t.UTC().Format("2006-01-02T15:04:05.000Z"), ":", "-")
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

func msTime(s string) time.Time {
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

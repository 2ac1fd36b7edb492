package retention_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/config"
	"github.com/clawdoctor/clawdoctor/internal/retention"
)

// explainReasons is every reason `cleanup --explain` gives a file, one pattern each. A reason
// the planner gives that matches none of them fails TestExplainReasonsAreKnown, so a new
// reason comes with its row in TestExplainReasons.
var explainReasons = map[string]*regexp.Regexp{
	"archived transcript":     regexp.MustCompile(`^transcript of removed entry \S+ \(prune-stale\)$`),
	"sidecar":                 regexp.MustCompile(`^trajectory sidecar of removed entry \S+$`),
	"deleted archive retired": regexp.MustCompile(`^\.deleted\. archive older than 30d$`),
	"reset archive retired":   regexp.MustCompile(`^\.reset\. archive older than 7d$`),
	"tier 1 blob":             regexp.MustCompile(`^disk budget tier 1: unreferenced skills prompt blob; sessions dir \d+ bytes > maxDiskBytes \d+; down to highWaterBytes \d+$`),
	"tier 2 archive":          regexp.MustCompile(`^disk budget tier 2: archive, oldest first; sessions dir \d+ bytes > maxDiskBytes \d+; down to highWaterBytes \d+$`),
	"tier 2 store temp":       regexp.MustCompile(`^disk budget tier 2: stale store temp, oldest first; sessions dir .*\d$`),
	"tier 2 sidecar orphan":   regexp.MustCompile(`^disk budget tier 2: unreferenced session artifact, oldest first; sessions dir .*\d$`),
	"tier 2 orphan deleted":   regexp.MustCompile(`^disk budget tier 2: unreferenced session artifact, .*; deleted as OpenClaw deletes it: the disk budget needs its bytes \(--keep-orphans archives it instead; --backup-dir keeps a copy\)$`),
	"tier 2 orphan kept":      regexp.MustCompile(`^disk budget tier 2: unreferenced session artifact, .*; archived as \.deleted\.<ts> \(--keep-orphans\): its bytes stay on disk, so the budget may not be met$`),
	"tier 3 transcript":       regexp.MustCompile(`^transcript or sidecar of budget-evicted entry \S+$`),
	"tier 3 blob":             regexp.MustCompile(`^skills prompt blob of evicted entry \S+$`),
	"sweep sidecar":           regexp.MustCompile(`^unreferenced artifact not modified for 30d \(pruneAfter\)$`),
	"sweep orphan archived":   regexp.MustCompile(`^unreferenced artifact not modified for 30d \(pruneAfter\); archived as \.deleted\.<ts>, not deleted \(OpenClaw deletes orphan transcripts; clawdoctor archives them where no disk budget needs their bytes\)$`),
	"sweep store temp":        regexp.MustCompile(`^store temp older than 5 minutes$`),
	"sweep blob":              regexp.MustCompile(`^unreferenced skills prompt blob$`),
	"kept, named by a row":    regexp.MustCompile(`^named by kept entry \S+: OpenClaw's cleanup would delete it \(unreferenced artifact not modified for 30d \(pruneAfter\)\); clawdoctor keeps it$`),
	"kept store":              regexp.MustCompile(`^the store$`),
	"kept archive":            regexp.MustCompile(`^archive within retention and budget$`),
	"kept referenced":         regexp.MustCompile(`^referenced by a kept entry$`),
	"kept recent":             regexp.MustCompile(`^unreferenced but modified within pruneAfter 30d$`),
	"kept foreign":            regexp.MustCompile(`^not a session artifact \(counted by the budget, never deleted\)$`),
	"kept, removed row's":     regexp.MustCompile(`^belongs to a removed entry: a transcript is archived as \.deleted\.<ts>, a sidecar deleted, when applied$`),
}

const (
	blobHash  = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	blobPath  = "skills-prompts/sha256/01/" + blobHash + ".txt"
	storeTemp = "sessions.json.123.01234567-89ab-4cde-8f01-23456789abcd.tmp"
)

type explainCase struct {
	reason string // key of explainReasons
	in     retention.Input
	m      config.Maintenance
	opt    retention.Options
	path   string // the file the reason is about
	action string
}

func explainCases() []explainCase {
	old := ent("agent:main:direct:old", "o", 40)
	kept := ent("agent:main:main", "m", 1)
	budget := config.Maintenance{MaxDiskBytes: "3000", HighWaterBytes: "2000"}
	relocated := ent("agent:main:direct:moved", "r", 1)
	relocated.SessionFile, relocated.Transcript, relocated.Outside = "/old/root/agents/main/sessions/r.jsonl", "", "/old/root/agents/main/sessions/r.jsonl"
	withBlob := ent("agent:main:direct:blob", "b", 20)
	withBlob.PromptHash = blobHash
	return []explainCase{
		{"archived transcript", input([]retention.Entry{kept, old}, file("m.jsonl", 100, 1), file("o.jsonl", 100, 40)),
			config.Maintenance{}, retention.Options{}, "o.jsonl", retention.FileArchive},
		{"sidecar", input([]retention.Entry{kept, old}, file("m.jsonl", 100, 1), file("o.jsonl", 100, 40), file("o.trajectory.jsonl", 10, 40)),
			config.Maintenance{}, retention.Options{}, "o.trajectory.jsonl", retention.FileDelete},
		{"deleted archive retired", input([]retention.Entry{kept, old}, file("m.jsonl", 100, 1), file("o.jsonl", 100, 40),
			file("x.jsonl.deleted.2026-01-01T00-00-00.000Z", 100, 100)),
			config.Maintenance{}, retention.Options{}, "x.jsonl.deleted.2026-01-01T00-00-00.000Z", retention.FileDelete},
		{"reset archive retired", input([]retention.Entry{kept}, file("m.jsonl", 100, 1), file("x.jsonl.reset.2026-01-01T00-00-00.000Z", 100, 100)),
			config.Maintenance{ResetArchiveRetention: "7d"}, retention.Options{}, "x.jsonl.reset.2026-01-01T00-00-00.000Z", retention.FileDelete},
		{"tier 1 blob", retention.Input{AgentID: "main", StorePath: "/s/sessions.json", StoreName: "sessions.json", Entries: []retention.Entry{kept},
			Files: []retention.File{{Name: "sessions.json", Size: 100, ModMs: nowMs()}, file("m.jsonl", 3000, 1)}, Blobs: []retention.File{file(blobPath, 2000, 10)}},
			budget, retention.Options{DryRun: true}, blobPath, retention.FileDelete},
		{"tier 2 archive", input([]retention.Entry{kept}, file("m.jsonl", 1000, 1), file("x.jsonl.reset.2026-04-01T00-00-00.000Z", 3000, 10)),
			budget, retention.Options{DryRun: true}, "x.jsonl.reset.2026-04-01T00-00-00.000Z", retention.FileDelete},
		{"tier 2 store temp", input([]retention.Entry{kept}, file("m.jsonl", 1000, 1), file(storeTemp, 3000, 1)),
			budget, retention.Options{DryRun: true}, storeTemp, retention.FileDelete},
		{"tier 2 sidecar orphan", input([]retention.Entry{kept}, file("m.jsonl", 1000, 1), file("gone.trajectory.jsonl", 3000, 5)),
			budget, retention.Options{DryRun: true}, "gone.trajectory.jsonl", retention.FileDelete},
		{"tier 2 orphan deleted", input([]retention.Entry{kept}, file("m.jsonl", 1000, 1), file("gone.jsonl", 3000, 5)),
			budget, retention.Options{DryRun: true}, "gone.jsonl", retention.FileDelete},
		{"tier 2 orphan kept", input([]retention.Entry{kept}, file("m.jsonl", 1000, 1), file("gone.jsonl", 3000, 5)),
			budget, retention.Options{DryRun: true, KeepOrphans: true}, "gone.jsonl", retention.FileArchive},
		{"tier 3 transcript", input([]retention.Entry{kept, ent("agent:main:direct:big", "big", 3)}, file("m.jsonl", 100, 1), file("big.jsonl", 5000, 3)),
			budget, retention.Options{DryRun: true}, "big.jsonl", retention.FileDelete},
		{"tier 3 blob", retention.Input{AgentID: "main", StorePath: "/s/sessions.json", StoreName: "sessions.json", Entries: []retention.Entry{kept, withBlob},
			Files: []retention.File{{Name: "sessions.json", Size: 100, ModMs: nowMs()}, file("m.jsonl", 100, 1), file("b.jsonl", 5000, 20)},
			Blobs: []retention.File{file(blobPath, 100, 10)}},
			budget, retention.Options{DryRun: true}, blobPath, retention.FileDelete},
		{"sweep sidecar", input([]retention.Entry{kept}, file("m.jsonl", 100, 1), file("gone.trajectory.jsonl", 100, 40)),
			config.Maintenance{}, retention.Options{DryRun: true}, "gone.trajectory.jsonl", retention.FileDelete},
		{"sweep orphan archived", input([]retention.Entry{kept}, file("m.jsonl", 100, 1), file("gone.jsonl", 100, 40)),
			config.Maintenance{}, retention.Options{DryRun: true}, "gone.jsonl", retention.FileArchive},
		{"sweep store temp", input([]retention.Entry{kept}, file("m.jsonl", 100, 1), file(storeTemp, 100, 1)),
			config.Maintenance{}, retention.Options{DryRun: true}, storeTemp, retention.FileDelete},
		{"sweep blob", retention.Input{AgentID: "main", StorePath: "/s/sessions.json", StoreName: "sessions.json", Entries: []retention.Entry{kept},
			Files: []retention.File{{Name: "sessions.json", Size: 100, ModMs: nowMs()}, file("m.jsonl", 100, 1)}, Blobs: []retention.File{file(blobPath, 100, 40)}},
			config.Maintenance{}, retention.Options{DryRun: true}, blobPath, retention.FileDelete},
		{"kept, named by a row", input([]retention.Entry{kept, relocated}, file("m.jsonl", 100, 1), file("r.jsonl", 100, 40)),
			config.Maintenance{}, retention.Options{DryRun: true}, "r.jsonl", retention.FileKeep},
		{"kept store", input([]retention.Entry{kept}, file("m.jsonl", 100, 1)),
			config.Maintenance{}, retention.Options{DryRun: true}, "sessions.json", retention.FileKeep},
		{"kept archive", input([]retention.Entry{kept}, file("m.jsonl", 100, 1), file("x.jsonl.reset.2026-04-01T00-00-00.000Z", 100, 10)),
			config.Maintenance{}, retention.Options{DryRun: true}, "x.jsonl.reset.2026-04-01T00-00-00.000Z", retention.FileKeep},
		{"kept referenced", input([]retention.Entry{kept}, file("m.jsonl", 100, 1)),
			config.Maintenance{}, retention.Options{DryRun: true}, "m.jsonl", retention.FileKeep},
		{"kept recent", input([]retention.Entry{kept}, file("m.jsonl", 100, 1), file("new.jsonl", 100, 2)),
			config.Maintenance{}, retention.Options{DryRun: true}, "new.jsonl", retention.FileKeep},
		{"kept foreign", input([]retention.Entry{kept}, file("m.jsonl", 100, 1), file("notes.txt", 100, 90)),
			config.Maintenance{}, retention.Options{DryRun: true}, "notes.txt", retention.FileKeep},
		{"kept, removed row's", input([]retention.Entry{kept, old}, file("m.jsonl", 100, 1), file("o.jsonl", 100, 40)),
			config.Maintenance{}, retention.Options{DryRun: true}, "o.jsonl", retention.FileKeep},
	}
}

func planExplained(t *testing.T, c explainCase) *retention.Plan {
	t.Helper()
	opt := c.opt
	opt.Settings, opt.Now, opt.Explain = settings(t, c.m), now, true
	in := c.in
	return retention.Make(&in, opt)
}

// TestExplainReasons: one row per reason; the file gets exactly one line, with that reason
// and the action it decided (issue 30: a transcript listed twice with contradicting reasons).
func TestExplainReasons(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range explainCases() {
		t.Run(c.reason, func(t *testing.T) {
			re, ok := explainReasons[c.reason]
			if !ok {
				t.Fatalf("no pattern for %q", c.reason)
			}
			covered[c.reason] = true
			p := planExplained(t, c)
			var lines []retention.FileAction
			for _, f := range append(append([]retention.FileAction(nil), p.Files...), p.Kept...) {
				if f.Path == c.path {
					lines = append(lines, f)
				}
			}
			if len(lines) != 1 {
				t.Fatalf("%s: %d lines, want exactly one: %+v", c.path, len(lines), lines)
			}
			if f := lines[0]; f.Action != c.action || !re.MatchString(f.Reason) {
				t.Errorf("%s: %s %q, want %s matching %s", c.path, f.Action, f.Reason, c.action, re)
			}
		})
	}
	for name := range explainReasons {
		if !covered[name] {
			t.Errorf("reason %q has no row", name)
		}
	}
}

// TestExplainReasonsAreKnown: every reason the planner gives a file, across the rows above
// and the plan tests' scenarios, is one of explainReasons (with other durations and keys).
func TestExplainReasonsAreKnown(t *testing.T) {
	generic := regexp.MustCompile(`\d+d|\d+h`)
	seen := 0
	for _, c := range explainCases() {
		p := planExplained(t, c)
		for _, f := range append(append([]retention.FileAction(nil), p.Files...), p.Kept...) {
			seen++
			matched := false
			for _, re := range explainReasons {
				if re.MatchString(f.Reason) || re.MatchString(generic.ReplaceAllStringFunc(f.Reason, func(s string) string {
					if strings.HasSuffix(s, "h") {
						return s
					}
					return "30d"
				})) {
					matched = true
					break
				}
			}
			if !matched {
				t.Errorf("%s: %s %q matches no known reason: add it to explainReasons with a row", c.reason, f.Path, f.Reason)
			}
		}
	}
	if seen < len(explainReasons) {
		t.Fatalf("only %d file lines seen", seen)
	}
}

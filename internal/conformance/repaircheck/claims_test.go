package repaircheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/audit"
	"github.com/clawdoctor/clawdoctor/internal/conformance/harness"
	"github.com/clawdoctor/clawdoctor/internal/openclaw"
)

// A claim is a text of ours that says what OpenClaw does, tied to a check of what the real
// release did with a fixture (recorded repair and load answers). The text is the rule's
// description or the finding audit reports on the fixture for that release; the phrase must
// be in it, and the check must hold.
type claim struct {
	rule, fixture, phrase string
	check                 func(c claimCase) error
}

type claimCase struct {
	rel         openclaw.Release
	in, out     []byte // the fixture, and the file after OpenClaw's repair
	rep         answer
	load        LoadAnswer
	afterLoad   []byte // the file after SessionManager.open
	inputEntrys int    // non-header lines of the fixture that parse
}

var claims = []claim{
	{"jsonl.malformed-line", "torn_final_line.jsonl", "OpenClaw's repair drops it", func(c claimCase) error {
		if !c.rep.Result.Repaired || c.rep.Result.DroppedLines != 1 || lineCount(c.out) != lineCount(c.in)-1 {
			return fmt.Errorf("repair: repaired %v, dropped %d, %d -> %d lines", c.rep.Result.Repaired, c.rep.Result.DroppedLines, lineCount(c.in), lineCount(c.out))
		}
		return nil
	}},
	{"jsonl.concatenated", "glued_objects.jsonl", "OpenClaw skips the whole line", func(c claimCase) error {
		for _, id := range gluedIDs(c.in) {
			if bytes.Contains(c.out, []byte(`"id":"`+id+`"`)) {
				return fmt.Errorf("entry %s of the glued line survived OpenClaw's repair", id)
			}
		}
		return nil
	}},
	{"jsonl.malformed-line", "lone_cr.jsonl", "OpenClaw reads it as one broken line and skips all of them", func(c claimCase) error {
		if c.rep.Result.Reason != "empty session file" || c.load.Entries != 0 {
			return fmt.Errorf("repair reason %q, loader entries %d", c.rep.Result.Reason, c.load.Entries)
		}
		return nil
	}},
	{"jsonl.bom", "utf8_bom.jsonl", "OpenClaw's repair then finds no header and never repairs the file", func(c claimCase) error {
		if c.rep.Result.Repaired || c.rep.Result.Reason != "invalid session header" {
			return fmt.Errorf("repair: repaired %v, reason %q", c.rep.Result.Repaired, c.rep.Result.Reason)
		}
		return nil
	}},
	{"header.missing", "missing_header.jsonl", "OpenClaw's repair refuses the file", func(c claimCase) error {
		if c.rep.Result.Repaired || c.rep.Result.Reason != "invalid session header" {
			return fmt.Errorf("repair: repaired %v, reason %q", c.rep.Result.Repaired, c.rep.Result.Reason)
		}
		return nil
	}},
	{"header.missing", "missing_header.jsonl", "pi's loader rewrites it with a new header before the entries", func(c claimCase) error {
		if c.load.Entries != c.inputEntrys || !bytes.HasSuffix(c.afterLoad, c.in) || !bytes.HasPrefix(c.afterLoad, []byte(`{"type":"session"`)) {
			return fmt.Errorf("loader kept %d of %d entries; file after open starts %.60q", c.load.Entries, c.inputEntrys, c.afterLoad)
		}
		return nil
	}},
	{"header.missing", "missing_header.jsonl", "pi's loader rewrites it with a bare header, losing every entry", func(c claimCase) error {
		if c.load.Entries != 0 || lineCount(c.afterLoad) != 1 || !bytes.HasPrefix(c.afterLoad, []byte(`{"type":"session"`)) {
			return fmt.Errorf("loader kept %d entries; file after open has %d lines", c.load.Entries, lineCount(c.afterLoad))
		}
		return nil
	}},
	{"image.corrupt", "corrupt_image.jsonl", "the repair of OpenClaw 2026.6.11 replaces it with a text block", func(c claimCase) error {
		replaced := c.rep.Result.RemovedCorruptedImageBlocks == 1 && bytes.Contains(c.out, []byte(`{"type":"text","text":"[image omitted: corrupted base64 payload]"}`))
		if replaced != c.rel.Has(openclaw.RepairReplacesCorruptImages) {
			return fmt.Errorf("replaced %d image blocks", c.rep.Result.RemovedCorruptedImageBlocks)
		}
		return nil
	}},
	{"jsonl.crlf", "crlf.jsonl", "OpenClaw reads CRLF line ends", func(c claimCase) error {
		if c.load.Entries != c.inputEntrys || c.rep.Result.Repaired {
			return fmt.Errorf("loader kept %d of %d entries, repaired %v", c.load.Entries, c.inputEntrys, c.rep.Result.Repaired)
		}
		return nil
	}},
	{"tree.dangling-parent", "dangling_parent.jsonl", "OpenClaw's context walk stops here and silently drops everything before it", func(c claimCase) error {
		onPath, total := pathMessages(c.in)
		if c.load.Messages != onPath || onPath >= total {
			return fmt.Errorf("context has %d messages; %d from the dangling entry to the leaf, %d in the file", c.load.Messages, onPath, total)
		}
		return nil
	}},
}

// unchecked are the rule descriptions that say what OpenClaw does but that these drivers
// (repair and load) cannot show, with where they are shown instead, or why not.
var unchecked = map[string]string{
	"tool.invalid-call":    "a replay claim: the replay engine's oracle (sanitizeSessionHistory)",
	"tool.reused-call-id":  "a replay claim (pairing): the replay engine's oracle",
	"fallback.lost-prompt": "names a text old OpenClaw wrote (#65760), no behaviour of a verified release",
	"store.corrupt":        "a store-loading claim: no store driver yet",
	"store.invalid-entry":  "a store-loading claim: no store driver yet",
	// SQLite-era claims, read from 2026.9.6's code and pinned by the agentdb tests on real
	// cold archives it made (fixtures/sqlite/cold-2026.9.6); no repair driver reads them.
	"sqlite.archive-unverified": "a SQLite-era claim (readSqliteTranscriptArchive): agentdb.TestArchiveHash",
	"sqlite.cold-archive":       "a SQLite-era claim (readVerifiedSessionColdArchive): agentdb.TestColdVerification",
}

// TestClaims checks every claim on the recorded answers of every verified release: where the
// text (as audit says it for that release) holds the phrase, the real release must do it.
func TestClaims(t *testing.T) {
	ctx := context.Background()
	for _, rel := range openclaw.Verified {
		path, err := harness.GoldenPath("repair", rel.String())
		if err != nil {
			t.Fatal(err)
		}
		g, err := harness.LoadGoldens(path)
		if err != nil {
			t.Fatalf("%v (record with scripts/conformance-record.sh)", err)
		}
		shown := map[string]bool{}
		for _, cl := range claims {
			in, err := fixtures.FS.ReadFile(cl.fixture)
			if err != nil {
				t.Fatal(err)
			}
			text := ruleText(t, cl.rule, cl.fixture, in, rel)
			if !strings.Contains(text, cl.phrase) {
				continue // this release's text does not make this claim
			}
			shown[cl.rule+": "+cl.phrase] = true
			out, rep, err := Oracle(ctx, g, in)
			if err != nil {
				t.Fatal(err)
			}
			load, after, err := Load(ctx, g, in)
			if err != nil {
				t.Fatal(err)
			}
			c := claimCase{rel: rel, in: in, out: out, rep: rep, load: load, afterLoad: after, inputEntrys: entryLines(in)}
			if err := cl.check(c); err != nil {
				t.Errorf("OpenClaw %s, %s on %s: %q is not what it does: %v", rel, cl.rule, cl.fixture, cl.phrase, err)
			}
		}
		// Every claim is made by some release, and header.missing says one of its two.
		for _, cl := range claims {
			if cl.rule != "header.missing" && !shown[cl.rule+": "+cl.phrase] {
				t.Errorf("OpenClaw %s: no text of %s holds %q any more: update the claim with the text", rel, cl.rule, cl.phrase)
			}
		}
		if shown["header.missing: pi's loader rewrites it with a new header before the entries"] == shown["header.missing: pi's loader rewrites it with a bare header, losing every entry"] {
			t.Errorf("OpenClaw %s: header.missing must say exactly one of its two loader texts", rel)
		}
	}
}

// TestClaimsCoverRuleTexts: every rule description that says what OpenClaw (or pi, or a
// gateway) does is either checked by a claim or listed in unchecked with the reason.
func TestClaimsCoverRuleTexts(t *testing.T) {
	says := regexp.MustCompile(`OpenClaw|\bpi\b|pi's|gateway would`)
	for _, r := range audit.Rules {
		if !says.MatchString(r.Description) {
			continue
		}
		if _, ok := unchecked[r.ID]; ok {
			continue
		}
		covered := false
		for _, cl := range claims {
			if cl.rule == r.ID && strings.Contains(r.Description, strings.SplitN(cl.phrase, " ", 3)[0]) {
				covered = true
			}
		}
		if !covered {
			t.Errorf("%s says what OpenClaw does (%q) but no claim checks it", r.ID, r.Description)
		}
	}
}

// ruleText is the rule's description and the messages audit gives the fixture for release rel.
func ruleText(t *testing.T, rule, name string, in []byte, rel openclaw.Release) string {
	r, ok := audit.RuleByID(rule)
	if !ok {
		t.Fatalf("no rule %s", rule)
	}
	fs, _, err := audit.CheckTranscript(context.Background(), bytes.NewReader(in), name, audit.Options{Release: rel})
	if err != nil {
		t.Fatal(err)
	}
	text := r.Description
	for _, f := range fs {
		if f.Rule == rule {
			text += "\n" + f.Message
		}
	}
	return text
}

func lineCount(b []byte) int { return bytes.Count(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) + 1 }

// entryLines counts the lines that parse and are not a session header.
func entryLines(b []byte) int {
	n := 0
	for _, l := range bytes.Split(b, []byte("\n")) {
		var e struct{ Type string }
		if json.Unmarshal(bytes.TrimSuffix(l, []byte("\r")), &e) == nil && e.Type != "" && e.Type != "session" {
			n++
		}
	}
	return n
}

// gluedIDs are the entry ids on the line holding two glued objects.
func gluedIDs(b []byte) []string {
	for _, l := range bytes.Split(b, []byte("\n")) {
		if bytes.Contains(l, []byte(`}{"type"`)) {
			var ids []string
			for _, m := range regexp.MustCompile(`\{"type":"[a-z_]+","id":"([^"]+)"`).FindAllSubmatch(l, -1) {
				ids = append(ids, string(m[1]))
			}
			return ids
		}
	}
	return nil
}

// pathMessages walks parentIds from the last entry and counts the message entries on the way
// (until a parent that is not in the file), and the message entries in the file.
func pathMessages(b []byte) (onPath, total int) {
	type ent struct {
		Type, ID string
		ParentID *string
	}
	byID := map[string]ent{}
	var last string
	for _, l := range bytes.Split(b, []byte("\n")) {
		var e ent
		if json.Unmarshal(l, &e) != nil || e.ID == "" || e.Type == "session" {
			continue
		}
		var raw struct {
			ParentID *string `json:"parentId"`
		}
		json.Unmarshal(l, &raw)
		e.ParentID = raw.ParentID
		byID[e.ID], last = e, e.ID
		if e.Type == "message" {
			total++
		}
	}
	for id := last; id != ""; {
		e, ok := byID[id]
		if !ok {
			break
		}
		if e.Type == "message" {
			onPath++
		}
		if e.ParentID == nil {
			break
		}
		id = *e.ParentID
	}
	return onPath, total
}

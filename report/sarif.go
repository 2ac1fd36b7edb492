package report

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/audit"
)

// SARIF 2.1.0 (https://docs.oasis-open.org/sarif/sarif/v2.1.0/) for code-scanning uploads.
const sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"

// sarifBase is the uriBaseId of every relative uri; its absolute location is in the run's
// originalUriBaseIds, so a consumer that knows the checkout maps the findings to its files.
const sarifBase = "SRCROOT"

// rulesDoc is where each rule is explained (docs/audit.md's rule table).
const rulesDoc = "https://github.com/clawdoctor/clawdoctor/blob/main/docs/audit.md#rules"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                   `json:"tool"`
	Invocations        []sarifInvocation           `json:"invocations"`
	OriginalURIBaseIDs map[string]sarifArtifactLoc `json:"originalUriBaseIds,omitempty"`
	Results            []sarifResult               `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	Name                 string       `json:"name"`
	ShortDescription     sarifMessage `json:"shortDescription"`
	Help                 sarifHelp    `json:"help"`
	HelpURI              string       `json:"helpUri"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string       `json:"level"`
	Message sarifMessage `json:"message"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifMessage      `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]any    `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifArtifactLoc struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifactLoc `json:"artifactLocation"`
	Region           *sarifRegion     `json:"region,omitempty"`
}

type sarifRegion struct {
	StartLine int64 `json:"startLine"`
}

func sarifLevel(s audit.Severity) string {
	switch s {
	case audit.Error:
		return "error"
	case audit.Warning:
		return "warning"
	}
	return "note"
}

// SARIFRoot is the default directory SARIF uris are relative to: the git work tree that
// holds the first input (the repository code scanning maps findings into), else cwd.
func SARIFRoot(inputs []string, cwd string) string {
	if len(inputs) > 0 {
		p := inputs[0]
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		for dir := filepath.Clean(p); ; dir = filepath.Dir(dir) {
			if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil { // a dir, or a worktree's file
				return dir
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return cwd
}

// sarifArtifact locates path for SARIF: relative to root (with uriBaseId) when it is inside,
// else an absolute file: uri.
func sarifArtifact(path, root string) sarifArtifactLoc {
	if root != "" {
		abs, err := filepath.Abs(path)
		if err == nil {
			if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return sarifArtifactLoc{URI: escapePath(filepath.ToSlash(rel)), URIBaseID: sarifBase}
			}
			return sarifArtifactLoc{URI: fileURI(abs)}
		}
	}
	return sarifArtifactLoc{URI: escapePath(strings.TrimPrefix(filepath.ToSlash(path), "./"))}
}

// escapePath percent-encodes each segment of a slash-separated path for a URI reference.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

func fileURI(abs string) string {
	p := escapePath(filepath.ToSlash(abs))
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive path
	}
	return "file://" + p
}

// fingerprint identifies a finding across runs: rule, file and the entry (with the tool call
// it is about) rather than the line, which moves when lines are added before it. Findings
// about a line with no entry (a malformed line) use the line.
func fingerprint(f *audit.Finding, uri string) string {
	anchor := "line:" + lineStr(f.Line)
	if f.EntryID != "" {
		anchor = "entry:" + f.EntryID
	}
	if id, ok := f.Evidence["toolCallId"].(string); ok {
		anchor += "/call:" + id
	}
	if k, ok := f.Evidence["key"].(string); ok { // a sessions.json row
		anchor += "/key:" + k
	}
	h := sha256.Sum256([]byte(f.Rule + "\x00" + uri + "\x00" + anchor))
	return hex.EncodeToString(h[:16])
}

func auditSARIF(w io.Writer, res *audit.Result, root string) error {
	index := map[string]int{}
	var rules []sarifRule
	for i, r := range audit.Rules {
		sr := sarifRule{ID: r.ID, Name: ruleName(r.ID), ShortDescription: sarifMessage{Text: r.Description},
			Help: sarifHelp{Text: r.Description + ". Fix: " + r.Fix + ".",
				Markdown: "**" + r.ID + "** (" + r.Severity.String() + "): " + r.Description + ".\n\nFix: " + r.Fix + ".\n\nSee [the rule table](" + rulesDoc + ")."},
			HelpURI: rulesDoc}
		sr.DefaultConfiguration.Level = sarifLevel(r.Severity)
		rules = append(rules, sr)
		index[r.ID] = i
	}
	results := make([]sarifResult, 0, len(res.Findings))
	for _, f := range res.Findings {
		loc := sarifLocation{}
		loc.PhysicalLocation.ArtifactLocation = sarifArtifact(f.Path, root)
		if f.Line > 0 {
			loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Line}
		}
		props := map[string]any{}
		if f.EntryID != "" {
			props["entryId"] = f.EntryID
		}
		if len(f.Evidence) > 0 {
			props["evidence"] = f.Evidence
		}
		text := f.Text()
		if f.Omitted > 0 {
			props["omitted"] = f.Omitted
			text += " (" + moreLine(&f) + ")"
		}
		if len(props) == 0 {
			props = nil
		}
		results = append(results, sarifResult{RuleID: f.Rule, RuleIndex: index[f.Rule], Level: sarifLevel(f.Severity),
			Message: sarifMessage{Text: text}, Locations: []sarifLocation{loc},
			PartialFingerprints: map[string]string{"clawdoctor/v1": fingerprint(&f, loc.PhysicalLocation.ArtifactLocation.URI)},
			Properties:          props})
	}
	inv := sarifInvocation{ExecutionSuccessful: true}
	for _, u := range res.Unreadable {
		inv.Notifications = append(inv.Notifications, sarifNotification{Level: "error", Message: sarifMessage{Text: "could not read " + u}})
	}
	run := sarifRun{
		Tool:        sarifTool{Driver: sarifDriver{Name: "clawdoctor", InformationURI: "https://github.com/clawdoctor/clawdoctor", Rules: rules}},
		Invocations: []sarifInvocation{inv},
		Results:     results,
	}
	if root != "" {
		run.OriginalURIBaseIDs = map[string]sarifArtifactLoc{sarifBase: {URI: strings.TrimSuffix(fileURI(root), "/") + "/"}}
	}
	return WriteJSON(w, sarifLog{Schema: sarifSchema, Version: "2.1.0", Runs: []sarifRun{run}})
}

// ruleName turns "tool.unpaired-call" into "ToolUnpairedCall" (SARIF reportingDescriptor.name).
func ruleName(id string) string {
	var b strings.Builder
	up := true
	for _, r := range id {
		if r == '.' || r == '-' {
			up = true
			continue
		}
		if up {
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

package report_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/clawdoctor/clawdoctor/internal/audit"
	"github.com/clawdoctor/clawdoctor/report"
)

// sarifSchema compiles the SARIF 2.1.0 JSON schema vendored in testdata/sarif (see its
// README for where it comes from).
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "sarif", "sarif-2.1.0-rtm.5.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("sarif-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sarifOf(t *testing.T, res *audit.Result, root string) (raw []byte, log map[string]any) {
	t.Helper()
	var b bytes.Buffer
	if err := report.Audit(&b, res, report.SARIF, report.AuditOptions{SARIFRoot: root}); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), log
}

// TestSARIFValidatesAgainstSchema validates real outputs (the sample, an empty run, paths
// outside the root, unreadable inputs) against the SARIF 2.1.0 schema, and checks that the
// validator does reject a broken log.
func TestSARIFValidatesAgainstSchema(t *testing.T) {
	schema := sarifSchema(t)
	outside := sample()
	outside.Findings[0].Path = "/elsewhere/state/agents/main/sessions/a b.jsonl"
	outside.Unreadable = []string{"/gone.jsonl"}
	for name, tc := range map[string]struct {
		res  *audit.Result
		root string
	}{
		"sample":       {sample(), "/repo"},
		"no root":      {sample(), ""},
		"empty":        {&audit.Result{Findings: []audit.Finding{}, Summary: audit.Summary{Files: 1}}, "/repo"},
		"outside root": {outside, "/repo"},
	} {
		t.Run(name, func(t *testing.T) {
			_, log := sarifOf(t, tc.res, tc.root)
			if err := schema.Validate(any(log)); err != nil {
				t.Errorf("SARIF output is not valid SARIF 2.1.0: %v", err)
			}
		})
	}
	_, log := sarifOf(t, sample(), "/repo")
	run := log["runs"].([]any)[0].(map[string]any)
	res := run["results"].([]any)[0].(map[string]any)
	res["level"] = "fatal" // not one of SARIF's levels
	if err := schema.Validate(any(log)); err == nil {
		t.Error("the schema accepted level \"fatal\": the validator checks nothing")
	}
}

// TestSARIFURIs: inside the root a uri is relative with uriBaseId SRCROOT, which
// originalUriBaseIds maps to the root; outside it an absolute file: uri, percent-encoded.
func TestSARIFURIs(t *testing.T) {
	res := sample()
	res.Findings[4].Path = "/elsewhere/a b.jsonl"
	for i := range res.Findings[:4] {
		res.Findings[i].Path = "/repo/" + res.Findings[i].Path
	}
	_, log := sarifOf(t, res, "/repo")
	run := log["runs"].([]any)[0].(map[string]any)
	base := run["originalUriBaseIds"].(map[string]any)["SRCROOT"].(map[string]any)["uri"]
	if base != "file:///repo/" {
		t.Errorf("originalUriBaseIds.SRCROOT = %v, want file:///repo/", base)
	}
	var got [][2]any
	for _, r := range run["results"].([]any) {
		al := r.(map[string]any)["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)["artifactLocation"].(map[string]any)
		got = append(got, [2]any{al["uri"], al["uriBaseId"]})
	}
	want := [][2]any{
		{"agents/main/sessions/a.jsonl", "SRCROOT"}, {"agents/main/sessions/a.jsonl", "SRCROOT"},
		{"agents/main/sessions/a.jsonl", "SRCROOT"}, {"agents/main/sessions/a.jsonl", "SRCROOT"},
		{"file:///elsewhere/a%20b.jsonl", nil},
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("result %d: uri %v, want %v", i, got[i], want[i])
		}
	}
}

// TestSARIFFingerprints: a finding keeps its fingerprint when lines before it move it down
// (code scanning then tracks it as the same alert), and different findings differ.
func TestSARIFFingerprints(t *testing.T) {
	fps := func(res *audit.Result) []string {
		_, log := sarifOf(t, res, "/repo")
		var out []string
		for _, r := range log["runs"].([]any)[0].(map[string]any)["results"].([]any) {
			out = append(out, r.(map[string]any)["partialFingerprints"].(map[string]any)["clawdoctor/v1"].(string))
		}
		return out
	}
	before := fps(sample())
	moved := sample()
	for i := range moved.Findings {
		if moved.Findings[i].EntryID != "" {
			moved.Findings[i].Line += 10
		}
	}
	after := fps(moved)
	seen := map[string]bool{}
	for i := range before {
		if before[i] != after[i] {
			t.Errorf("result %d: fingerprint changed when its line moved: %s → %s", i, before[i], after[i])
		}
		if seen[before[i]] {
			t.Errorf("result %d: fingerprint %s is not unique", i, before[i])
		}
		seen[before[i]] = true
	}
}

func TestSARIFRoot(t *testing.T) {
	repo := t.TempDir()
	sub := filepath.Join(repo, "testdata", "sessions")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".git"), []byte("gitdir: elsewhere\n"), 0o644); err != nil { // a worktree
		t.Fatal(err)
	}
	cwd := t.TempDir()
	if got := report.SARIFRoot([]string{sub}, cwd); got != repo {
		t.Errorf("inside a work tree: root %s, want %s", got, repo)
	}
	if got := report.SARIFRoot([]string{filepath.Join(cwd, "x.jsonl")}, cwd); got != cwd {
		t.Errorf("outside any work tree: root %s, want the current dir %s", got, cwd)
	}
}

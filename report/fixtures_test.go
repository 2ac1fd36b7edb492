package report_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/report"
)

func fixturesGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (run go test ./report -update)", path, err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs (-want +got):\n%s", path, cmp.Diff(string(want), string(got)))
	}
}

func fixturesManifest() fixtures.Manifest {
	return fixtures.Manifest{
		Generator: "clawdoctor fixtures generate", Seed: 7, Now: "2026-05-01T00:00:00Z",
		Agents:      []fixtures.AgentInfo{{ID: "main", Sessions: 6, Files: 11}, {ID: "work", Sessions: 7, Files: 12}},
		Transcripts: 12, Entries: 250, TotalBytes: 300851, Files: 23, GatewayLog: "logs/openclaw-2026-04-30.log",
		Faults: []fixtures.Fault{
			{Kind: "unpaired", Rule: "tool.unpaired-call", File: "agents/work/sessions/b.jsonl", Line: 11, EntryID: "2761d326", Note: "tool call c1 has no result"},
			{Kind: "torn", Rule: "jsonl.malformed-line", File: "agents/main/sessions/a.jsonl", Line: 33, EntryID: "cb1a1f75", Note: "last line cut off"},
			{Kind: "torn", Rule: "jsonl.malformed-line", File: "agents/main/sessions/c.jsonl", Line: 9, Note: "last line cut off"},
		},
	}
}

func TestFixturesText(t *testing.T) {
	var b bytes.Buffer
	if err := report.Fixtures(&b, "/tmp/st", fixturesManifest(), report.Text); err != nil {
		t.Fatal(err)
	}
	fixturesGolden(t, "fixtures_text.golden", b.Bytes())
}

func TestFixturesNoFaultsText(t *testing.T) {
	var b bytes.Buffer
	m := fixturesManifest()
	m.Faults, m.GatewayLog = nil, ""
	if err := report.Fixtures(&b, "out", m, report.Text); err != nil {
		t.Fatal(err)
	}
	fixturesGolden(t, "fixtures_nofaults_text.golden", b.Bytes())
}

func TestFixturesJSONRoundTrips(t *testing.T) {
	var b bytes.Buffer
	m := fixturesManifest()
	if err := report.Fixtures(&b, "/tmp/st", m, report.JSON); err != nil {
		t.Fatal(err)
	}
	var back fixtures.Manifest
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, back); diff != "" {
		t.Errorf("manifest through JSON (-want +got):\n%s", diff)
	}
}

func TestFixtureListText(t *testing.T) {
	var b bytes.Buffer
	list := []fixtures.Fixture{
		{Name: "clean.jsonl", Repair: "nothing to do"},
		{Name: "torn_final_line.jsonl", Defect: "the last line is cut off", Rules: []string{"jsonl.malformed-line"}, Repair: "drop it"},
	}
	if err := report.FixtureList(&b, list, report.Text); err != nil {
		t.Fatal(err)
	}
	fixturesGolden(t, "fixtures_list_text.golden", b.Bytes())
}

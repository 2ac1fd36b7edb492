package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/config"
)

func TestParseJSON5(t *testing.T) {
	src := `// OpenClaw config, JSON5
{
  session: {
    store: "~/oc/{agentId}/sessions.json",
    dmScope: 'main',
    maintenance: {
      mode: "warn",
      pruneAfter: 7,          // days
      maxEntries: 200,
      resetArchiveRetention: false,
      maxDiskBytes: "1gb",
    },
    writeLock: { staleMs: 60000 },
  },
  agents: { list: [ { id: "Work" }, { id: "My Agent!", default: true }, { id: "work" } ] },
  cron: { sessionRetention: "36" },
}`
	c, err := config.Parse(strings.NewReader(src), "openclaw.json")
	if err != nil {
		t.Fatal(err)
	}
	m := c.Session.Maintenance
	got := []any{c.Session.Store, c.Session.DMScope, m.Mode, m.PruneAfter, m.MaxEntries, m.ResetArchiveRetention,
		m.MaxDiskBytes, m.HighWaterBytes, c.Session.WriteLock.StaleMs, c.Cron.SessionRetention}
	want := []any{"~/oc/{agentId}/sessions.json", "main", "warn", 7.0, 200.0, false, "1gb", nil, 60000.0, "36"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fields (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]string{"work", "my-agent"}, c.AgentIDs()); diff != "" {
		t.Errorf("AgentIDs (-want +got)\n%s", diff)
	}
	if got := c.DefaultAgentID(); got != "my-agent" {
		t.Errorf("DefaultAgentID = %q", got)
	}
	if v, ok := c.Lookup("session.maintenance.mode"); !ok || v != "warn" {
		t.Errorf("Lookup = %v, %v", v, ok)
	}
	if _, ok := c.Lookup("session.nope.x"); ok {
		t.Error("Lookup of a missing path succeeded")
	}
	if got := c.StorePath("/state", "/home/u", "Work"); got != "/home/u/oc/work/sessions.json" {
		t.Errorf("StorePath = %q", got)
	}
}

func TestParseErrors(t *testing.T) {
	for _, src := range []string{`{session: }`, `[1, 2]`, `{"a": 1} x`} {
		if _, err := config.Parse(strings.NewReader(src), "bad.json"); err == nil || !strings.Contains(err.Error(), "bad.json") {
			t.Errorf("Parse(%q) = %v, want an error naming the file", src, err)
		}
	}
	c, err := config.Parse(strings.NewReader("  \n"), "empty.json")
	if err != nil || len(c.AgentIDs()) != 1 || c.DefaultAgentID() != "main" {
		t.Errorf("empty config: %v %v", c, err)
	}
}

func TestFindAndLoad(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got := config.Find("", dir, getenv); got != filepath.Join(dir, "openclaw.json") {
		t.Errorf("default = %q", got)
	}
	os.WriteFile(filepath.Join(dir, "moltbot.json"), []byte(`{session:{mainKey:"m"}}`), 0o644)
	if got := config.Find("", dir, getenv); got != filepath.Join(dir, "moltbot.json") {
		t.Errorf("legacy = %q", got)
	}
	os.WriteFile(filepath.Join(dir, "clawdbot.json"), []byte(`{}`), 0o644)
	if got := config.Find("", dir, getenv); got != filepath.Join(dir, "clawdbot.json") {
		t.Errorf("legacy order = %q", got)
	}
	env["CLAWDBOT_CONFIG_PATH"] = "/old.json"
	if got := config.Find("", dir, getenv); got != "/old.json" {
		t.Errorf("CLAWDBOT_CONFIG_PATH = %q", got)
	}
	env["OPENCLAW_CONFIG_PATH"] = "/env.json"
	if got := config.Find("", dir, getenv); got != "/env.json" {
		t.Errorf("OPENCLAW_CONFIG_PATH = %q", got)
	}
	if got := config.Find("/flag.json", dir, getenv); got != "/flag.json" {
		t.Errorf("flag = %q", got)
	}
	c, err := config.Load(filepath.Join(dir, "moltbot.json"))
	if err != nil || c.Session.MainKey != "m" || c.Path == "" {
		t.Errorf("Load = %+v, %v", c, err)
	}
	c, err = config.Load(filepath.Join(dir, "missing.json"))
	if err != nil || c.Path != "" || c.Raw != nil {
		t.Errorf("missing file: %+v, %v", c, err)
	}
}

func TestNormalizeAgentID(t *testing.T) {
	for in, want := range map[string]string{
		"": "main", "  ": "main", "Main": "main", "My Agent!": "my-agent", "ops_1": "ops_1", "-x-": "x",
		"!!!": "main", "a..b": "a-b", strings.Repeat("é", 70): "main", strings.Repeat("a", 70): strings.Repeat("a", 64),
	} {
		if got := config.NormalizeAgentID(in); got != want {
			t.Errorf("NormalizeAgentID(%q) = %q, want %q", in, got, want)
		}
	}
}

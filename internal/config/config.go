// Package config reads the OpenClaw configuration file (openclaw.json, JSON5) far enough for
// offline maintenance: session.maintenance, session.store, session.writeLock, session.mainKey,
// session.dmScope, agents.list and cron.sessionRetention, plus raw access to everything else.
// Values are kept as read (string, number, bool): their grammars belong to the callers that
// resolve them, exactly as OpenClaw resolves them (see retention.Resolve).
package config

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/titanous/json5"

	"github.com/clawdoctor/clawdoctor/internal/safefile"
	"github.com/clawdoctor/clawdoctor/internal/store"
)

// Config is a parsed openclaw.json. The zero value is an empty config (all defaults).
type Config struct {
	Path string         // file it was read from, "" when none exists
	Raw  map[string]any // the whole document as decoded JSON5

	Session Session
	Agents  []Agent // agents.list, in list order
	Cron    Cron
}

// Session is the session.* block.
type Session struct {
	Store       string // session.store (may hold {agentId} and a leading ~)
	MainKey     string // session.mainKey
	DMScope     string // session.dmScope
	Maintenance Maintenance
	WriteLock   WriteLock
}

// Maintenance holds session.maintenance values as written: a string, a float64, a bool or
// nil when absent. retention.Resolve applies OpenClaw's grammars and fallbacks.
type Maintenance struct {
	Mode                  any
	PruneAfter            any
	PruneDays             any
	MaxEntries            any
	RotateBytes           any
	ResetArchiveRetention any
	MaxDiskBytes          any
	HighWaterBytes        any
	// SQLite era (OpenClaw 2026.8+) keys.
	ArchiveDashboardAfter any
	PreserveRecent        any
}

// WriteLock is session.writeLock (§6.1); nil fields are unset.
type WriteLock struct {
	AcquireTimeoutMs any
	StaleMs          any
	MaxHoldMs        any
}

// Agent is one agents.list item.
type Agent struct {
	ID      string
	Default bool
	Raw     map[string]any
}

// Cron is the cron.* block.
type Cron struct {
	SessionRetention any // cron.sessionRetention: string, number, false or nil
}

// Find returns the config file OpenClaw would read: flag, else $OPENCLAW_CONFIG_PATH (older
// $CLAWDBOT_CONFIG_PATH), else <stateDir>/openclaw.json, else the first existing legacy name
// (clawdbot.json, moldbot.json, moltbot.json). The path need not exist.
func Find(flag, stateDir string, getenv func(string) string) string {
	if p, ok := Named(flag, getenv); ok {
		return p
	}
	def := filepath.Join(stateDir, "openclaw.json")
	if _, err := os.Stat(def); err == nil {
		return def
	}
	for _, name := range []string{"clawdbot.json", "moldbot.json", "moltbot.json"} {
		if p := filepath.Join(stateDir, name); fileExists(p) {
			return p
		}
	}
	return def
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// MaxBytes caps the config file, which is read whole (--max-config-bytes): a larger one is
// refused before it is read. OpenClaw configs are a few KB.
var MaxBytes int64 = DefaultMaxBytes

// DefaultMaxBytes is the default of MaxBytes.
const DefaultMaxBytes = 16 << 20

// MaxFlag is the flag that sets MaxBytes, for messages.
const MaxFlag = "--max-config-bytes"

// LoadError is a config that cannot be used: unreadable, not a regular file, over MaxBytes,
// not JSON5, or (when Explicit) missing. Explicit is set when --config or
// $OPENCLAW_CONFIG_PATH named the file: a command must then stop (a usage error) rather than
// run on defaults the user did not ask for.
type LoadError struct {
	Path     string
	Explicit bool
	Err      error
}

func (e *LoadError) Error() string {
	if e.Explicit && errors.Is(e.Err, os.ErrNotExist) {
		return fmt.Sprintf("config %s: no such file", e.Path)
	}
	return fmt.Sprintf("config %v", e.Err)
}

func (e *LoadError) Unwrap() error { return e.Err }

// Named returns the config path given by flag or the environment ($OPENCLAW_CONFIG_PATH, older
// $CLAWDBOT_CONFIG_PATH), and whether there was one.
func Named(flag string, getenv func(string) string) (string, bool) {
	for _, v := range []string{flag, getenv("OPENCLAW_CONFIG_PATH"), getenv("CLAWDBOT_CONFIG_PATH")} {
		if v = strings.TrimSpace(v); v != "" {
			return v, true
		}
	}
	return "", false
}

// Open finds the config as OpenClaw does (Find) and loads it. A file named by flag or the
// environment must exist and parse; any failure is a *LoadError.
func Open(flag, stateDir string, getenv func(string) string) (*Config, error) {
	_, explicit := Named(flag, getenv)
	path := Find(flag, stateDir, getenv)
	c, err := Load(path)
	var le *LoadError
	if errors.As(err, &le) {
		le.Explicit = explicit
		return nil, le
	}
	if err == nil && explicit && c.Path == "" {
		return nil, &LoadError{Path: path, Explicit: true, Err: os.ErrNotExist}
	}
	return c, err
}

// Load reads and parses the config at path. A missing file is not an error: it gives an
// empty Config (OpenClaw runs on defaults then). Other failures are a *LoadError.
func Load(path string) (*Config, error) {
	data, err := ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Config{}, nil
	}
	if err != nil {
		return nil, &LoadError{Path: path, Err: err}
	}
	c, err := parse(data, path)
	if err != nil {
		return nil, &LoadError{Path: path, Err: err}
	}
	c.Path = path
	return c, nil
}

// ReadFile reads the config file's bytes: a regular file only (a FIFO or device under its
// name is refused without blocking), within MaxBytes.
func ReadFile(path string) ([]byte, error) {
	return safefile.ReadFile(context.Background(), path, MaxBytes, MaxFlag)
}

// Parse reads one JSON5 document from r (at most MaxBytes); name is used only in messages.
func Parse(r io.Reader, name string) (*Config, error) {
	data, err := safefile.ReadAll(context.Background(), r, name, MaxBytes, MaxFlag, 0)
	if err != nil {
		return nil, err
	}
	return parse(data, name)
}

func parse(data []byte, name string) (*Config, error) {
	c := &Config{}
	if strings.TrimSpace(string(data)) == "" {
		return c, nil
	}
	var doc any
	if err := json5.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: not valid JSON5: %v", name, err)
	}
	raw, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: top level is not an object", name)
	}
	c.Raw = raw
	sess := object(raw, "session")
	c.Session.Store, _ = sess["store"].(string)
	c.Session.MainKey, _ = sess["mainKey"].(string)
	c.Session.DMScope, _ = sess["dmScope"].(string)
	m := object(sess, "maintenance")
	c.Session.Maintenance = Maintenance{
		Mode: m["mode"], PruneAfter: m["pruneAfter"], PruneDays: m["pruneDays"],
		MaxEntries: m["maxEntries"], RotateBytes: m["rotateBytes"],
		ResetArchiveRetention: m["resetArchiveRetention"],
		MaxDiskBytes:          m["maxDiskBytes"], HighWaterBytes: m["highWaterBytes"],
		ArchiveDashboardAfter: m["archiveDashboardAfter"], PreserveRecent: m["preserveRecent"],
	}
	wl := object(sess, "writeLock")
	c.Session.WriteLock = WriteLock{AcquireTimeoutMs: wl["acquireTimeoutMs"], StaleMs: wl["staleMs"], MaxHoldMs: wl["maxHoldMs"]}
	c.Cron.SessionRetention = object(raw, "cron")["sessionRetention"]
	if list, ok := object(raw, "agents")["list"].([]any); ok {
		for _, it := range list {
			a, ok := it.(map[string]any)
			if !ok {
				continue
			}
			id, _ := a["id"].(string)
			def, _ := a["default"].(bool)
			c.Agents = append(c.Agents, Agent{ID: id, Default: def, Raw: a})
		}
	}
	return c, nil
}

func object(m map[string]any, key string) map[string]any {
	if m == nil {
		return nil
	}
	o, _ := m[key].(map[string]any)
	return o
}

// Lookup returns the raw value at a dotted path ("session.maintenance.mode") and whether it
// exists.
func (c *Config) Lookup(path string) (any, bool) {
	var cur any = c.Raw
	for _, part := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// AgentIDs returns the configured agent ids, normalized and de-duplicated in list order, or
// ["main"] when none are configured (store.md §1.2).
func (c *Config) AgentIDs() []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range c.Agents {
		id := NormalizeAgentID(a.ID)
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		return []string{"main"}
	}
	return out
}

// DefaultAgentID is the first agent with default: true, else the first agent, else "main".
func (c *Config) DefaultAgentID() string {
	for _, a := range c.Agents {
		if a.Default {
			return NormalizeAgentID(a.ID)
		}
	}
	if len(c.Agents) > 0 {
		return NormalizeAgentID(c.Agents[0].ID)
	}
	return "main"
}

// NormalizeAgentID is OpenClaw's normalizeAgentId (store.md §1.2), as store implements it.
func NormalizeAgentID(id string) string { return store.NormalizeAgentID(id) }

// StorePath resolves the sessions.json of agentID: session.store with {agentId} replaced and
// ~ expanded (relative to cwd otherwise), else <stateDir>/agents/<id>/sessions/sessions.json.
func (c *Config) StorePath(stateDir, home, agentID string) string {
	id := NormalizeAgentID(agentID)
	s := c.Session.Store
	if strings.TrimSpace(s) == "" {
		return filepath.Join(stateDir, "agents", id, "sessions", "sessions.json")
	}
	s = strings.ReplaceAll(s, "{agentId}", id)
	if s == "~" {
		s = home
	} else if strings.HasPrefix(s, "~/") {
		s = filepath.Join(home, s[2:])
	}
	if abs, err := filepath.Abs(s); err == nil {
		return abs
	}
	return s
}

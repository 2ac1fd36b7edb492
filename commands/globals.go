package commands

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/config"
	"github.com/clawdoctor/clawdoctor/internal/memguard"
	"github.com/clawdoctor/clawdoctor/internal/openclaw"
	"github.com/clawdoctor/clawdoctor/internal/store"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// Globals are the flags every command understands.
type Globals struct {
	StateDir   string    // resolved state dir (see ResolveStateDir)
	Agent      string    // --agent, "" for the default agent
	AllAgents  bool      // --all-agents
	JSON       bool      // --json
	Now        time.Time // --now, or the clock
	NoProgress bool      // --no-progress
	// OpenClaw is the release whose behaviour to follow: --openclaw-version, else the one the
	// state dir's config says last wrote it, else openclaw.Default.
	OpenClaw openclaw.Selection
}

func globalFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "state-dir", Usage: "OpenClaw state dir (default $OPENCLAW_STATE_DIR, else ~/.openclaw, else ~/.clawdbot or ~/.moltbot)", TakesFile: true},
		&cli.StringFlag{Name: "agent", Usage: "work on this agent id only"},
		&cli.BoolFlag{Name: "all-agents", Usage: "work on every agent of the state dir"},
		&cli.BoolFlag{Name: "json", Usage: "print machine-readable JSON on stdout"},
		&cli.StringFlag{Name: "now", Usage: "fixed clock for reproducible runs (RFC3339, e.g. 2026-05-05T12:00:00Z)"},
		&cli.BoolFlag{Name: "no-progress", Usage: "never show a progress bar"},
		&cli.StringFlag{Name: "max-store-bytes", Usage: "largest sessions.json read (it is read whole; default 256MiB)"},
		&cli.StringFlag{Name: "max-config-bytes", Usage: "largest openclaw.json read (default 16MiB)"},
		&cli.StringFlag{Name: "max-memory", Usage: "most heap a run may hold before it stops with exit 4 (default 60% of this machine's memory; 0 for no cap)"},
		&cli.StringFlag{Name: "max-inflate-ratio", Usage: "most a .gz or .zst file may inflate to, in times its size on disk (at least 1GiB; default 1000, 0 for no cap)"},
		&cli.StringFlag{Name: "openclaw-version", Usage: "OpenClaw release to follow (default: meta.lastTouchedVersion of the state dir's openclaw.json, else " + openclaw.DefaultVersion + ")"},
	}
}

// flagSetIn reports the nearest context in c's lineage where name was given on the command
// line. Common flags are defined on the app and on every command, and urfave/cli v2 would
// otherwise read the command's unset copy and ignore "clawdoctor --json stats".
func flagSetIn(c *cli.Context, name string) *cli.Context {
	for _, ctx := range c.Lineage() {
		if ctx.Command == nil && ctx.App == nil {
			continue
		}
		if slices.Contains(ctx.LocalFlagNames(), name) {
			return ctx
		}
	}
	return nil
}

func globalString(c *cli.Context, name string) string {
	if ctx := flagSetIn(c, name); ctx != nil {
		return ctx.String(name)
	}
	return ""
}

func globalBool(c *cli.Context, name string) bool {
	if ctx := flagSetIn(c, name); ctx != nil {
		return ctx.Bool(name)
	}
	return false
}

// globals reads the common flags of c.
func globals(c *cli.Context) (Globals, error) {
	g := Globals{
		Agent:      globalString(c, "agent"),
		AllAgents:  globalBool(c, "all-agents"),
		JSON:       globalBool(c, "json"),
		NoProgress: globalBool(c, "no-progress"),
		Now:        now(),
	}
	if g.Agent != "" && g.AllAgents {
		return g, &usageError{msg: "--agent and --all-agents cannot be used together",
			hint: "clawdoctor stats --all-agents"}
	}
	if s := globalString(c, "now"); s != "" {
		t, err := parseNow(s)
		if err != nil {
			return g, &usageError{msg: fmt.Sprintf("--now %q: %v", s, err),
				hint: "--now 2026-05-05T12:00:00Z"}
		}
		g.Now = t
	}
	g.StateDir = ResolveStateDir(globalString(c, "state-dir"), os.Getenv, os.UserHomeDir, exists)
	// The caps of inputs read whole, for this process (docs/safety.md).
	store.MaxStoreBytes, config.MaxBytes = store.DefaultMaxStoreBytes, config.DefaultMaxBytes
	for _, cp := range []struct {
		flag string
		dst  *int64
	}{{"max-store-bytes", &store.MaxStoreBytes}, {"max-config-bytes", &config.MaxBytes}} {
		if v := globalString(c, cp.flag); v != "" {
			n, err := fixtures.ParseSize(v)
			if err != nil || n <= 0 {
				return g, &usageError{msg: fmt.Sprintf("--%s %q: not a positive size", cp.flag, v), hint: "--" + cp.flag + " 1GiB"}
			}
			*cp.dst = n
		}
	}
	memguard.SetLimit(memguard.DefaultLimit())
	if v := globalString(c, "max-memory"); v != "" {
		n := int64(0)
		if v != "0" {
			var err error
			if n, err = fixtures.ParseSize(v); err != nil || n <= 0 {
				return g, &usageError{msg: fmt.Sprintf("--max-memory %q: not a size", v), hint: "--max-memory 2GiB"}
			}
		}
		memguard.SetLimit(n)
	}
	jsonl.MaxInflateRatio = 1000
	if v := globalString(c, "max-inflate-ratio"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return g, &usageError{msg: fmt.Sprintf("--max-inflate-ratio %q: not a whole number of 0 or more", v), hint: "--max-inflate-ratio 5000"}
		}
		jsonl.MaxInflateRatio = n
	}
	sel, err := openclaw.Select(globalString(c, "openclaw-version"), g.StateDir, os.Getenv)
	if err != nil {
		return g, &usageError{msg: "--openclaw-version: " + err.Error(), hint: "clawdoctor --openclaw-version " + openclaw.DefaultVersion + " repair --dry-run"}
	}
	g.OpenClaw = sel
	return g, nil
}

func parseNow(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("not an RFC3339 time")
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// ResolveStateDir picks the state dir as OpenClaw's resolveStateDir does (store.md §1.1):
// the flag, then $OPENCLAW_STATE_DIR (or the older $CLAWDBOT_STATE_DIR), then <home>/.openclaw
// if it exists, then the first existing legacy dir, then <home>/.openclaw. <home> is
// resolveRequiredHomeDir's (2026.7.35): $OPENCLAW_HOME (a leading ~ is the OS home), else
// $HOME, else $USERPROFILE (Windows; $HOME first, as Git Bash sets it), else the OS's home dir,
// else the working dir; "undefined" and "null" count as unset. A leading "~" followed by "/"
// or "\" in a path is that home, on every OS, as OpenClaw's /^~(?=$|[\\/])/ has it.
func ResolveStateDir(flag string, getenv func(string) string, home func() (string, error), exists func(string) bool) string {
	h := openClawHome(getenv, home)
	expand := func(p string) string {
		if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
			p = h + p[1:]
		}
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
		return p
	}
	for _, v := range []string{flag, getenv("OPENCLAW_STATE_DIR"), getenv("CLAWDBOT_STATE_DIR")} {
		if v = strings.TrimSpace(v); v != "" {
			return expand(v)
		}
	}
	def := filepath.Join(h, ".openclaw")
	if exists(def) {
		return def
	}
	for _, legacy := range []string{".clawdbot", ".moldbot", ".moltbot"} {
		if p := filepath.Join(h, legacy); exists(p) {
			return p
		}
	}
	return def
}

// openClawHome is OpenClaw's resolveRequiredHomeDir (see ResolveStateDir).
func openClawHome(getenv func(string) string, home func() (string, error)) string {
	norm := func(v string) string {
		if v = strings.TrimSpace(v); v == "undefined" || v == "null" {
			return ""
		}
		return v
	}
	osHome := func() string {
		for _, k := range []string{"HOME", "USERPROFILE"} {
			if v := norm(getenv(k)); v != "" {
				return v
			}
		}
		h, _ := home()
		return norm(h)
	}
	h := norm(getenv("OPENCLAW_HOME"))
	if h == "~" || strings.HasPrefix(h, "~/") || strings.HasPrefix(h, `~\`) {
		if o := osHome(); o != "" {
			h = o + h[1:]
		} else {
			h = ""
		}
	}
	if h == "" {
		h = osHome()
	}
	if h == "" {
		h = "."
	}
	if abs, err := filepath.Abs(h); err == nil {
		return abs
	}
	return h
}

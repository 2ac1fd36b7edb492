package commands

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/clawdoctor/clawdoctor/fixtures"
)

var update = flag.Bool("update", false, "rewrite golden files and testscript expectations")

// scriptNow is the clock of every script run.
var scriptNow = time.Date(2026, 5, 5, 12, 0, 0, 0, time.UTC)

func TestMain(m *testing.M) {
	testscript.Main(afterRun{m}, map[string]func(){
		"clawdoctor": func() {
			now = func() time.Time { return scriptNow }
			os.Exit(Run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr))
		},
		// clawdoctor-rc runs clawdoctor, prints its exit status as "[rc=N]" on stderr and exits 0,
		// so scripts can assert exact exit codes (testscript only knows zero or not).
		"clawdoctor-rc": func() {
			now = func() time.Time { return scriptNow }
			code := Run(context.Background(), append([]string{"clawdoctor"}, os.Args[1:]...), os.Stdin, os.Stdout, os.Stderr)
			fmt.Fprintf(os.Stderr, "[rc=%d]\n", code)
			os.Exit(0)
		},
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("NO_COLOR", "1")
			env.Setenv("OPENCLAW_STATE_DIR", "")
			env.Setenv("OPENCLAW_CONFIG_PATH", "")
			// Every script gets its own copy of the shipped sample state dir: commands must
			// never write into fixtures/demo itself.
			return os.CopyFS(filepath.Join(env.WorkDir, "demo"), os.DirFS(filepath.Join("..", "fixtures", "demo")))
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// livelock FILE writes a transcript lock held by a live process (the test itself).
			"livelock": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: livelock FILE")
				}
				payload := fmt.Sprintf("{\n  \"pid\": %d,\n  \"createdAt\": %q\n}", os.Getpid(), scriptNow.Add(-time.Minute).Format("2006-01-02T15:04:05.000Z"))
				ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(payload), 0o644))
			},
			// is-symlink PATH succeeds when PATH is a symbolic link.
			"is-symlink": func(ts *testscript.TestScript, neg bool, args []string) {
				st, err := os.Lstat(ts.MkAbs(args[0]))
				if ok := err == nil && st.Mode()&os.ModeSymlink != 0; ok == neg {
					ts.Fatalf("%s: symlink %v, want %v (%v)", args[0], ok, !neg, err)
				}
			},
			// realstate NAME DIR extracts a real state dir of fixtures/sqlite (made by real
			// OpenClaw releases, see fixtures/sqlite/make.sh).
			"realstate": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: realstate NAME DIR")
				}
				ts.Check(fixtures.WriteRealState(args[0], ts.MkAbs(args[1])))
			},
			// agentdb NAME AGENTDIR writes the real agent database of state NAME into
			// AGENTDIR (e.g. st/agents/main/agent), making that agent SQLite era.
			"agentdb": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: agentdb NAME AGENTDIR")
				}
				ts.Check(fixtures.WriteAgentDB(args[0], ts.MkAbs(args[1])))
			},
			// age DAYS FILE... sets the files' mtime to DAYS days before the script clock.
			"age": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) < 2 {
					ts.Fatalf("usage: age DAYS FILE...")
				}
				days, err := strconv.Atoi(args[0])
				ts.Check(err)
				t := scriptNow.Add(-time.Duration(days) * 24 * time.Hour)
				for _, f := range args[1:] {
					ts.Check(os.Chtimes(ts.MkAbs(f), t, t))
				}
			},
		},
	})
}

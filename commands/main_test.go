package commands

import (
	"context"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite golden files and testscript expectations")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"clawdoctor": func() {
		now = func() time.Time { return time.Date(2026, 5, 5, 12, 0, 0, 0, time.UTC) }
		os.Exit(Run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr))
	}})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("NO_COLOR", "1")
			env.Setenv("OPENCLAW_STATE_DIR", "")
			return nil
		},
	})
}

package commands

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// run runs the CLI in process and returns the exit code, stdout and stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), append([]string{"clawdoctor"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"late flag", []string{"repair", "f.jsonl", "--dry-run"}, exitUsage, "given after the file arguments"},
		{"late short flag", []string{"audit", "x", "-n"}, exitUsage, "flag -n given after"},
		{"unknown flag", []string{"stats", "--bogus"}, exitUsage, "flag provided but not defined"},
		{"unknown global flag", []string{"--bogus", "stats"}, exitUsage, "flag provided but not defined"},
		{"agent conflict", []string{"stats", "--agent", "a", "--all-agents"}, exitUsage, "cannot be used together"},
		{"bad now", []string{"--now", "yesterday", "stats"}, exitUsage, "--now"},
		{"unknown command (urfave/cli says 3)", []string{"bogus"}, exitUsage, "No help topic"},
		{"help", []string{"--help"}, exitClean, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if !strings.Contains(stderr, tc.err) {
				t.Errorf("stderr %q does not contain %q", stderr, tc.err)
			}
		})
	}
}

func TestResolveStateDir(t *testing.T) {
	home := func() (string, error) { return "/home/u", nil }
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	has := func(paths ...string) func(string) bool {
		return func(p string) bool {
			for _, x := range paths {
				if x == p {
					return true
				}
			}
			return false
		}
	}
	for _, tc := range []struct {
		name, flag string
		env        map[string]string
		exists     []string
		want       string
	}{
		{"flag wins", "/x", map[string]string{"OPENCLAW_STATE_DIR": "/y"}, nil, "/x"},
		{"env", "", map[string]string{"OPENCLAW_STATE_DIR": "~/oc-test"}, nil, "/home/u/oc-test"},
		{"older env", "", map[string]string{"CLAWDBOT_STATE_DIR": "/c"}, nil, "/c"},
		{"openclaw exists", "", nil, []string{"/home/u/.openclaw", "/home/u/.clawdbot"}, "/home/u/.openclaw"},
		{"legacy clawdbot", "", nil, []string{"/home/u/.clawdbot"}, "/home/u/.clawdbot"},
		{"legacy moltbot", "", nil, []string{"/home/u/.moltbot"}, "/home/u/.moltbot"},
		{"nothing exists", "", nil, nil, "/home/u/.openclaw"},
		{"OPENCLAW_HOME", "", map[string]string{"OPENCLAW_HOME": "/h2"}, nil, "/h2/.openclaw"},
		// issue 33: the home as OpenClaw resolves it on each OS
		{"HOME before the OS home", "", map[string]string{"HOME": "/gitbash/u"}, nil, "/gitbash/u/.openclaw"},
		{"USERPROFILE without HOME (Windows)", "", map[string]string{"USERPROFILE": "/Users/win"}, nil, "/Users/win/.openclaw"},
		{"HOME before USERPROFILE", "", map[string]string{"HOME": "/h", "USERPROFILE": "/p"}, nil, "/h/.openclaw"},
		{"HOME undefined", "", map[string]string{"HOME": "undefined", "USERPROFILE": "/p"}, nil, "/p/.openclaw"},
		{"OPENCLAW_HOME with ~", "", map[string]string{"OPENCLAW_HOME": "~/alt", "HOME": "/h"}, nil, "/h/alt/.openclaw"},
		{"OPENCLAW_HOME null", "", map[string]string{"OPENCLAW_HOME": "null"}, nil, "/home/u/.openclaw"},
		{"~ in the state dir", "", map[string]string{"OPENCLAW_STATE_DIR": "~", "HOME": "/h"}, nil, "/h"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ResolveStateDir(tc.flag, env(tc.env), home, has(tc.exists...))
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

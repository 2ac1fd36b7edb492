//go:build unix

package commands

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/fixtures"
)

// readmeExitCodes reads the README's exit table: code → meaning.
func readmeExitCodes(t *testing.T) map[int]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- exit:begin -->\n", "<!-- exit:end -->"
	s := string(b)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatal("README has no exit:begin/exit:end table")
	}
	out := map[int]string{}
	for _, m := range regexp.MustCompile(`(?m)^\| (\d+) \| (.+) \|$`).FindAllStringSubmatch(s[i:j], -1) {
		n, _ := strconv.Atoi(m[1])
		out[n] = m[2]
	}
	return out
}

// issue 10, scope 10: every command against every failure kind, with the exit code the
// README's table gives that kind. The table itself must list exactly the codes the commands
// use, and each kind's words must be in its row.
func TestExitCodeTable(t *testing.T) {
	codes := readmeExitCodes(t)
	for code, word := range map[int]string{exitClean: "clean", exitFindings: "findings", exitUsage: "usage",
		exitPartial: "partial", exitIO: "I/O", exitSignal: "interrupted"} {
		if !strings.Contains(codes[code], word) {
			t.Errorf("README exit table: code %d is %q, want it to say %q", code, codes[code], word)
		}
	}
	if len(codes) != 6 {
		t.Errorf("README exit table has %d codes, the commands use 6", len(codes))
	}
	// Each kind names the README words that document it.
	kinds := []struct {
		name, doc string
		code      int
		setup     func(t *testing.T, st string) // makes the failure in state dir st
		nobody    bool                          // run as an unprivileged user (permission kinds)
	}{
		{"clean", "clean", exitClean, nil, false},
		{"findings", "findings", exitFindings, func(t *testing.T, st string) {
			appendTo(t, filepath.Join(st, tr), `{"type":"mess`+"\n")
		}, false},
		{"unknown flag", "bad flag", exitUsage, nil, false},
		{"missing --config", "--config", exitUsage, nil, false},
		{"$OPENCLAW_CONFIG_PATH not JSON5", "OPENCLAW_CONFIG_PATH", exitUsage, func(t *testing.T, st string) {
			os.WriteFile(filepath.Join(st, "bad.json"), []byte("{not json5"), 0o644)
		}, false},
		{"transcript is a FIFO", "FIFO", exitPartial, func(t *testing.T, st string) {
			os.Remove(filepath.Join(st, tr))
			if err := syscall.Mkfifo(filepath.Join(st, tr), 0o644); err != nil {
				t.Skip(err)
			}
		}, false},
		{"transcript is a directory", "directory", exitPartial, func(t *testing.T, st string) {
			os.Remove(filepath.Join(st, tr))
			os.Mkdir(filepath.Join(st, tr), 0o755)
		}, false},
		{"transcript without read permission", "no permission", exitPartial, func(t *testing.T, st string) {
			os.Chmod(filepath.Join(st, tr), 0)
		}, true},
		{"sessions dir without read permission", "no permission", exitPartial, func(t *testing.T, st string) {
			os.Chmod(filepath.Join(st, "agents", "main", "sessions"), 0o311)
		}, true},
		{"agents dir without permission", "no permission", exitPartial, func(t *testing.T, st string) {
			os.Chmod(filepath.Join(st, "agents"), 0)
		}, true},
		{"sessions.json is a directory", "directory", exitPartial, func(t *testing.T, st string) {
			p := filepath.Join(st, "agents", "main", "sessions", "sessions.json")
			os.Remove(p)
			os.Mkdir(p, 0o755)
		}, false},
		{"sessions.json over the cap", "size cap", exitPartial, func(t *testing.T, st string) {
			appendTo(t, filepath.Join(st, "agents", "main", "sessions", "sessions.json"), strings.Repeat(" ", 2<<10))
		}, false},
		{"FIFO lock", "unusable lock", exitPartial, func(t *testing.T, st string) {
			if err := syscall.Mkfifo(filepath.Join(st, tr+".lock"), 0o644); err != nil {
				t.Skip(err)
			}
		}, false},
		{"directory lock", "unusable lock", exitPartial, func(t *testing.T, st string) {
			os.Mkdir(filepath.Join(st, tr+".lock"), 0o755)
		}, false},
		{"live lock", "live", exitPartial, func(t *testing.T, st string) {
			work(t, st)
			os.WriteFile(filepath.Join(st, tr+".lock"), []byte(fmt.Sprintf(`{"pid":1,"createdAt":%q}`, time.Now().UTC().Format(time.RFC3339Nano))), 0o644)
		}, false},
		{"SQLite era", "SQLite era", exitPartial, func(t *testing.T, st string) {
			work(t, st)
			if err := fixtures.WriteAgentDB("sqlite-2026.9.6", filepath.Join(st, "agents", "main", "agent")); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"sessions dir symlinked out of the state dir", "symlinked out", exitPartial, func(t *testing.T, st string) {
			work(t, st)
			s := filepath.Join(st, "agents", "main", "sessions")
			out := filepath.Join(filepath.Dir(st), "elsewhere")
			os.Rename(s, out)
			os.Symlink(out, s)
		}, false},
		{"a named file that does not exist", "does not exist", exitIO, nil, false},
		{"a write that fails", "write that failed", exitIO, func(t *testing.T, st string) {
			appendTo(t, filepath.Join(st, tr), `{"type":"mess`+"\n")
		}, false},
	}
	type cmd struct {
		name string
		args func(st string) []string
	}
	file := func(st string) string { return filepath.Join(st, tr) }
	commands := []cmd{
		{"validate", func(st string) []string { return []string{"validate", file(st)} }},
		{"audit FILE", func(st string) []string { return []string{"audit", "--fail-on", "warning", file(st)} }},
		{"audit STATE", func(st string) []string { return []string{"--state-dir", st, "audit", "--fail-on", "warning"} }},
		{"stats", func(st string) []string { return []string{"--state-dir", st, "stats"} }},
		{"repair", func(st string) []string { return []string{"--state-dir", st, "repair"} }},
		{"repair -n", func(st string) []string { return []string{"--state-dir", st, "repair", "-n"} }},
		{"cleanup", func(st string) []string { return []string{"--state-dir", st, "cleanup"} }},
		{"cleanup --enforce", func(st string) []string { return []string{"--state-dir", st, "cleanup", "--enforce"} }},
		{"doctor", func(st string) []string { return []string{"--state-dir", st, "doctor"} }},
		{"doctor --fix", func(st string) []string { return []string{"--state-dir", st, "doctor", "--fix", "--yes"} }},
		{"replay", func(st string) []string {
			return []string{"replay", "--provider", "anthropic", "--model", "claude-sonnet-4-5", file(st)}
		}},
		{"view", func(st string) []string { return []string{"--state-dir", st, "view", "--out-dir", st + "-view", st} }},
	}
	// want is the code of command c for kind k; -1 when the kind does not apply to c (it does
	// not read or write what the kind breaks).
	in := func(c string, cs ...string) bool {
		for _, x := range cs {
			if x == c {
				return true
			}
		}
		return false
	}
	want := func(c, k string, code int) int {
		applies := true
		if c == "view" { // it reads what the others read, and writes pages outside the state dir
			switch k {
			case "clean", "unknown flag", "transcript is a FIFO", "transcript is a directory", "transcript without read permission",
				"sessions dir without read permission", "agents dir without permission", "sessions.json is a directory", "sessions.json over the cap":
				return code
			case "findings":
				return exitClean // the findings are on the pages
			}
			return -1
		}
		switch k {
		case "findings":
			applies = !in(c, "stats", "cleanup", "cleanup --enforce", "replay") // not theirs to find
		case "missing --config", "$OPENCLAW_CONFIG_PATH not JSON5":
			applies = in(c, "stats", "cleanup", "cleanup --enforce", "doctor", "doctor --fix")
		case "transcript is a FIFO", "transcript is a directory", "transcript without read permission":
			applies = !in(c, "stats", "cleanup", "cleanup --enforce")
		case "sessions dir without read permission", "agents dir without permission", "sessions.json is a directory", "sessions.json over the cap":
			applies = !in(c, "validate", "audit FILE", "replay")
		case "FIFO lock", "directory lock":
			applies = !in(c, "validate", "audit FILE", "replay", "stats", "cleanup")
		case "live lock", "sessions dir symlinked out of the state dir":
			applies = in(c, "repair", "cleanup --enforce", "doctor --fix")
		case "SQLite era": // doctor proposes no fix for a SQLite-era agent: nothing to refuse
			applies = in(c, "repair", "cleanup --enforce")
		case "a named file that does not exist":
			applies = in(c, "validate", "audit FILE", "replay")
		case "a write that fails":
			applies = in(c, "repair")
		}
		if !applies {
			return -1
		}
		return code
	}
	for _, k := range kinds {
		if !strings.Contains(codes[k.code], k.doc) {
			t.Errorf("README exit table: code %d (%q) does not document %q (%s)", k.code, codes[k.code], k.doc, k.name)
		}
		for _, c := range commands {
			w := want(c.name, k.name, k.code)
			if w < 0 {
				continue
			}
			t.Run(k.name+"/"+c.name, func(t *testing.T) {
				st := exitState(t)
				if k.setup != nil {
					k.setup(t, st)
				}
				if c.name == "cleanup --enforce" && (k.name == "FIFO lock" || k.name == "directory lock") {
					work(t, st) // cleanup reads locks only when it has something to write
				}
				args := c.args(st)
				var env []string
				switch k.name {
				case "unknown flag":
					args = insertFlag(args, c.name, "--no-such-flag")
				case "missing --config":
					args = insertFlag(args, c.name, "--config", filepath.Join(st, "nope.json"))
				case "$OPENCLAW_CONFIG_PATH not JSON5":
					env = append(env, "OPENCLAW_CONFIG_PATH="+filepath.Join(st, "bad.json"))
				case "a named file that does not exist":
					os.Remove(filepath.Join(st, tr))
				case "a write that fails":
					args = insertFlag(args, c.name, "--backup-dir", "/proc/clawdoctor-cannot-write-here")
				case "live lock":
					if in(c.name, "repair", "doctor --fix") { // waited for, then refused: not the default 10 s here
						args = insertFlag(args, c.name, "--lock-wait", "200ms")
					}
				}
				got, out := runBin(t, args, env, k.nobody)
				if got != w {
					t.Errorf("%s: exit %d, want %d\n%s", strings.Join(args, " "), got, w, out)
				}
			})
		}
	}
}

const tr = "agents/main/sessions/s1.jsonl"

// exitState makes a healthy state dir: one agent, one row, one clean transcript, all
// readable by any user (the permission kinds run as nobody).
func exitState(t *testing.T) string {
	t.Helper()
	base, err := os.MkdirTemp("", "clawdoctor-exit-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.Walk(base, func(p string, _ os.FileInfo, _ error) error { os.Chmod(p, 0o755); return nil })
		os.RemoveAll(base)
	})
	st := filepath.Join(base, "state")
	sessions := filepath.Join(st, "agents", "main", "sessions")
	if err := os.MkdirAll(sessions, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{base, st, filepath.Join(st, "agents"), filepath.Join(st, "agents", "main"), sessions} {
		os.Chmod(d, 0o777)
	}
	now := time.Now().UnixMilli()
	os.WriteFile(filepath.Join(sessions, "sessions.json"), []byte(fmt.Sprintf(`{"agent:main:main":{"sessionId":"s1","updatedAt":%d,"sessionStartedAt":%d}}`, now, now)), 0o666)
	os.WriteFile(filepath.Join(st, tr), []byte(`{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}`+"\n"+
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}`+"\n"), 0o666)
	return st
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(s)
	f.Close()
}

// insertFlag puts a command flag right after the command name (flags must precede files).
func insertFlag(args []string, command string, flag ...string) []string {
	name := strings.Fields(command)[0]
	for i, a := range args {
		if a == name {
			out := append([]string{}, args[:i+1]...)
			out = append(out, flag...)
			return append(out, args[i+1:]...)
		}
	}
	return args
}

// work gives every writer something to do: a torn line (repair), a stale row (cleanup), a
// row without sessionStartedAt (doctor --fix), so a refusal shows in the exit code.
func work(t *testing.T, st string) {
	t.Helper()
	appendTo(t, filepath.Join(st, tr), `{"type":"mess`+"\n")
	os.WriteFile(filepath.Join(st, "agents", "main", "sessions", "sessions.json"), []byte(fmt.Sprintf(
		`{"agent:main:main":{"sessionId":"s1","updatedAt":%d},"agent:main:direct:old":{"sessionId":"old","updatedAt":1000}}`, time.Now().UnixMilli())), 0o666)
}

// runBin runs the built binary, as uid/gid 65534 when nobody is set and the test is root,
// with the sessions.json cap lowered so the size-cap kind needs only a small file.
func runBin(t *testing.T, args, env []string, nobody bool) (int, string) {
	t.Helper()
	bin := clawdoctorBin(t)
	cmd := exec.Command(bin, append([]string{"--max-store-bytes", "1KiB", "--no-progress"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	if nobody && os.Getuid() == 0 {
		if dir := unsearchable(filepath.Dir(bin)); dir != "" {
			t.Fatalf("%s is not searchable by other users, and this case runs the binary built under $TMPDIR as nobody: give $TMPDIR mode 0755 or more", dir)
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// unsearchable returns the first dir from dir up to the root that other users cannot search
// (no o+x), or "". A private $TMPDIR (mktemp -d makes 0700) made every nobody case fail with a
// bare "permission denied" from fork/exec.
func unsearchable(dir string) string {
	for {
		if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o001 == 0 {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

//go:build conformance

package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var updateOwner = flag.Bool("update-owner-argv", false, "rewrite internal/store/testdata/oracle/owner_argv.jsonl from the live releases")

// ownerArgvReleases are the releases whose lock-holder reading is recorded: the JSONL-era
// default and the newest JSONL-era release. (The SQLite era keeps sessions in its database:
// no transcript lock of its is judged by its holder's argv.)
var ownerArgvReleases = []string{"2026.6.11", "2026.7.35"}

type ownerReq struct {
	Kind string `json:"kind"`
	In   any    `json:"in"`
}

// ownerArgvCases are the inputs of owner_argv.mjs: hand-picked command lines of OpenClaw,
// clawdoctor's lock holders and other processes on Linux, macOS and Windows, and seeded
// random ones built from the tokens the rules look at (case, separators, white space, quotes).
func ownerArgvCases() []ownerReq {
	var out []ownerReq
	for _, a := range [][]string{
		{"openclaw", "gateway"}, {"/usr/bin/openclaw-gateway"}, {"openclaw-gateway"}, {"node", "/x/openclaw.mjs", "agent"},
		{"node", "/x/dist/entry.js", "gateway"}, {"node", "/x/dist/entry.js", "serve"}, {"node", "server.js", "gateway"},
		{"python3", "-m", "http.server"}, {"/usr/local/bin/openclaw-helper"}, {"clawdoctor", "repair"}, {}, {"", "  "},
		{`C:\Program Files\nodejs\node.exe`, `C:\Users\u\AppData\Roaming\npm\node_modules\openclaw\dist\index.js`, "gateway"},
		{"OpenClaw.EXE"}, {`C:\tools\OPENCLAW.cmd`, "gateway"}, {"openclaw.bat"}, {" openclaw "}, {"", "openclaw"},
		{"NODE", "X/DIST/INDEX.JS", "GATEWAY"}, {"node", "dist/index.js", "agentx"}, {"bun", "src/entry.ts", "agent"},
		{"deno", "scripts/run-node.mjs", "gateway", "--port", "1"}, {"\u00a0openclaw\u00a0"}, {"openclaw\u3000"},
		{"/x/openclaw.mjs.bak"}, {"x/openclaw-gateway.exe"}, {`x\openclaw-gateway.EXE`}, {"openclaw-gateway.exe"},
		{"/bin/sh", "-c", "echo ready; read x", "clawdoctor-lock-holder", "openclaw"},
		{"/bin/sh", "-c", "echo", "ready;", "read", "x", "clawdoctor-lock-holder", "openclaw"},
		{"cmd.exe", "/d", "/q", "/c", "echo", "ready&", "set", "/p", "x=&", "rem", "clawdoctor-lock-holder", "openclaw"},
	} {
		out = append(out, ownerReq{"owner", a})
	}
	for _, s := range []string{
		"cmd.exe /d /q /c echo ready& set /p x=& rem clawdoctor-lock-holder openclaw",
		`"C:\Program Files\nodejs\node.exe" "C:\Users\u\AppData\Roaming\npm\node_modules\openclaw\openclaw.mjs" gateway --port 18789`,
		`a\"b "c d" e^!f %%g`, `"unterminated quote`, "   ", "a\tb\u00a0c\u3000d", `x""y "" z`, `\\server\share\openclaw.exe gateway`,
		`"a\"b" c\\"d e"`, "",
	} {
		out = append(out, ownerReq{"windows", s})
	}
	for _, s := range []string{
		"/bin/sh -c echo ready; read x clawdoctor-lock-holder openclaw\n", "  node /Users/u/.npm/openclaw/dist/index.js gateway\n",
		"", "\t\n", "/Applications/OpenClaw.app/Contents/MacOS/OpenClaw  gateway", "a\u00a0b",
	} {
		out = append(out, ownerReq{"ps", s})
	}
	rng := rand.New(rand.NewSource(31))
	tokens := []string{"openclaw", "OpenClaw", "openclaw.mjs", "openclaw-gateway", "openclaw.exe", "OPENCLAW.CMD", "gateway", "Gateway", "agent",
		"node", "node.exe", "/usr/bin/", `C:\x\`, "dist/index.js", `dist\entry.js`, "src/index.ts", "scripts/run-node.mjs", "x", "-", "/",
		" ", "\t", "\u00a0", "\"", `\"`, "^!", "%%", "&"}
	pick := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(tokens[rng.Intn(len(tokens))])
		}
		return b.String()
	}
	for range 200 {
		a := []string{}
		for range rng.Intn(5) {
			a = append(a, pick(1+rng.Intn(3)))
		}
		out = append(out, ownerReq{"owner", a})
	}
	for range 150 {
		out = append(out, ownerReq{"windows", pick(1 + rng.Intn(12))})
	}
	for range 50 {
		out = append(out, ownerReq{"ps", pick(1 + rng.Intn(8))})
	}
	return out
}

// TestLiveOwnerArgv runs owner_argv.mjs on every case in each release and holds the answers
// against the recorded golden store.TestOwnerArgvOracle compares clawdoctor's port with
// (-update-owner-argv rewrites it).
func TestLiveOwnerArgv(t *testing.T) {
	ref := reference(t)
	cases := ownerArgvCases()
	var reqs bytes.Buffer
	for _, c := range cases {
		b, _ := json.Marshal(c)
		reqs.Write(append(b, '\n'))
	}
	script, _ := filepath.Abs(filepath.Join("oracle", "owner_argv.mjs"))
	var golden bytes.Buffer
	for _, rel := range ownerArgvReleases {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		cmd := exec.CommandContext(ctx, ref, "--node", script)
		cmd.Env = append(os.Environ(), "OPENCLAW_REF_VERSION="+rel)
		cmd.Stdin = bytes.NewReader(reqs.Bytes())
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		cancel()
		if err != nil {
			t.Fatalf("%s: owner_argv.mjs: %v\n%s", rel, err, stderr.String())
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(nil, 1<<20)
		i := 0
		for sc.Scan() {
			if i >= len(cases) {
				t.Fatalf("%s: more answers than cases", rel)
			}
			var ans struct {
				Out   json.RawMessage `json:"out"`
				Error string          `json:"error"`
			}
			if err := json.Unmarshal(sc.Bytes(), &ans); err != nil || ans.Error != "" {
				t.Fatalf("%s: case %d: the oracle did not answer cleanly: %v %s", rel, i, err, ans.Error)
			}
			in, _ := json.Marshal(cases[i].In)
			fmt.Fprintf(&golden, `{"release":%q,"kind":%q,"in":%s,"out":%s}`+"\n", rel, cases[i].Kind, in, ans.Out)
			i++
		}
		if i != len(cases) {
			t.Fatalf("%s: %d answers for %d cases", rel, i, len(cases))
		}
	}
	path := filepath.Join("..", "store", "testdata", "oracle", "owner_argv.jsonl")
	if *updateOwner {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, golden.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (record it with -update-owner-argv)", err)
	}
	if !bytes.Equal(want, golden.Bytes()) {
		t.Errorf("the live releases answer differently from the recorded %s: re-record it with -update-owner-argv and check the store port", path)
	}
}

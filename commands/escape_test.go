//go:build unix

package commands

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile is text a terminal would act on: an OSC 52 clipboard write, a screen clear, an OSC 8
// hyperlink, backspaces, a C1 CSI (U+009B), a bidi override, DEL and a newline that forges a
// finding line.
const hostile = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\\b\b\u009b31m\u202eevil\x7f\nforged.jsonl:7: error jsonl.malformed-line: forged"

// issue 31, scope 3: every command's human output (text and Markdown) on a state dir whose
// ids, keys, model and tool names, texts and file names carry terminal escapes holds no
// control byte but newline and tab, no C1 control, no bidi override and no invalid UTF-8, and
// no forged finding line. On the old code piped audit output carried 154 raw control bytes.
func TestOutputIsTerminalSafe(t *testing.T) {
	bin := clawdoctorBin(t)
	st := filepath.Join(t.TempDir(), "state")
	sessions := filepath.Join(st, "agents", "main", "sessions")
	os.MkdirAll(sessions, 0o755)
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) } // a JSON string
	name := "evil" + hostile + ".jsonl"
	sid := "11111111-1111-4111-8111-111111111111"
	lines := []string{
		`{"type":"session","version":3,"id":` + q(sid+hostile) + `,"timestamp":"2026-01-01T00:00:00.000Z","cwd":` + q("/w"+hostile) + `}`,
		`{"type":"message","id":` + q("u1"+hostile) + `,"parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":` + q("hello"+hostile) + `}}`,
		`{"type":"message","id":"a1","parentId":` + q("u1"+hostile) + `,"timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","provider":` + q("anthropic"+hostile) + `,"model":` + q("claude"+hostile) + `,"stopReason":"toolUse","content":[{"type":"toolCall","id":` + q("c1"+hostile) + `,"name":` + q("read"+hostile) + `,"arguments":{"path":` + q(hostile) + `}}]}}`,
		`{"type":"custom","customType":` + q("model-snapshot"+hostile) + `,"id":"x1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","data":{"m":` + q(hostile) + `}}`,
		`{"type":"message","id":"b`, // a torn line: findings, repairs
	}
	transcript := strings.Join(lines, "\n") + "\n"
	os.WriteFile(filepath.Join(sessions, sid+".jsonl"), []byte(transcript), 0o644)
	os.WriteFile(filepath.Join(sessions, name), []byte(transcript), 0o644)      // an orphan with a hostile name
	os.WriteFile(filepath.Join(sessions, name+".lock"), []byte(hostile), 0o644) // a lock with a hostile payload
	store := `{` + q("agent:main:telegram:direct:"+hostile) + `:{"sessionId":` + q(sid) + `,"updatedAt":1767225600000,"sessionFile":` + q(name) + `,"label":` + q(hostile) + `},` +
		q("agent:main:main") + `:{"sessionId":` + q(sid) + `,"updatedAt":1767225600000,"model":` + q(hostile) + `}}`
	os.WriteFile(filepath.Join(sessions, "sessions.json"), []byte(store), 0o644)
	file := filepath.Join(sessions, name)
	for _, args := range [][]string{
		{"--state-dir", st, "stats"},
		{"--state-dir", st, "audit"},
		{"--state-dir", st, "audit", "--format", "markdown"},
		{"--state-dir", st, "audit", file},
		{"--state-dir", st, "doctor"},
		{"--state-dir", st, "repair", "-n"},
		{"--state-dir", st, "cleanup", "--explain"},
		{"--state-dir", st, "cleanup"},
		{"replay", "--provider", "anthropic", "--model", "claude-sonnet-4-5", file},
		{"validate", file},
		{"view", "--out", filepath.Join(t.TempDir(), "v.html"), file},
		{"--state-dir", st, "repair", file + "x"}, // an error naming a hostile path
	} {
		t.Run(strings.Join(args[min(2, len(args)-1):], " "), func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"--no-progress", "--now", "2026-05-05T12:00:00Z"}, args...)...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			cmd.Run()
			if os.Getenv("SHOW") != "" {
				t.Logf("%s", out.String())
			}
			if bad := unsafeBytes(out.Bytes()); bad != "" {
				t.Errorf("output carries %s:\n%q", bad, out.String())
			}
			for _, l := range strings.Split(out.String(), "\n") {
				if strings.HasPrefix(l, "forged.jsonl:7:") || strings.HasPrefix(l, "| forged") {
					t.Errorf("a forged line: %q", l)
				}
			}
			if !strings.Contains(out.String(), `\x1b`) && !strings.Contains(out.String(), `\u009b`) && !strings.Contains(out.String(), "#") {
				t.Logf("no escaped data shown (fine if the command prints none): %q", out.String())
			}
		})
	}
}

// unsafeBytes names the first byte a terminal would act on: a C0 control but newline and tab,
// DEL, a C1 control, a bidi override or line separator, or invalid UTF-8.
func unsafeBytes(b []byte) string {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			return fmt.Sprintf("invalid UTF-8 at byte %d", i)
		case (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f:
			return fmt.Sprintf("control byte %#x at byte %d", r, i)
		case (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029 || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
			return fmt.Sprintf("U+%04X at byte %d", r, i)
		}
		i += n
	}
	return ""
}

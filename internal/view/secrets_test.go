package view_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/view"
)

// secrets are planted in every place a state dir holds data; a redacted view must write none
// of them, in any form, anywhere: page data, text chunks, HTML, page file names, the result.
var secrets = []string{
	"alice@example.com", "5551230001", "bob@example.org", "carol@example.net", "5551230002",
	"dave@example.com", "erin@example.com", "5551230003", "SECRETFILE", "SECRETHOME",
	"frank@example.com", "5551230005", "heidi@example.com", "ivan@example.com", "judy@example.com",
	"SECRETCWD", "SECRETCUSTOM", "SECRETRESULT", "SECRETTHINK", "5551230006", "SECRETLABEL", "SECRETARCHIVE",
	"SECRETKEYNAME", "SECRETNOTE",
}

// issue 31, scope 2: --redact keeps only what is known to be structure. Secrets of every kind
// are planted in every place: a phone in the message tool's "to" argument, emails in an email
// tool's to/from, a phone stored as a JSON number, an email as an object key, from/to of a
// delivery-mirror turn, message texts and tool results, custom data, a model name, ids, the
// header's cwd, store rows (session key, label), file names (which name the written pages), a
// broken openclaw.json and a corrupt archive (whose errors name the home directory). Every
// byte written is searched. On the old code 8 of the 11 planted kinds leaked.
func TestRedactionPlantedSecrets(t *testing.T) {
	home := filepath.Join(t.TempDir(), "SECRETHOME")
	state := filepath.Join(home, ".openclaw")
	sessions := filepath.Join(state, "agents", "main", "sessions")
	if err := os.MkdirAll(sessions, 0o755); err != nil {
		t.Fatal(err)
	}
	j := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	sid := "11111111-1111-4111-8111-111111111111"
	file := "SECRETFILE-" + sid + ".jsonl"
	entries := []any{
		map[string]any{"type": "session", "version": 3, "id": sid, "timestamp": "2026-05-01T10:00:00.000Z", "cwd": "/home/SECRETCWD/project"},
		map[string]any{"type": "message", "id": "u1", "parentId": nil, "timestamp": "2026-05-01T10:00:01.000Z",
			"message": map[string]any{"role": "user", "content": "write to alice@example.com", "timestamp": 1}},
		map[string]any{"type": "message", "id": "a1", "parentId": "u1", "timestamp": "2026-05-01T10:00:02.000Z",
			"message": map[string]any{"role": "assistant", "provider": "anthropic", "model": "ivan@example.com", "stopReason": "toolUse",
				"content": []any{
					map[string]any{"type": "thinking", "thinking": "SECRETTHINK"},
					map[string]any{"type": "toolCall", "id": "c1", "name": "message", "arguments": map[string]any{"to": "+15551230001", "text": "hi"}},
					map[string]any{"type": "toolCall", "id": "c2", "name": "email", "arguments": map[string]any{"to": "carol@example.net", "from": "bob@example.org",
						"phone": 15551230002, "dave@example.com": "cc"}},
				}}},
		map[string]any{"type": "message", "id": "r1", "parentId": "a1", "timestamp": "2026-05-01T10:00:03.000Z",
			"message": map[string]any{"role": "toolResult", "toolCallId": "c1", "toolName": "message", "isError": false,
				"content": []any{map[string]any{"type": "text", "text": "SECRETRESULT sent"}}, "details": map[string]any{"to": "+15551230006"}}},
		map[string]any{"type": "message", "id": "r2", "parentId": "r1", "timestamp": "2026-05-01T10:00:04.000Z",
			"message": map[string]any{"role": "toolResult", "toolCallId": "c2", "toolName": "email", "isError": false,
				"content": []any{map[string]any{"type": "text", "text": "ok"}}}},
		map[string]any{"type": "message", "id": "judy@example.com", "parentId": "r2", "timestamp": "2026-05-01T10:00:05.000Z",
			"message": map[string]any{"role": "assistant", "provider": "openclaw", "model": "delivery-mirror", "stopReason": "stop",
				"openclawDeliveryMirror": map[string]any{"from": "erin@example.com", "to": "+15551230003"},
				"content":                []any{map[string]any{"type": "text", "text": "delivered"}}}},
		map[string]any{"type": "custom", "customType": "notes", "id": "x1", "parentId": "judy@example.com", "timestamp": "2026-05-01T10:00:06.000Z",
			"data": map[string]any{"SECRETKEYNAME": "SECRETCUSTOM", "n": 15551230005}},
	}
	var lines []string
	for _, e := range entries {
		lines = append(lines, j(e))
	}
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(sessions, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(file, strings.Join(lines, "\n")+"\n")
	write(sid+".jsonl.reset.2026-05-02T00-00-00.000Z.zst", "\x28\xb5\x2f\xfdSECRETARCHIVE garbage") // a corrupt archive
	write("sessions.json", j(map[string]any{
		"agent:main:telegram:direct:+15551230005": map[string]any{"sessionId": sid, "updatedAt": 1777600000000, "sessionFile": file,
			"label": "SECRETLABEL heidi@example.com", "displayName": "frank@example.com"},
	}))
	os.WriteFile(filepath.Join(state, "openclaw.json"), []byte("{ SECRETNOTE: "), 0o644) // broken: its error names the path

	out := filepath.Join(t.TempDir(), "view")
	res, err := view.Write(context.Background(), state, view.Options{OutDir: out, Redact: true})
	if err != nil {
		t.Fatal(err)
	}
	var written strings.Builder
	resJSON, _ := json.Marshal(res)
	written.Write(resJSON)
	pages := 0
	err = filepath.Walk(out, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		written.WriteString(p + "\n")
		if info.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".html") {
			pages++
			written.WriteString(pageTexts(t, b))
			for _, blk := range decodePage(t, b).blocks {
				written.Write(blk)
			}
		}
		written.Write(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pages < 2 {
		t.Fatalf("%d pages written: the session page is missing", pages)
	}
	all := written.String()
	for _, s := range secrets {
		if strings.Contains(all, s) {
			i := strings.Index(all, s)
			t.Errorf("the redacted view holds %q: …%q…", s, all[max(0, i-200):min(len(all), i+len(s)+40)])
		}
	}
	// what stays: structure
	for _, want := range []string{"toolCall", "assistant", "toolResult", "agent:main:telegram:direct:#"} {
		if !strings.Contains(all, want) {
			t.Errorf("the redacted view lost the structure %q", want)
		}
	}
}

package hygiene

import (
	"encoding/json"
	"testing"
)

// The turn merges next to messages that are not objects, as the real OpenClaw 2026.6.11's
// validateAnthropicTurns and validateGeminiTurns return them (each want was printed by the
// release's own functions, called from Node on the same input). A string or number between two
// assistants keeps both (mutation 9053 of seed 5: ours merged the later assistant into the
// string and sent one message less); an array is an object to JavaScript and is merged into,
// its elements spread as keys; a role-less object is merged into, losing the role.
func TestMergeTurnsNextToValues(t *testing.T) {
	const a = `{"role":"assistant","content":[{"type":"text","text":"a"}],"usage":{"input":1}}`
	const b = `{"role":"assistant","content":[{"type":"text","text":"b"}],"usage":{"input":1}}`
	for _, tc := range []struct {
		name      string
		in        []string
		anthropic string
		gemini    string
	}{
		{"string", []string{a, `"hello"`, b},
			`[` + a + `,"hello",` + b + `]`, `[` + a + `,"hello",` + b + `]`},
		{"number", []string{a, `5`, b},
			`[` + a + `,5,` + b + `]`, `[` + a + `,5,` + b + `]`},
		{"array", []string{a, `[7,"x"]`, b},
			`[` + a + `,{"0":7,"1":"x","content":[{"type":"text","text":"b"}],"usage":{"input":1}}]`,
			`[` + a + `,{"0":7,"1":"x","content":[{"type":"text","text":"b"}],"usage":{"input":1}}]`},
		{"role-less", []string{a, `{}`, b},
			`[` + a + `,{"content":[{"type":"text","text":"b"}],"usage":{"input":1}}]`,
			`[` + a + `,{"content":[{"type":"text","text":"b"}],"usage":{"input":1}}]`},
		{"users around an array", []string{`{"role":"user","content":"a"}`, `[7]`, `{"role":"user","content":"b"}`},
			`[{"role":"user","content":"a"},{"role":"user","content":[{"type":"text","text":"b"}]}]`,
			`[{"role":"user","content":"a"},[7],{"role":"user","content":"b"}]`},
		{"users around a string", []string{`{"role":"user","content":"a"}`, `"s"`, `{"role":"user","content":"b"}`},
			`[{"role":"user","content":"a"},"s",{"role":"user","content":"b"}]`,
			`[{"role":"user","content":"a"},"s",{"role":"user","content":"b"}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			decode := func() []Message {
				var ms []Message
				for i, raw := range tc.in {
					m, err := DecodeValue([]byte(raw))
					if err != nil {
						t.Fatal(err)
					}
					if !IsValue(m) || raw[0] == '{' {
						if m, err = Decode([]byte(raw)); err != nil {
							t.Fatal(err)
						}
					}
					m[RefKey] = itoa(int64(i))
					ms = append(ms, m)
				}
				return ms
			}
			got, _ := ValidateAnthropicTurns(decode(), Release20260611)
			sameJSON(t, "anthropic", Messages(got), tc.anthropic)
			got, _ = ValidateGeminiTurns(decode())
			sameJSON(t, "gemini", Messages(got), tc.gemini)
		})
	}
}

// sameJSON compares v's JSON with want as values (key order aside).
func sameJSON(t *testing.T, what string, v any, want string) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Errorf("%s:\n got %s\nwant %s", what, gb, wb)
	}
}

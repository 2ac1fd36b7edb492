package json5edit

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const cfg = `// OpenClaw config
{
  agents: { list: [{ id: "main", default: true }] },
  session: {
    idleMinutes: 90, // old style
    maintenance: {
      rotateBytes: "10mb",
    },
    /* removed in 2026.4 */
    parentForkMaxTokens: 20000,
  },
}
`

func TestDelete(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		path []string
		want string
	}{
		{"only member leaves {}", cfg, []string{"session", "maintenance", "rotateBytes"}, strings.Replace(cfg, "{\n      rotateBytes: \"10mb\",\n    }", "{}", 1)},
		{"member with comma and comment after", cfg, []string{"session", "idleMinutes"}, strings.Replace(cfg, "    idleMinutes: 90, // old style\n", " // old style\n", 1)},
		{"last member, comment kept", cfg, []string{"session", "parentForkMaxTokens"}, strings.Replace(cfg, "    parentForkMaxTokens: 20000,\n", "", 1)},
		{"json last without trailing comma", "{\n  \"a\": 1,\n  \"b\": 2\n}", []string{"b"}, "{\n  \"a\": 1\n}"},
		{"json first", "{\n  \"a\": 1,\n  \"b\": 2\n}", []string{"a"}, "{\n  \"b\": 2\n}"},
		{"one line", `{"a":1,"b":{"c":2,"d":3}}`, []string{"b", "c"}, `{"a":1,"b":{"d":3}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Delete([]byte(tc.src), tc.path...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestSetAndGet(t *testing.T) {
	for _, tc := range []struct {
		name, src, raw string
		path           []string
		want           string
	}{
		{"replace", cfg, "120", []string{"session", "idleMinutes"}, strings.Replace(cfg, "idleMinutes: 90", "idleMinutes: 120", 1)},
		{"insert bare key with trailing comma style", cfg, `{ mode: "idle", idleMinutes: 90 }`, []string{"session", "reset"},
			strings.Replace(cfg, "    parentForkMaxTokens: 20000,\n", "    parentForkMaxTokens: 20000,\n    reset: { mode: \"idle\", idleMinutes: 90 },\n", 1)},
		{"insert quoted json", "{\n  \"a\": 1\n}", "2", []string{"b"}, "{\n  \"a\": 1,\n  \"b\": 2\n}"},
		{"insert into empty", "{\n  \"s\": {}\n}", "1", []string{"s", "x"}, "{\n  \"s\": {\n    \"x\": 1,\n  }\n}"},
		{"insert one line", `{"a":1}`, `"x"`, []string{"b"}, `{"a":1, "b": "x"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Set([]byte(tc.src), tc.raw, tc.path...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			v, ok, err := Get(got, tc.path...)
			if err != nil || !ok || v != tc.raw {
				t.Errorf("Get after Set = %q %v %v, want %q", v, ok, err, tc.raw)
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"duplicate key", `{a: 1, a: 2}`},
		{"broken", `{a: 1,, }`},
		{"unterminated", `{a: "x`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Delete([]byte(tc.src), "a"); err == nil {
				t.Errorf("Delete on %q succeeded, want an error", tc.src)
			}
		})
	}
	if _, err := Delete([]byte(cfg), "session", "nope"); err == nil {
		t.Error("deleting a missing key succeeded")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{cfg, `{"a":[1,2,{"b":null}]}`, `{a:'x\'y',b:+1,c:.5,d:0x1F,}`, "{/*c*/}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		root, err := parse(src)
		if err != nil || root.kind != '{' {
			return
		}
		for _, m := range root.members {
			out, err := Delete(src, m.key)
			if err != nil {
				continue // duplicate keys are refused
			}
			if verr := Valid(out); verr != nil {
				t.Fatalf("delete %q broke %q: %v", m.key, src, verr)
			}
		}
	})
}

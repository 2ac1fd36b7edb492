package jsonl_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/jsonl"
)

// member is a Member as text, for the table: depth, key token, value token, parent key token.
type member struct{ d, k, v, parent string }

func members(b []byte, ms []jsonl.Member) []member {
	var out []member
	for _, m := range ms {
		x := member{d: strings.Repeat("1", m.Depth), k: string(b[m.K0:m.K1]), v: string(b[m.V0:m.V1])}
		if m.Depth == 2 {
			x.parent = string(b[m.ParentK0:m.ParentK1])
		}
		out = append(out, x)
	}
	return out
}

func TestScannerMembers(t *testing.T) {
	for _, tc := range []struct {
		line  string
		want  []member
		image bool
	}{
		{`{"a":1}`, []member{{"1", `"a"`, `1`, ""}}, false},
		{` { "a" : "x" , "b":[1,{"c":2}] } `, []member{{"1", `"a"`, `"x"`, ""}, {"1", `"b"`, `[1,{"c":2}]`, ""}}, false},
		// a member's own members arrive before it (they end first), each naming its parent
		{`{"type":"message","message":{"role":"user","content":[{"type":"image","data":"x"}]},"id":"u1"}`, []member{
			{"1", `"type"`, `"message"`, ""},
			{"11", `"role"`, `"user"`, `"message"`},
			{"11", `"content"`, `[{"type":"image","data":"x"}]`, `"message"`},
			{"1", `"message"`, `{"role":"user","content":[{"type":"image","data":"x"}]}`, ""},
			{"1", `"id"`, `"u1"`, ""},
		}, true},
		{`{"a":{"b":{"c":1}}}`, []member{{"11", `"b"`, `{"c":1}`, `"a"`}, {"1", `"a"`, `{"b":{"c":1}}`, ""}}, false},
		{`{"k\u0069":"\u0069mage"}`, []member{{"1", `"k\u0069"`, `"\u0069mage"`, ""}}, true}, // an escaped letter of "image": maybe one
		{`{"k":"\u0069mage"}`, nil, true}, // members not checked (nil): only Image
		{`{"a":{}}`, []member{{"1", `"a"`, `{}`, ""}}, false},
		{`[{"a":1}]`, nil, false}, // no object at the top: its objects are at depth 2, not members of one
	} {
		sc := jsonl.Scanner{Collect: true}
		end := sc.Value([]byte(tc.line), 0)
		if end < 0 || jsonl.SkipSpace([]byte(tc.line), end) != len(tc.line) {
			t.Errorf("%s: end %d", tc.line, end)
			continue
		}
		if got := members([]byte(tc.line), sc.Members); tc.want != nil && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.line, got, tc.want)
		}
		if tc.line == `[{"a":1}]` && len(sc.Members) != 1 {
			t.Errorf("%s: %q", tc.line, members([]byte(tc.line), sc.Members))
		}
		if sc.Image != tc.image {
			t.Errorf("%s: image %v", tc.line, sc.Image)
		}
	}
}

// The scanner's verdict is Check's, and for a valid object its depth-1 members, put back
// together, are the object JSON.parse reads (last key wins in both), as are the depth-2
// members of each depth-1 object member.
func FuzzScannerMembers(f *testing.F) {
	for _, s := range grammarSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"type":"message","message":{"role":"user","content":[{"type":"image","data":"x"}]},"id":"u1","z":{"a":{"b":[]},"c":"d"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		sc := jsonl.Scanner{Collect: true}
		end := sc.Value(b, 0)
		valid := end >= 0 && jsonl.SkipSpace(b, end) == len(b)
		if valid != (jsonl.Check(b) == nil) {
			t.Fatalf("%q: scanner valid %v, Check %v", b, valid, jsonl.Check(b))
		}
		var whole any
		if !valid || json.Unmarshal(b, &whole) != nil {
			return
		}
		obj, ok := whole.(map[string]any)
		if !ok {
			return
		}
		rebuild := func(depth int, parent int) any {
			var sb strings.Builder
			sb.WriteByte('{')
			n := 0
			for _, m := range sc.Members {
				if m.Depth != depth || (depth == 2 && m.ParentK0 != parent) {
					continue
				}
				if n > 0 {
					sb.WriteByte(',')
				}
				n++
				sb.Write(b[m.K0:m.K1])
				sb.WriteByte(':')
				sb.Write(b[m.V0:m.V1])
			}
			sb.WriteByte('}')
			var v any
			if err := json.Unmarshal([]byte(sb.String()), &v); err != nil {
				t.Fatalf("%q: members do not make JSON: %v", b, err)
			}
			return v
		}
		if got := rebuild(1, 0); !reflect.DeepEqual(got, any(obj)) {
			t.Fatalf("%q: depth-1 members give %v", b, got)
		}
		for _, m := range sc.Members {
			if m.Depth != 1 || b[m.V0] != '{' {
				continue
			}
			var want any
			if err := json.Unmarshal(b[m.V0:m.V1], &want); err != nil {
				t.Fatalf("%q: member value %q: %v", b, b[m.V0:m.V1], err)
			}
			if got := rebuild(2, m.K0); !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: depth-2 members of %s give %v, want %v", b, b[m.K0:m.K1], got, want)
			}
		}
	})
}

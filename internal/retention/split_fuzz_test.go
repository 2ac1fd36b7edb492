package retention

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzSplitObject checks the one-pass member splitter against encoding/json: for every
// valid JSON object it must find the same keys (first position, last value wins) with values
// that are valid JSON and decode to the same thing; invalid input must be an error, never a
// panic.
func FuzzSplitObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, "{\n  \"a\": {\"b\": [1, \"}\", {\"c\": \"\\\"\"}]},\n  \"a\": 2\n}",
		`{"k\"ey": "v\\", "e": [], "n": null, "t": true, "f": -1.5e3}`, `[]`, `{"a":`, `{"a" 1}`, `{"\u00e9": 1}`, ` {"x":"y"} `, "{\"\xff\": 1, \"\": 2}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		members, err := splitObject(data)
		var want map[string]json.RawMessage
		werr := json.Unmarshal(data, &want)
		isObj := werr == nil && bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{"))
		if !isObj {
			if err == nil && werr != nil {
				t.Fatalf("splitObject accepted invalid JSON %q", data)
			}
			return
		}
		if err != nil {
			t.Fatalf("splitObject(%q): %v", data, err)
		}
		if len(members) != len(want) {
			t.Fatalf("%d members, encoding/json has %d: %q", len(members), len(want), data)
		}
		for _, m := range members {
			w, ok := want[m.key]
			if !ok {
				t.Fatalf("key %q not in %q", m.key, data)
			}
			var a, b any
			if json.Unmarshal(m.value, &a) != nil || json.Unmarshal(w, &b) != nil {
				t.Fatalf("value of %q not valid: %q", m.key, m.value)
			}
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if !bytes.Equal(ja, jb) {
				t.Fatalf("value of %q: %s, want %s", m.key, ja, jb)
			}
		}
	})
}

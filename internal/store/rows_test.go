package store_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

type decodedRow struct {
	Key    string
	KeyOff int
	Value  string
}

// decodeRows splits a store the way encoding/json's tokenizer sees it (audit's own reader),
// the independent answer Rows must agree with.
func decodeRows(t *testing.T, data []byte) []decodedRow {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var out []decodedRow
	for dec.More() {
		off := int(dec.InputOffset())
		kt, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatal(err)
		}
		for data[off] == ' ' || data[off] == '\n' || data[off] == '\r' || data[off] == '\t' || data[off] == ',' {
			off++
		}
		out = append(out, decodedRow{Key: kt.(string), KeyOff: off, Value: string(raw)})
	}
	return out
}

func TestRowsMatchDecoder(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"openclaw format", "{\n  \"a\": {\n    \"sessionId\": \"x\"\n  },\n  \"b\": 1\n}"},
		{"compact", `{"a":{"sessionId":"x"},"b":[1,2],"c":"s"}`},
		{"odd spacing", "\r\n\t{ \"a\" :\n{}\n ,\n\"b\"\t:  null }\n"},
		{"escaped keys", `{"a\"b":1,"\u00e9\\":{"k":"v"},"日本":2}`},
		{"empty", `{}`},
		{"one", `{"only":{"sessionId":"s","x":[{"y":"}"}]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := store.Parse([]byte(tc.in), "sessions.json")
			if err != nil {
				t.Fatal(err)
			}
			rows, ok := s.Rows()
			if !ok {
				t.Fatal("Rows refused a store without duplicates")
			}
			got := []decodedRow{}
			for _, r := range rows {
				var k string
				if err := json.Unmarshal(r.KeyTok, &k); err != nil || k != r.Key {
					t.Errorf("key token %q decodes to %q (%v), row key %q", r.KeyTok, k, err, r.Key)
				}
				if !bytes.Equal(s.Bytes()[r.KeyOff:r.KeyOff+len(r.KeyTok)], r.KeyTok) {
					t.Errorf("key %q not at offset %d", r.KeyTok, r.KeyOff)
				}
				got = append(got, decodedRow{Key: r.Key, KeyOff: r.KeyOff, Value: string(r.Value)})
			}
			want := decodeRows(t, []byte(tc.in))
			if want == nil {
				want = []decodedRow{}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("rows (-decoder +Rows):\n%s", diff)
			}
		})
	}
}

func TestRowsRefuse(t *testing.T) {
	dup, err := store.Parse([]byte(`{"a":1,"b":2,"a":3}`), "sessions.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := dup.Rows(); ok {
		t.Error("Rows of a store with a repeated key: want refused (every occurrence is a row)")
	}
	ed, err := store.Parse([]byte(`{"a":{"sessionId":"x"}}`), "sessions.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := ed.Set("b", store.Entry{Raw: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if _, ok := ed.Rows(); ok {
		t.Error("Rows of an edited store: want refused (the rows would not be the file's)")
	}
}

func TestParsesCounts(t *testing.T) {
	before := store.Parses()
	if _, err := store.Parse([]byte(`{}`), "sessions.json"); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Parse([]byte(`[`), "sessions.json"); err == nil {
		t.Fatal("want an error")
	}
	if n := store.Parses() - before; n != 2 {
		t.Errorf("Parses rose by %d, want 2", n)
	}
}

func TestMembersMatchDecoder(t *testing.T) {
	for _, in := range []string{
		`{"a":1,"b":{"c":[1,"}",{"d":"\"]"}]},"a":"again"}`,
		"{ \"s\\u0049\" :\n\"x\" , \"n\":-1.5e3,\"t\":true,\"z\":null,\"e\":{},\"f\":[]}",
		`{}`,
	} {
		rows, ok := store.Members([]byte(in))
		if !ok {
			t.Fatalf("%s: not an object", in)
		}
		got := []decodedRow{}
		for _, r := range rows {
			k := r.Key
			if k == "" {
				if err := json.Unmarshal(r.KeyTok, &k); err != nil {
					t.Fatal(err)
				}
			}
			got = append(got, decodedRow{Key: k, KeyOff: r.KeyOff, Value: string(r.Value)})
		}
		want := decodeRows(t, []byte(in))
		if want == nil {
			want = []decodedRow{}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-decoder +Members):\n%s", in, diff)
		}
	}
	if _, ok := store.Members([]byte(`"x"`)); ok {
		t.Error("a string is not an object")
	}
}

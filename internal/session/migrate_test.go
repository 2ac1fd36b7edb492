package session_test

import (
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/session"
	"github.com/google/go-cmp/cmp"
)

func seqIDs(ids ...string) func(func(string) bool) string {
	n := 0
	return func(taken func(string) bool) string {
		id := ids[n%len(ids)]
		n++
		return id
	}
}

func lines(s string) [][]byte {
	var out [][]byte
	for _, l := range strings.Split(s, "\n") {
		out = append(out, []byte(l))
	}
	return out
}

func TestMigrate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in, want string
		ids      []string
		from     int
		changed  bool
		renamed  int
	}{
		{
			name: "spec 2.10 v1 to v3",
			in: `{"type":"session","id":"S","timestamp":"…","cwd":"/p"}
{"type":"message","timestamp":"…","message":{"role":"hookMessage","customType":"x","content":"c","display":true,"timestamp":1}}`,
			want: `{"type":"session","id":"S","timestamp":"…","cwd":"/p","version":3}
{"type":"message","timestamp":"…","message":{"role":"custom","customType":"x","content":"c","display":true,"timestamp":1},"id":"3fa9c2e1","parentId":null}`,
			ids: []string{"3fa9c2e1"}, from: 1, changed: true, renamed: 1,
		},
		{
			name: "v1 chain and firstKeptEntryIndex",
			in: `{"type":"session","version":1,"id":"S","timestamp":"T","cwd":"/p"}
{"type":"message","timestamp":"T","message":{"role":"user","content":"a"}}
{"type":"message","timestamp":"T","message":{"role":"assistant","content":[]}}
{"type":"compaction","timestamp":"T","summary":"s","firstKeptEntryIndex":2,"tokensBefore":10}
{"type":"compaction","timestamp":"T","summary":"s","firstKeptEntryIndex":0,"tokensBefore":10}`,
			want: `{"type":"session","version":3,"id":"S","timestamp":"T","cwd":"/p"}
{"type":"message","timestamp":"T","message":{"role":"user","content":"a"},"id":"aaaaaaaa","parentId":null}
{"type":"message","timestamp":"T","message":{"role":"assistant","content":[]},"id":"bbbbbbbb","parentId":"aaaaaaaa"}
{"type":"compaction","timestamp":"T","summary":"s","tokensBefore":10,"id":"cccccccc","parentId":"bbbbbbbb","firstKeptEntryId":"bbbbbbbb"}
{"type":"compaction","timestamp":"T","summary":"s","tokensBefore":10,"id":"dddddddd","parentId":"cccccccc"}`,
			ids: []string{"aaaaaaaa", "bbbbbbbb", "cccccccc", "dddddddd"}, from: 1, changed: true,
		},
		{
			name: "v2 only renames hookMessage",
			in: `{"type":"session","version":2,"id":"S","timestamp":"T","cwd":"/p"}
{"type":"message","id":"x1","parentId":null,"timestamp":"T","message":{"role":"hookMessage","content":"c"}}
{"type":"message","id":"x2","parentId":"x1","timestamp":"T","message":{"role":"user","content":"hookMessage"}}`,
			want: `{"type":"session","version":3,"id":"S","timestamp":"T","cwd":"/p"}
{"type":"message","id":"x1","parentId":null,"timestamp":"T","message":{"role":"custom","content":"c"}}
{"type":"message","id":"x2","parentId":"x1","timestamp":"T","message":{"role":"user","content":"hookMessage"}}`,
			from: 2, changed: true, renamed: 1,
		},
		{
			name: "v3 untouched",
			in: `{"type":"session","version":3,"id":"S","timestamp":"T","cwd":"/p"}
{"type":"message","id":"x1","parentId":null,"timestamp":"T","message":{"role":"hookMessage"}}`,
			want: `{"type":"session","version":3,"id":"S","timestamp":"T","cwd":"/p"}
{"type":"message","id":"x1","parentId":null,"timestamp":"T","message":{"role":"hookMessage"}}`,
			from: 3,
		},
		{
			name: "bad lines pass through",
			in: `{"type":"session","id":"S","timestamp":"T","cwd":"/p"}
{"type":"message"
42
{"type":"label","timestamp":"T","targetId":"q","label":"l"}`,
			want: `{"type":"session","id":"S","timestamp":"T","cwd":"/p","version":3}
{"type":"message"
42
{"type":"label","timestamp":"T","targetId":"q","label":"l","id":"aaaaaaaa","parentId":null}`,
			ids: []string{"aaaaaaaa"}, from: 1, changed: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := session.MigrateOptions{}
			if tc.ids != nil {
				opts.NewID = seqIDs(tc.ids...)
			}
			res, err := session.Migrate(lines(tc.in), opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range res.Lines {
				got = append(got, string(l))
			}
			if diff := cmp.Diff(strings.Split(tc.want, "\n"), got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			if res.From != tc.from || res.Changed != tc.changed || res.RenamedRole != tc.renamed {
				t.Errorf("from=%d changed=%v renamed=%d, want %d %v %d", res.From, res.Changed, res.RenamedRole, tc.from, tc.changed, tc.renamed)
			}
		})
	}
}

func TestMigrateStringifyAndRandomIDs(t *testing.T) {
	in := lines(`{"type":"session", "id":"S","timestamp":"T","cwd":"/p"}
{"type":"message", "timestamp":"T","message":{"role":"user","content":"<&>"}}
{"type":"message","timestamp":"T","message":{"role":"user","content":"b"}}`)
	res, err := session.Migrate(in, session.MigrateOptions{Stringify: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"type":"session","id":"S","timestamp":"T","cwd":"/p","version":3}`; string(res.Lines[0]) != want {
		t.Errorf("header = %s, want %s", res.Lines[0], want)
	}
	var ids []string
	for i, l := range res.Lines[1:] {
		e, err := session.DecodeEntry(l)
		if err != nil {
			t.Fatal(err)
		}
		if len(e.ID) != 8 || strings.Trim(e.ID, "0123456789abcdef") != "" {
			t.Errorf("entry %d id %q is not 8 hex digits", i, e.ID)
		}
		ids = append(ids, e.ID)
		if strings.Contains(string(l), " ") {
			t.Errorf("entry %d not compact: %s", i, l)
		}
	}
	if ids[0] == ids[1] {
		t.Errorf("ids collide: %v", ids)
	}
	if e, _ := session.DecodeEntry(res.Lines[2]); e.Parent() != ids[0] {
		t.Errorf("second entry parent %q, want %q", e.Parent(), ids[0])
	}
	if !strings.Contains(string(res.Lines[1]), `"<&>"`) {
		t.Errorf("JS stringify must not escape <&>: %s", res.Lines[1])
	}
}

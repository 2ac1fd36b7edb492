package session_test

import (
	"errors"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/session"
)

func TestSetField(t *testing.T) {
	for _, tc := range []struct {
		name, in, path, value, want string
	}{
		{"replace keeps order and spacing", `{"a": 1, "message": {"role":"assistant", "content": [] ,"stopReason":"error"}}`,
			"message.content", `[{"type":"text","text":"[assistant turn failed before producing content]"}]`,
			`{"a": 1, "message": {"role":"assistant", "content": [{"type":"text","text":"[assistant turn failed before producing content]"}] ,"stopReason":"error"}}`},
		{"string content", `{"message":{"role":"user","content":"  ","timestamp":1}}`, "message.content", `"(continue)"`,
			`{"message":{"role":"user","content":"(continue)","timestamp":1}}`},
		{"missing key appended", `{"type":"session","id":"S"}`, "version", `3`, `{"type":"session","id":"S","version":3}`},
		{"missing key in empty object", `{ }`, "a", `1`, `{ "a":1}`},
		{"missing intermediate created", `{"x":1}`, "a.b.c", `true`, `{"x":1,"a":{"b":{"c":true}}}`},
		{"escaped key matches", `{"\u0074ype":"x","k":2}`, "type", `"y"`, `{"\u0074ype":"y","k":2}`},
		{"duplicate: last replaced", `{"a":1,"a":2}`, "a", `3`, `{"a":1,"a":3}`},
		{"array index", `{"c":[{"t":"a"},{"t":"b"}]}`, "c.1.t", `"z"`, `{"c":[{"t":"a"},{"t":"z"}]}`},
		{"value with strings holding braces", `{"s":"}{\"","v":[1,"]"],"w":0}`, "w", `5`, `{"s":"}{\"","v":[1,"]"],"w":5}`},
		{"key needing escape", `{}`, "a\"b", `1`, `{"a\"b":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := session.SetField([]byte(tc.in), tc.path, []byte(tc.value))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestSetFieldErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, path, value string }{
		{"through a string", `{"a":"x"}`, "a.b", `1`},
		{"invalid value", `{"a":1}`, "a", `{`},
		{"torn line", `{"a":1`, "a", `2`},
		{"missing array element", `{"a":[1]}`, "a.3", `2`},
		{"empty path", `{"a":1}`, "", `2`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := session.SetField([]byte(tc.in), tc.path, []byte(tc.value)); err == nil {
				t.Errorf("no error, got %s", got)
			}
		})
	}
	if _, err := session.SetField([]byte(`{"a":"x"}`), "a.b", []byte(`1`)); !errors.Is(err, session.ErrNotContainer) {
		t.Errorf("err = %v, want ErrNotContainer", err)
	}
}

func TestDeleteField(t *testing.T) {
	for _, tc := range []struct {
		name, in, path, want string
		deleted              bool
	}{
		{"first", `{"a":1, "b":2,"c":3}`, "a", `{"b":2,"c":3}`, true},
		{"middle", `{"a":1, "b":2,"c":3}`, "b", `{"a":1, "c":3}`, true},
		{"last", `{"a":1, "b":2,"c":3}`, "c", `{"a":1, "b":2}`, true},
		{"only", `{ "a":1 }`, "a", `{  }`, true},
		{"nested", `{"m":{"details":{"x":1},"k":2}}`, "m.details", `{"m":{"k":2}}`, true},
		{"duplicates all go", `{"a":1,"b":2,"a":3}`, "a", `{"b":2}`, true},
		{"duplicates at the end", `{"b":2,"a":1,"a":3}`, "a", `{"b":2}`, true},
		{"absent", `{"a":1}`, "z", `{"a":1}`, false},
		{"absent parent", `{"a":1}`, "m.z", `{"a":1}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, deleted, err := session.DeleteField([]byte(tc.in), tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want || deleted != tc.deleted {
				t.Errorf("got %s (deleted %v), want %s (%v)", got, deleted, tc.want, tc.deleted)
			}
		})
	}
}

func TestGetField(t *testing.T) {
	line := []byte(`{"type":"message","message":{"role":"toolResult","content":[{"type":"text","text":"ok"}]},"n":-1.5e3}`)
	for path, want := range map[string]string{
		"type": `"message"`, "message.role": `"toolResult"`, "message.content.0.text": `"ok"`, "n": `-1.5e3`,
	} {
		got, ok, err := session.GetField(line, path)
		if err != nil || !ok || string(got) != want {
			t.Errorf("GetField(%s) = %s %v %v, want %s", path, got, ok, err, want)
		}
	}
	if _, ok, _ := session.GetField(line, "message.nope"); ok {
		t.Error("absent field found")
	}
}

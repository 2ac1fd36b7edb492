package session_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/session"
)

// The repair of an empty assistant error turn: only the content value changes.
func ExampleSetField() {
	line := []byte(`{"type":"message","id":"m2","parentId":"m1","message":{"role":"assistant","content":[],"stopReason":"error"}}`)
	e, _ := session.DecodeEntry(line)
	if e.Message.IsEmptyErrorTurn() {
		text := `[{"type":"text","text":"` + session.StreamErrorFallbackText + `"}]`
		line, _ = session.SetField(line, "message.content", []byte(text))
	}
	fmt.Println(string(line))
	// Output:
	// {"type":"message","id":"m2","parentId":"m1","message":{"role":"assistant","content":[{"type":"text","text":"[assistant turn failed before producing content]"}],"stopReason":"error"}}
}

// Index a transcript, then load the active path by seeking and build the model context.
func ExampleBuildIndex() {
	transcript := `{"type":"session","version":3,"id":"S","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}
{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":"hi"}}
{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}],"provider":"anthropic","model":"claude"}}
{"type":"message","id":"u2","parentId":"u1","timestamp":"2026-01-01T00:00:03Z","message":{"role":"user","content":"actually..."}}
`
	x, _ := session.BuildIndex(context.Background(), strings.NewReader(transcript), "s.jsonl", session.IndexOptions{})
	u1, _ := x.Lookup("u1")
	fmt.Println("entries:", x.Len(), "children of u1:", len(x.Children(u1)), "leaf:", x.Node(x.ActiveLeaf()).ID)
	path, _ := x.ReadEntries(strings.NewReader(transcript), x.ActivePath())
	for _, m := range session.ConvertToLLM(session.BuildContext(path).Messages) {
		fmt.Println(m.Role, m.Message.Text())
	}
	// Output:
	// entries: 3 children of u1: 2 leaf: u2
	// user hi
	// user actually...
}

package store_test

import (
	"encoding/json"
	"fmt"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

func ExampleClassify() {
	for _, name := range []string{
		"3f0c2a9e.jsonl",
		"3f0c2a9e.jsonl.reset.2026-03-14T09-05-33.123Z",
		"3f0c2a9e.jsonl.bak-4242-1777881393601",
		"sessions.json.telegram-sent-messages.json",
	} {
		n := store.Classify(name)
		fmt.Println(n.Kind, n.Base, n.Time.Format("2006-01-02T15:04:05.000Z"))
	}
	// Output:
	// transcript 3f0c2a9e.jsonl 0001-01-01T00:00:00.000Z
	// reset-archive 3f0c2a9e.jsonl 2026-03-14T09:05:33.123Z
	// repair-backup 3f0c2a9e.jsonl 2026-05-04T07:56:33.601Z
	// foreign  0001-01-01T00:00:00.000Z
}

func ExampleStore_Set() {
	s, err := store.Parse([]byte("{\n  \"agent:main:main\": {\n    \"sessionId\": \"a\",\n    \"updatedAt\": 1\n  }\n}"), "sessions.json")
	if err != nil {
		panic(err)
	}
	e, _ := s.Get("agent:main:main")
	_ = e.Obj.SetValue("updatedAt", 2)     // existing field: keeps its place
	_ = e.Obj.SetValue("label", "<ops> é") // new field: appended, JS escaping
	_ = s.Set("agent:main:main", e)
	_ = s.Set("agent:main:b", store.Entry{Raw: json.RawMessage(`{"sessionId":"b"}`)})
	out, _ := s.Marshal()
	fmt.Println(string(out))
	// Output:
	// {
	//   "agent:main:main": {
	//     "sessionId": "a",
	//     "updatedAt": 2,
	//     "label": "<ops> é"
	//   },
	//   "agent:main:b": {
	//     "sessionId": "b"
	//   }
	// }
}

package audit

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// TinyShape is tinyShape for the package's external tests (BenchmarkAuditTiny).
func TinyShape(size int) []byte { return tinyShape(size) }

// tinyShape returns a transcript of about size bytes shaped as scripts/bench/shapes.mjs's
// "tiny" shape: one short user or assistant turn a line (~236 bytes), a label now and then,
// random 8-hex ids, so that the id index is as big and as scattered as on a real file.
func tinyShape(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"session","version":3,"id":"7e574618-0000-4000-8000-000000000000","timestamp":"2026-04-01T00:00:04.378Z","cwd":"/srv/app"}` + "\n")
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the build failed because a module is missing please check logs deploy retry network timeout file path config value")
	text := func(n int) string {
		var s strings.Builder
		for s.Len() < n {
			s.WriteString(words[rng.IntN(len(words))])
			s.WriteByte(' ')
		}
		return s.String()[:n]
	}
	parent, ms := "null", int64(1775001600000)
	for b.Len() < size {
		id := fmt.Sprintf("%08x", rng.Uint32())
		ms += rng.Int64N(5000)
		ts := time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
		switch r := rng.Float64(); {
		case r < 0.05:
			fmt.Fprintf(&b, `{"type":"label","id":"%s","parentId":%s,"timestamp":"%s","targetId":%s,"label":"x"}`+"\n", id, parent, ts, parent)
		case r < 0.5:
			fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"%s","message":{"role":"user","content":%q,"timestamp":%d}}`+"\n", id, parent, ts, text(8), ms)
		default:
			fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"%s","message":{"role":"assistant","content":[{"type":"text","text":%q}],"api":"openai-responses","provider":"openai","model":"gpt-5.4","usage":{"input":1000,"output":50},"stopReason":"stop","timestamp":%d}}`+"\n", id, parent, ts, text(6), ms)
		}
		parent = `"` + id + `"`
	}
	return b.Bytes()
}

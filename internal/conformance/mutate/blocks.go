package mutate

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
)

var numberRE = regexp.MustCompile(`"timestamp":(\d+)`)

// Block is one kind of content a transcript holds. Add appends a few entries of that kind,
// picking a variant with the builder's random source, and returns the variant's name.
type Block struct {
	Name string
	Add  func(b *Builder) string
}

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

// imageBytes returns the first bytes of a real file of each format the image sniffer of
// OpenClaw 2026.6.11 knows (png, jpeg, webp, gif, bmp, heic, heif), followed by noise.
func imageBytes(rng *rand.Rand, format string) []byte {
	var head []byte
	switch format {
	case "png":
		head = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00")
	case "jpeg":
		head = []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
	case "webp":
		head = []byte("RIFF\x24\x00\x00\x00WEBPVP8 \x18\x00\x00\x00")
	case "webp-high-bits": // Node's "ascii" decoding drops the high bit: still RIFF/WEBP there
		head = []byte("\xd2\xc9\xc6\xc6\x24\x00\x00\x00\xd7\xc5\xc2\xd0VP8 ")
	case "gif":
		head = []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00")
	case "bmp":
		head = []byte("BM\x3a\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00")
	case "heic":
		head = []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic")
	case "heif":
		head = []byte("\x00\x00\x00\x18ftypmif1\x00\x00\x00\x00mif1miaf")
	case "avif": // a real format the sniffer does not know
		head = []byte("\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1miaf")
	case "text":
		head = []byte("this is not an image at all, just some text bytes")
	case "tiny-png": // the PNG signature cut to 3 bytes
		return []byte("\x89PN")
	}
	noise := make([]byte, 8+rng.IntN(200))
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	return append(head, noise...)
}

var goodFormats = []string{"png", "jpeg", "webp", "webp-high-bits", "gif", "bmp", "heic", "heif"}

// goodPayload is valid base64 of a sniffable image, sometimes wrapped or spaced the way the
// canonicaliser still accepts (bytes ≤ 0x20 are skipped).
func goodPayload(rng *rand.Rand) (string, string) {
	f := pick(rng, goodFormats)
	s := base64.StdEncoding.EncodeToString(imageBytes(rng, f))
	switch rng.IntN(5) {
	case 0: // MIME line breaks
		var w strings.Builder
		for i := 0; i < len(s); i += 76 {
			w.WriteString(s[i:min(i+76, len(s))])
			w.WriteString("\r\n")
		}
		return w.String(), f + "/wrapped"
	case 1:
		return " " + s + "\t", f + "/spaced"
	}
	return s, f
}

// badPayload is a data string OpenClaw 2026.6.11 calls corrupted: not ASCII, not canonical
// base64, or not an image once decoded.
func badPayload(rng *rand.Rand) (string, string) {
	good := base64.StdEncoding.EncodeToString(imageBytes(rng, "png"))
	at := rng.IntN(len(good))
	switch rng.IntN(13) {
	case 0:
		return good[:at] + "é" + good[at:], "non-ascii"
	case 1:
		return good[:at] + "\u0100" + good[at:], "non-ascii-u0100"
	case 2:
		return good[:at] + "-_" + good[at:], "base64url-chars"
	case 3:
		return "not base64!", "garbage"
	case 4:
		return strings.TrimRight(good, "=") + "A", "bad-length"
	case 5:
		return good + "===", "too-much-padding"
	case 6:
		return good[:4] + "=" + good[4:], "padding-inside"
	case 7:
		return base64.StdEncoding.EncodeToString(imageBytes(rng, "text")), "not-an-image"
	case 8:
		return base64.StdEncoding.EncodeToString(imageBytes(rng, "avif")), "avif"
	case 9:
		return base64.StdEncoding.EncodeToString(imageBytes(rng, "tiny-png")), "tiny"
	case 10:
		return "", "empty"
	case 11:
		return "data:image/png;base64," + good, "data-url"
	}
	return good[:at] + "\u0000" + good[at:], "nul"
}

// imageBlock is an image content block with the payload under a mime key variant.
func imageBlock(rng *rand.Rand, data any) ([]kv, string) {
	key := pick(rng, []string{"mimeType", "mimeType", "mediaType", "media_type"})
	mime := pick(rng, []string{"image/png", "image/png", "image/jpeg", "IMAGE/PNG", " image/webp ", "image/x-unknown"})
	switch rng.IntN(10) {
	case 0:
		return []kv{{"type", "image"}, {"data", data}}, "no-mime"
	case 1:
		return []kv{{"type", "image"}, {"data", data}, {key, "text/plain"}}, "mime-not-image"
	case 2: // the first image mime of mimeType, mediaType, media_type counts
		return []kv{{"type", "image"}, {"data", data}, {"mimeType", 5}, {"media_type", mime}}, "mime-second-key"
	case 3:
		return []kv{{"type", "Image"}, {"data", data}, {key, mime}}, "type-case"
	}
	return []kv{{"type", "image"}, {"data", data}, {key, mime}}, key + "=" + mime
}

// placeImage puts an image block into a user turn, a tool result, an assistant turn or a
// custom message.
func placeImage(b *Builder, img []kv) string {
	switch b.rng.IntN(5) {
	case 0, 1:
		b.User([]any{textBlock("what is in this picture?"), img})
		return "user"
	case 2:
		id := b.CallID()
		b.UserText("take a screenshot")
		b.Assistant(b.Prov, []any{toolCall(id, "browser", []kv{{"action", "screenshot"}})}, "toolUse")
		b.Result(id, "browser", []any{textBlock("screenshot taken"), img}, false)
		return "tool-result"
	case 3:
		b.Assistant(b.Prov, []any{textBlock("here it is"), img}, "stop")
		return "assistant"
	}
	b.Entry("custom_message", kv{"customType", "attachment"}, kv{"content", []any{img}}, kv{"display", true})
	return "custom-message"
}

// Blocks lists every content kind the mutations splice in and the matrix is built from.
var Blocks = []Block{
	{"image-good", func(b *Builder) string {
		data, v := goodPayload(b.rng)
		img, mv := imageBlock(b.rng, data)
		return v + "/" + mv + "/" + placeImage(b, img)
	}},
	{"image-bad", func(b *Builder) string {
		data, v := badPayload(b.rng)
		var d any = data
		if b.rng.IntN(12) == 0 {
			d, v = 12345, "data-not-string"
		}
		img, mv := imageBlock(b.rng, d)
		return v + "/" + mv + "/" + placeImage(b, img)
	}},
	{"thinking", func(b *Builder) string {
		var blk []kv
		v := pick(b.rng, []string{"signed", "unsigned", "redacted", "empty-signature", "google-signature"})
		switch v {
		case "signed":
			blk = []kv{{"type", "thinking"}, {"thinking", b.words(12)}, {"thinkingSignature", "EqQBCkYIBRgCKkA" + b.words(1)}}
		case "unsigned":
			blk = []kv{{"type", "thinking"}, {"thinking", b.words(12)}}
		case "redacted":
			blk = []kv{{"type", "redacted_thinking"}, {"data", "EmwKAhgBEgy3va3pzix"}}
		case "empty-signature":
			blk = []kv{{"type", "thinking"}, {"thinking", ""}, {"thinkingSignature", ""}}
		default:
			blk = []kv{{"type", "thinking"}, {"thinking", b.words(6)}, {"thought_signature", "CiIBVKhc7t"}}
		}
		b.UserText(b.words(5))
		b.Assistant(b.Prov, []any{blk, textBlock(b.words(9))}, "stop")
		return v
	}},
	{"tool", func(b *Builder) string { return addTool(b) }},
	{"code-mode", func(b *Builder) string { return addCodeMode(b) }},
	{"delivery-mirror", func(b *Builder) string { return addDelivery(b) }},
	{"compaction", func(b *Builder) string {
		kept := "deadbeef"
		v := "first-kept-missing"
		if len(b.ids) > 2 && b.rng.IntN(4) > 0 {
			kept, v = b.ids[len(b.ids)-2], "first-kept-present"
		}
		b.Entry("compaction", kv{"summary", "## Goal\n" + b.words(20)}, kv{"firstKeptEntryId", kept}, kv{"tokensBefore", 40000 + b.rng.IntN(90000)})
		return v
	}},
	{"branch-summary", func(b *Builder) string {
		from := "00000000"
		if len(b.ids) > 1 {
			from = b.ids[b.rng.IntN(len(b.ids))]
		}
		b.Entry("branch_summary", kv{"fromId", from}, kv{"summary", b.words(15)})
		return "from-" + map[bool]string{true: "missing", false: "present"}[from == "00000000"]
	}},
	{"custom-message", func(b *Builder) string {
		if b.rng.IntN(2) == 0 {
			b.Entry("custom_message", kv{"customType", "memory-recall"}, kv{"content", b.words(10)}, kv{"display", false})
			return "string-content"
		}
		b.Entry("custom_message", kv{"customType", "note"}, kv{"content", []any{textBlock(b.words(6))}}, kv{"display", true}, kv{"details", []kv{{"source", "plugin"}}})
		return "blocks"
	}},
	{"other-entries", func(b *Builder) string {
		switch v := b.rng.IntN(5); v {
		case 0:
			b.Entry("model_change", kv{"provider", b.Prov.Provider}, kv{"modelId", b.Prov.Model})
			return "model-change"
		case 1:
			b.Entry("thinking_level_change", kv{"thinkingLevel", pick(b.rng, []string{"off", "low", "high"})})
			return "thinking-level"
		case 2:
			target := "ffffffff"
			if len(b.ids) > 0 {
				target = b.ids[0]
			}
			b.Entry("label", kv{"targetId", target}, kv{"label", "checkpoint"})
			return "label"
		case 3:
			b.Entry("custom", kv{"customType", "openclaw.cache-ttl"}, kv{"data", []kv{{"timestamp", b.ms}}})
			return "custom"
		}
		b.Entry("session_info", kv{"name", b.words(3)})
		return "session-info"
	}},
	{"null-role", func(b *Builder) string {
		variants := []struct {
			name string
			msg  any
		}{
			{"message-null", nil}, {"message-empty", []kv{}}, {"role-empty", []kv{{"role", ""}, {"content", "x"}}},
			{"role-blank", []kv{{"role", "  "}, {"content", "x"}}}, {"role-number", []kv{{"role", 7}}},
			{"role-null", []kv{{"role", nil}, {"content", []any{}}}}, {"message-string", "hello"},
			{"message-array", []any{}}, {"role-nbsp", []kv{{"role", "\u00a0"}}}, {"message-missing", nil},
		}
		v := pick(b.rng, variants)
		if v.name == "message-missing" {
			b.Entry("message")
		} else {
			b.Entry("message", kv{"message", v.msg})
		}
		return v.name
	}},
	{"blank-user", func(b *Builder) string {
		variants := []struct {
			name    string
			content any
		}{
			{"empty-string", ""}, {"spaces", "   "}, {"nbsp", "\u00a0"}, {"bom", "\ufeff"}, {"ideographic-space", "\u3000"},
			{"empty-array", []any{}}, {"empty-text-block", []any{textBlock("")}},
			{"blank-text-and-image", []any{textBlock(" \n"), []kv{{"type", "image"}, {"data", base64.StdEncoding.EncodeToString(imageBytes(b.rng, "png"))}, {"mimeType", "image/png"}}}},
			{"text-not-string", []any{[]kv{{"type", "text"}, {"text", 5}}}},
			{"blank-and-real", []any{textBlock(" "), textBlock("real text")}},
			{"content-null", nil}, {"not-blank", "hi"}, {"zwsp-not-space", "\u200b"},
		}
		v := pick(b.rng, variants)
		b.User(v.content)
		b.Assistant(b.Prov, []any{textBlock(b.words(4))}, "stop")
		return v.name
	}},
	{"empty-error", func(b *Builder) string {
		v := pick(b.rng, []string{"error", "stop", "aborted", "error-string-content", "error-no-content"})
		b.UserText(b.words(4))
		m := []kv{{"role", "assistant"}, {"content", []any{}}, {"api", b.Prov.API}, {"provider", b.Prov.Provider},
			{"model", b.Prov.Model}, {"usage", usage(b.rng)}, {"stopReason", "error"}, {"errorMessage", "upstream timeout"}, {"timestamp", b.ms}}
		switch v {
		case "stop", "aborted":
			m[6].v = v
		case "error-string-content":
			m[1].v = ""
		case "error-no-content":
			m = append(m[:1], m[2:]...)
		}
		b.Message(m)
		return v
	}},
	{"header", func(b *Builder) string {
		if b.rng.IntN(2) == 0 {
			b.add(obj(kv{"type", "session"}, kv{"version", 3}, kv{"id", b.uuid()}, kv{"timestamp", b.iso()}, kv{"cwd", "/other"}))
			return "second-header"
		}
		b.add(obj(kv{"type", "session"}, kv{"version", 3}, kv{"timestamp", b.iso()}))
		return "header-without-id"
	}},
}

// BlockNamed returns the block called name.
func BlockNamed(name string) (Block, bool) {
	for _, bl := range Blocks {
		if bl.Name == name {
			return bl, true
		}
	}
	return Block{}, false
}

// oddID is a tool-call id OpenClaw's helpers treat in some special way.
func oddID(b *Builder) (any, string) {
	switch b.rng.IntN(7) {
	case 0:
		return "", "empty-id"
	case 1:
		return "   ", "blank-id"
	case 2:
		return " " + b.CallID() + " ", "padded-id"
	case 3:
		return 42, "number-id"
	case 4:
		return nil, "null-id"
	case 5:
		return "call with spaces/and:odd|chars", "odd-chars-id"
	}
	if len(b.reused) > 0 {
		return pick(b.rng, b.reused), "reused-id"
	}
	return b.CallID(), "fresh-id"
}

// addTool writes a tool call with one of many id and result shapes.
func addTool(b *Builder) string {
	b.UserText(b.words(5))
	var id any = b.CallID()
	v := "normal"
	if b.rng.IntN(2) == 0 {
		id, v = oddID(b)
	}
	typ := pick(b.rng, []string{"toolCall", "toolCall", "toolUse", "functionCall", "tool_use"})
	call := []kv{{"type", typ}, {"id", id}, {"name", "read"}, {"arguments", []kv{{"path", "README.md"}}}}
	if b.rng.IntN(8) == 0 {
		call = call[:3] // no arguments
		v += "/no-args"
	}
	b.Assistant(b.Prov, []any{textBlock("reading"), call}, "toolUse")
	if s, ok := id.(string); ok && s != "" {
		b.reused = append(b.reused, s)
	}
	switch r := b.rng.IntN(6); r {
	case 0:
		b.UserText("never mind")
		return v + "/" + typ + "/no-result"
	case 1: // the id under another key
		key := pick(b.rng, []string{"toolUseId", "tool_call_id", "tool_use_id", "callId", "call_id"})
		b.Message([]kv{{"role", "toolResult"}, {key, id}, {"toolName", "read"}, {"content", []any{textBlock("# readme")}}, {"isError", false}, {"timestamp", b.ms}})
		return v + "/" + typ + "/result-" + key
	case 2: // the first usable of two keys counts
		b.Message([]kv{{"role", "toolResult"}, {"toolCallId", "  "}, {"toolUseId", id}, {"toolName", "read"}, {"content", []any{textBlock("# readme")}}, {"isError", false}, {"timestamp", b.ms}})
		return v + "/" + typ + "/result-second-key"
	}
	b.Result(id, "read", []any{textBlock("# readme")}, false)
	b.Assistant(b.Prov, []any{textBlock(b.words(6))}, "stop")
	return v + "/" + typ + "/result"
}

// addCodeMode writes an OpenAI code-mode turn whose tool calls may lack results.
func addCodeMode(b *Builder) string {
	cm := Providers[len(Providers)-1]
	stop := pick(b.rng, []string{"stop", "stop", "toolUse", "error", "aborted", "length"})
	n := 1 + b.rng.IntN(3)
	var content []any
	var ids []any
	var names []string
	for i := 0; i < n; i++ {
		var id any = b.CallID()
		if b.rng.IntN(5) == 0 {
			id, _ = oddID(b)
		}
		name := pick(b.rng, []string{"exec", "exec", "write", "", "\u00a0"})
		call := toolCall(id, name, []kv{{"command", "make test"}})
		if b.rng.IntN(6) == 0 {
			call = []kv{{"type", "toolCall"}, {"id", id}, {"arguments", []kv{}}} // no name
		}
		content = append(content, call)
		ids, names = append(ids, id), append(names, name)
	}
	b.UserText("run the tests")
	b.Assistant(cm, content, stop)
	answered := 0
	for i, id := range ids {
		if b.rng.IntN(3) == 0 {
			b.Result(id, names[i], []any{textBlock("ok")}, false)
			answered++
		}
	}
	b.UserText(b.words(3))
	return fmt.Sprintf("%s/%d-calls/%d-answered", stop, n, answered)
}

// addDelivery writes an OpenAI Responses turn with message tool calls and what follows it.
func addDelivery(b *Builder) string {
	api := pick(b.rng, []string{"openai-responses", "openai-responses", "azure-openai-responses", "openai-codex-responses", " openai-responses ", "openai-completions"})
	p := Provider{"responses", api, "openai", "gpt-5"}
	stop := pick(b.rng, []string{"toolUse", "toolUse", "stop", "error", "aborted"})
	name := pick(b.rng, []string{"message", "message", " Message ", "MESSAGE", "send_message"})
	id := b.CallID()
	content := []any{toolCall(id, name, []kv{{"action", "send"}, {"message", b.words(5)}})}
	if b.rng.IntN(3) == 0 {
		content = append(content, toolCall(b.CallID(), "message", []kv{{"action", "send"}, {"message", "second"}}))
	}
	b.UserText("tell the team")
	b.Assistant(p, content, stop)
	if b.rng.IntN(4) == 0 { // entries that are not messages do not count as "next"
		b.Entry("custom", kv{"customType", "delivery"}, kv{"data", []kv{{"ok", true}}})
	}
	answered := b.rng.IntN(4) == 0
	if answered {
		b.Result(id, "message", []any{textBlock("sent")}, false)
	}
	mp := pick(b.rng, []string{"openclaw", "openclaw", " openclaw ", "OpenClaw"})
	model := pick(b.rng, []string{"delivery-mirror", "delivery-mirror", "gateway-injected", " delivery-mirror ", "gpt-5"})
	if b.rng.IntN(5) == 0 {
		b.UserText("ok") // the next message is not a mirror
		model = "none"
	} else {
		b.Message([]kv{{"role", "assistant"}, {"content", []any{textBlock(b.words(5))}}, {"api", "openai-responses"},
			{"provider", mp}, {"model", model}, {"usage", usage(b.rng)}, {"stopReason", "stop"}, {"timestamp", b.ms}})
	}
	return fmt.Sprintf("%s/%s/%s/%s/%s/answered=%v", strings.TrimSpace(api), stop, strings.TrimSpace(name), mp, model, answered)
}

// raw re-renders a line as valid JSON that JSON.stringify would not write, to tell a
// difference of serialisation from a difference of content.
func raw(rng *rand.Rand, line []byte) ([]byte, string) {
	var v any
	if json.Unmarshal(line, &v) != nil {
		return line, "unchanged"
	}
	s := string(line)
	switch rng.IntN(6) {
	case 0:
		return []byte(strings.ReplaceAll(s, `":`, `": `)), "spaces"
	case 1:
		return []byte(strings.Replace(s, `"type"`, `"ty\u0070e"`, 1)), "escaped-key"
	case 2:
		if i := strings.LastIndexByte(s, '}'); i > 0 {
			return []byte(s[:i] + `,"type":"duplicate-key"` + s[i:]), "duplicate-key"
		}
	case 3:
		return []byte(strings.Replace(s, `{"type"`, `{"7":1,"type"`, 1)), "integer-key"
	case 4:
		if loc := numberRE.FindStringSubmatchIndex(s); loc != nil {
			return []byte(s[:loc[3]] + ".0" + s[loc[3]:]), "number-form"
		}
	}
	return []byte(strings.ReplaceAll(s, "/", `\/`)), "escaped-slash"
}

// Package jsjson models how OpenClaw's Node code sees and rewrites a JSONL transcript:
// fs.readFile(path, "utf-8") (WHATWG UTF-8 decoding, each maximal ill-formed subsequence
// becoming U+FFFD), content.split(/\r?\n/), line.trim() (JavaScript's white space),
// JSON.parse and JSON.stringify (property order with array-index keys first, the last of
// duplicate keys, Number formatting, escapes and lone surrogates as V8 writes them).
//
// The JSON half is jsonobj.Canonical and the trim is session.IsBlank; this package adds the
// decoding and splitting. The conformance harness uses it to tell a difference of serialisation (clawdoctor keeps a
// line's bytes, OpenClaw rewrites it with JSON.stringify) from a difference of content, without
// Node: offline tests compare against recorded oracle output. The live run checks this model
// against V8 itself on every input (the driver's "canon" request).
package jsjson

import (
	"errors"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/internal/session"
)

// ErrSyntax is returned for a line JSON.parse rejects.
var ErrSyntax = errors.New("JSON.parse would throw")

// Decode decodes b as Node's Buffer.toString("utf8") does (jsonobj.DecodeUTF8).
func Decode(b []byte) string { return string(jsonobj.DecodeUTF8(b)) }

// Lines splits a decoded file as content.split(/\r?\n/) does.
func Lines(text string) []string {
	parts := strings.Split(text, "\n")
	for i, p := range parts {
		parts[i] = strings.TrimSuffix(p, "\r")
	}
	return parts
}

// Canon returns JSON.stringify(JSON.parse(line)) for one decoded line, or ErrSyntax.
func Canon(line string) (string, error) {
	out, err := jsonobj.Canonical([]byte(line))
	if err != nil {
		return "", ErrSyntax
	}
	return string(out), nil
}

// Blank reports whether !line.trim() holds in JavaScript (session.IsBlank).
func Blank(line string) bool { return session.IsBlank(line) }

// File is the text OpenClaw's repair would write for data if it rewrote every line it keeps:
// decoded, split, blank lines (JavaScript trim) skipped, each line
// JSON.stringify(JSON.parse(line)), joined with "\n" plus a final "\n". A line JSON.parse
// rejects is kept as "\x00<line>" so it still takes part in comparisons (OpenClaw would drop it).
func File(data []byte) string {
	var out strings.Builder
	for _, l := range Lines(Decode(data)) {
		if Blank(l) {
			continue
		}
		c, err := Canon(l)
		if err != nil {
			c = "\x00" + l
		}
		out.WriteString(c)
		out.WriteByte('\n')
	}
	return out.String()
}

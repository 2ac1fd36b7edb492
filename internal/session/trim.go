package session

import (
	"unicode/utf8"

	"github.com/clawdoctor/clawdoctor/jsonl"
)

// Every OpenClaw release reads a transcript as pi's loader does: JSON.parse of each line of
// content.trim().split("\n"), untrimmed (JSON.parse allows only ASCII white space around a
// value). So the start of the first line and the end of the last line holding anything but
// white space lose their JavaScript white space (U+FEFF, NBSP, VT, FF, U+2028, ...) before
// they are parsed, and are read where the same padding on any other line makes that line
// unreadable (mutation 7591 of seed 6: a U+FEFF glued after the last entry; mutation 4748: a
// second BOM before the first entry of a file without a header, which every release reads).

// jsTrimEnd returns the length of b without the JavaScript white space at its end.
// Ill-formed UTF-8 is U+FFFD to JavaScript: not white space.
func jsTrimEnd(b []byte) int {
	j := len(b)
	for j > 0 {
		r, n := utf8.DecodeLastRune(b[:j])
		if r == utf8.RuneError && n <= 1 || !isJSSpace(r) {
			break
		}
		j -= n
	}
	return j
}

// hasContent reports whether l holds anything but JavaScript white space (pi's loader skips
// a line whose trim() is empty, and content.trim() takes such lines off the end).
func hasContent(l *jsonl.Line) bool {
	return !l.Has(jsonl.FlagBlank) && (l.Has(jsonl.FlagTooLong) || jsTrimEnd(l.Bytes) > 0)
}

// jsTrimStart returns the length of the JavaScript white space b starts with.
func jsTrimStart(b []byte) int {
	i := 0
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 || !isJSSpace(r) {
			break
		}
		i += n
	}
	return i
}

// narrowed is l reduced to Bytes[i:j], with Offset and Size of those bytes in the stream.
func narrowed(l jsonl.Line, i, j int) jsonl.Line {
	t := l
	t.Offset += int64(i)
	if l.Has(jsonl.FlagBOM) {
		t.Offset += 3 // Bytes start after the BOM the reader took off line 1
	}
	t.Bytes, t.Size = l.Bytes[i:j:j], int64(j-i)
	t.Flags &^= jsonl.FlagBOM | jsonl.FlagNoNewline | jsonl.FlagCRLF
	return t
}

// startTrimmed returns l without the JavaScript white space at its start, when it has some
// (the first line with content: content.trim() takes it off whatever follows).
func startTrimmed(l jsonl.Line) (jsonl.Line, bool) {
	if l.Has(jsonl.FlagTooLong) || l.Has(jsonl.FlagBlank) {
		return l, false
	}
	i := jsTrimStart(l.Bytes)
	if i == 0 || i == len(l.Bytes) {
		return l, false
	}
	return narrowed(l, i, len(l.Bytes)), true
}

// endTrimmed returns l without the JavaScript white space at its end, when that removes
// anything and leaves a line valid says is JSON.
func endTrimmed(l jsonl.Line, valid func([]byte) bool) (jsonl.Line, bool) {
	if l.Has(jsonl.FlagTooLong) || l.Has(jsonl.FlagBlank) {
		return l, false
	}
	j := jsTrimEnd(l.Bytes)
	if j == len(l.Bytes) || j == 0 || !valid(l.Bytes[:j]) {
		return l, false
	}
	return narrowed(l, 0, j), true
}

// TrimContent trims the start of the first line of lines (each without its terminator) that
// holds anything but white space, and the end of the last such line when it is JSON only once
// trimmed: what the index and the scan do with TrimContent, for lines in memory. valid nil
// means jsonl.Valid.
func TrimContent(lines [][]byte, valid func([]byte) bool) {
	if valid == nil {
		valid = jsonl.Valid
	}
	for k, b := range lines {
		if !IsBlank(string(b)) {
			lines[k] = b[jsTrimStart(b):]
			break
		}
	}
	for k := len(lines) - 1; k >= 0; k-- {
		b := lines[k]
		if IsBlank(string(b)) {
			continue // a white-space line: content.trim() took it off
		}
		if j := jsTrimEnd(b); j < len(b) && !valid(b) && valid(b[:j]) {
			lines[k] = b[:j]
		}
		return
	}
}

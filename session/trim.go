package session

import (
	"unicode/utf8"

	"github.com/clawdoctor/clawdoctor/jsonl"
)

// Every OpenClaw release reads a transcript as pi's loader does: JSON.parse of each line of
// content.trim().split("\n"), untrimmed (JSON.parse allows only ASCII white space around a
// value). So the end of the last line holding anything but white space loses its JavaScript
// white space (U+FEFF, NBSP, VT, FF, U+2028, ...) before it is parsed, and is read where the
// same padding on any other line makes that line unreadable (mutation 7591 of seed 6: a
// U+FEFF glued after the last entry, which every release reads and replay skipped). The start
// of the first line, which content.trim() trims too, is the replay's own business (it reads
// the trimmed content again when the header is unreadable).

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

// endTrimmed returns l without the JavaScript white space at its end, with Size the trimmed
// bytes' (Offset is unchanged: the line starts where it did, after line 1's BOM), when that
// removes anything and leaves a line valid says is JSON.
func endTrimmed(l jsonl.Line, valid func([]byte) bool) (jsonl.Line, bool) {
	if l.Has(jsonl.FlagTooLong) || l.Has(jsonl.FlagBlank) {
		return l, false
	}
	j := jsTrimEnd(l.Bytes)
	if j == len(l.Bytes) || j == 0 || !valid(l.Bytes[:j]) {
		return l, false
	}
	t := l
	t.Bytes, t.Size = l.Bytes[:j:j], int64(j)
	if l.Has(jsonl.FlagBOM) {
		t.Offset += 3 // Bytes start after the BOM the reader took off line 1
	}
	t.Flags &^= jsonl.FlagBOM | jsonl.FlagNoNewline | jsonl.FlagCRLF
	return t, true
}

// TrimContentEnd trims the end of the last line of lines (each without its terminator) that
// holds anything but white space, when it is JSON only once trimmed: what the index and the
// scan do with TrimEnd, for lines in memory. valid nil means jsonl.Valid.
func TrimContentEnd(lines [][]byte, valid func([]byte) bool) {
	if valid == nil {
		valid = jsonl.Valid
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

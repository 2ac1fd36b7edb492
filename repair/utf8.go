package repair

import (
	"context"
	"fmt"
	"io"

	"github.com/clawdoctor/clawdoctor/jsonl"
)

// planInvalidUTF8 is the plan of Options.OnlyInvalidUTF8: every line holding bytes that are not
// UTF-8 is rewritten with each invalid sequence replaced by U+FFFD, the way Node decodes the
// file for OpenClaw's JSONL-era runtime (so the entries read the same), and nothing else
// changes. OpenClaw's import into SQLite reads through a fatal UTF-8 decoder and stops at the
// first such byte, leaving out every entry after it (migration.Predict): doctor --fix --yes
// plans this before a file is imported.
func planInvalidUTF8(ctx context.Context, open func() (io.ReadCloser, error), name string, opts Options) (*Plan, error) {
	rc, err := open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	plan := &Plan{Empty: "no invalid UTF-8"}
	r := jsonl.NewReader(jsonl.ContextReader(ctx, rc), jsonl.Options{MaxLine: opts.MaxLine})
	var size int64
	for {
		l, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		size = l.Offset + l.Size
		if !l.Has(jsonl.FlagInvalidUTF8) || l.Has(jsonl.FlagTooLong) {
			continue
		}
		off := l.Offset
		if l.Has(jsonl.FlagBOM) {
			off += 3
		}
		fixed := ReplaceInvalidUTF8(l.Bytes)
		plan.Edits = append(plan.Edits, Edit{Off: off, End: off + int64(len(l.Bytes)), Repl: []Piece{{Lit: fixed}}})
		plan.Counts.ReplacedInvalidUTF8Lines++
		plan.Changes = append(plan.Changes, Change{Line: l.Num, Action: "replace-invalid-utf8",
			Reason: "bytes that are not UTF-8 replaced by U+FFFD, as OpenClaw's runtime read them (its SQLite import stops at them)"})
	}
	plan.BytesBefore = size
	plan.BytesAfter = size
	for _, e := range plan.Edits {
		plan.BytesAfter += int64(len(e.Repl[0].Lit)) - (e.End - e.Off)
	}
	return plan, nil
}

// ReplaceInvalidUTF8 replaces each maximal ill-formed subsequence of b with U+FFFD, as the
// WHATWG decoder (Node's Buffer.toString, TextDecoder) does: "\xe2\x82A" is one U+FFFD and
// an "A", "\xff\xfe" two.
func ReplaceInvalidUTF8(b []byte) []byte {
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x80 {
			out = append(out, c)
			i++
			continue
		}
		need, lower, upper := 0, byte(0x80), byte(0xbf)
		switch {
		case c >= 0xc2 && c <= 0xdf:
			need = 1
		case c >= 0xe0 && c <= 0xef:
			need = 2
			if c == 0xe0 {
				lower = 0xa0
			} else if c == 0xed {
				upper = 0x9f
			}
		case c >= 0xf0 && c <= 0xf4:
			need = 3
			if c == 0xf0 {
				lower = 0x90
			} else if c == 0xf4 {
				upper = 0x8f
			}
		default:
			out = append(out, "\uFFFD"...)
			i++
			continue
		}
		j := i + 1
		ok := true
		for k := 0; k < need; k++ {
			if j >= len(b) || b[j] < lower || b[j] > upper {
				ok = false
				break
			}
			lower, upper = 0x80, 0xbf
			j++
		}
		if !ok {
			out = append(out, "\uFFFD"...) // the lead and the continuations that fit: one subpart
			i = j
			continue
		}
		out = append(out, b[i:j]...)
		i = j
	}
	return out
}

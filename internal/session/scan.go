package session

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/clawdoctor/clawdoctor/jsonl"
)

// ItemKind says what one line of a transcript is.
type ItemKind uint8

const (
	// ItemHeader is the session header: the first line that parses, when its type is "session".
	// jsonl strips a UTF-8 BOM before this test; Item.Line has jsonl.FlagBOM then, and pi's
	// loader, which does not strip it, would not see a header (spec §2.11).
	ItemHeader ItemKind = iota
	// ItemEntry is a JSON object that is not a header: a tree entry (Item.Entry is set).
	ItemEntry
	// ItemStrayHeader is a later line of type "session". pi keeps only the first header and
	// leaves every "session" line out of the tree.
	ItemStrayHeader
	// ItemBlank is an empty or whitespace-only line (pi and OpenClaw skip it silently).
	ItemBlank
	// ItemInvalid is a line that is not JSON, or longer than the line cap (Item.Err says which).
	ItemInvalid
	// ItemNotObject is valid JSON that is not an object (null, 42, "x", [1]): OpenClaw's repair
	// keeps it, pi's loader keeps it out of the tree.
	ItemNotObject
)

var itemKindNames = [...]string{"header", "entry", "stray-header", "blank", "invalid", "not-object"}

func (k ItemKind) String() string {
	if int(k) < len(itemKindNames) {
		return itemKindNames[k]
	}
	return fmt.Sprintf("ItemKind(%d)", k)
}

// Item is one line of a transcript, classified and decoded.
type Item struct {
	Kind   ItemKind
	Line   jsonl.Line // number, offset, size, byte-level flags; Line.Bytes is valid only in the callback
	Header *Header    // for ItemHeader and ItemStrayHeader
	Entry  *Entry     // for ItemEntry; Entry.Raw is a copy the callback may keep
	Err    error      // for ItemInvalid and ItemNotObject: a *LineError naming file and line
}

// ScanOptions tune Scan.
type ScanOptions struct {
	MaxLine int // line cap passed to jsonl.Reader; 0 means jsonl.DefaultMaxLine
	// TrimContent reads the first and last lines with content as OpenClaw does (trim.go,
	// content.trim()). A line that is JSON only without the JavaScript white space at its end
	// waits until a later line with content or the end: blank lines after it are passed to fn
	// before it.
	TrimContent bool
}

// ErrStop may be returned by a Scan callback to end the scan early without an error.
var ErrStop = errors.New("stop scan")

// Scan reads a transcript from r and calls fn for every line, in order, with what the line is:
// header, entry, stray header, blank, invalid or not an object. Bad lines are reported, never
// dropped silently, and never end the scan. name is used in errors only. Memory is bounded by
// the line cap. fn's error ends the scan and is returned (ErrStop ends it with nil).
func Scan(ctx context.Context, r io.Reader, name string, opts ScanOptions, fn func(Item) error) error {
	rd := jsonl.NewReader(jsonl.ContextReader(ctx, r), jsonl.Options{MaxLine: opts.MaxLine})
	sawParsed := false // a line parsed as JSON: the header slot is taken
	// TrimContent: an invalid line that is JSON once its end is trimmed waits (a copy) until
	// a later line with content shows it is not the last one, or the stream ends.
	var held, heldTrim jsonl.Line
	seenContent := false
	emit := func(it Item) error {
		if err := fn(it); err != nil {
			if errors.Is(err, ErrStop) {
				return errStopped
			}
			return err
		}
		return nil
	}
	done := func(err error) error {
		if err == errStopped {
			return nil
		}
		return err
	}
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		l, err := rd.Next()
		if err == io.EOF {
			if held.Num > 0 {
				return done(emit(classifyLine(heldTrim, name, &sawParsed)))
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if held.Num > 0 && hasContent(&l) {
			if err := emit(classifyLine(held, name, &sawParsed)); err != nil {
				return done(err)
			}
			held = jsonl.Line{}
		}
		if opts.TrimContent && !seenContent && hasContent(&l) {
			seenContent = true
			if t, ok := startTrimmed(l); ok {
				l = t
			}
		}
		it := classifyLine(l, name, &sawParsed)
		if opts.TrimContent && it.Kind == ItemInvalid && !hasContent(&l) {
			it = Item{Kind: ItemBlank, Line: l} // JavaScript white space only: pi skips it as blank
		}
		if it.Kind == ItemInvalid && opts.TrimContent {
			if t, ok := endTrimmed(l, jsonl.Valid); ok {
				held, heldTrim = l, t
				held.Bytes = append([]byte(nil), l.Bytes...)
				heldTrim.Bytes = held.Bytes[:len(t.Bytes):len(t.Bytes)]
				continue
			}
		}
		if err := emit(it); err != nil {
			return done(err)
		}
	}
}

// errStopped is ErrStop passed through Scan's emit.
var errStopped = errors.New("scan stopped")

// ScanFile opens path (plain, gzip or zstd, found by magic bytes) and calls Scan. counted, when
// not nil, receives on-disk bytes as they are read, for a progress bar.
func ScanFile(ctx context.Context, path string, opts ScanOptions, counted func(int64), fn func(Item) error) error {
	f, err := jsonl.Open(path, counted)
	if err != nil {
		return err
	}
	defer f.Close()
	return Scan(ctx, f, path, opts, fn)
}

// classifyLine decides what one line is. sawParsed tracks whether an earlier line parsed, so
// that only the first parsed line can be the header (pi's and OpenClaw's rule).
func classifyLine(l jsonl.Line, name string, sawParsed *bool) Item {
	it := Item{Line: l}
	switch {
	case l.Has(jsonl.FlagTooLong):
		it.Kind = ItemInvalid
		it.Err = &LineError{Path: name, Line: l.Num, Err: jsonl.ErrLineTooLong}
		return it
	case l.Has(jsonl.FlagBlank):
		it.Kind = ItemBlank
		return it
	}
	e, err := DecodeEntry(l.Bytes)
	switch {
	case errors.Is(err, ErrNotObject):
		*sawParsed = true
		it.Kind = ItemNotObject
		it.Err = &LineError{Path: name, Line: l.Num, Err: err}
		return it
	case err != nil:
		it.Kind = ItemInvalid
		it.Err = &LineError{Path: name, Line: l.Num, Err: err}
		return it
	}
	first := !*sawParsed
	*sawParsed = true
	if e.Type == TypeSession {
		h, _, herr := DecodeHeader(e.Raw)
		if herr != nil {
			// Cannot happen for a line DecodeEntry accepted, but never lose the line.
			it.Kind = ItemInvalid
			it.Err = &LineError{Path: name, Line: l.Num, Err: herr}
			return it
		}
		it.Header = &h
		if first {
			it.Kind = ItemHeader
		} else {
			it.Kind = ItemStrayHeader
		}
		return it
	}
	it.Kind = ItemEntry
	it.Entry = e
	return it
}

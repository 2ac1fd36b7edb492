// Package report renders every result for people (tables via tablewriter v1), for scripts
// (JSON) and for issues (Markdown). It is the only human-output formatter; all formats are
// golden-tested so their bytes stay stable.
package report

import (
	"encoding/json"
	"io"
	"os"
	"strconv"

	"golang.org/x/term"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Format selects an output format.
type Format string

const (
	Text     Format = "text"
	JSON     Format = "json"
	Markdown Format = "markdown"
	SARIF    Format = "sarif"
)

// NewTable returns a byte-stable ASCII table: no header upper-casing, left-aligned headers,
// no wrapping.
func NewTable(w io.Writer) *tablewriter.Table {
	return tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
	)
}

// NewMarkdownTable returns a GitHub-flavoured Markdown table.
func NewMarkdownTable(w io.Writer) *tablewriter.Table {
	return tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewMarkdown()),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
	)
}

// WriteJSON writes v as indented JSON with a final newline, without HTML escaping.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Color reports whether ANSI colour may be used on w: a terminal that shows it (not
// TERM=dumb; on Windows a console that accepts virtual-terminal sequences, see vt_windows.go)
// and NO_COLOR unset.
func Color(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return colorOn(os.Getenv("NO_COLOR"), os.Getenv("TERM"), err == nil && st.Mode()&os.ModeCharDevice != 0, func() bool { return enableVT(f) })
}

// colorOn is Color's decision: vt is asked last, only for a terminal (it may change the
// console's mode).
func colorOn(noColor, termName string, terminal bool, vt func() bool) bool {
	return noColor == "" && termName != "dumb" && terminal && vt()
}

// Width is the column count text output to w wraps at: the terminal's width, else $COLUMNS,
// else 0 (no wrapping: a CI log or a pipe gets one line per finding).
func Width(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if c, _, err := term.GetSize(int(f.Fd())); err == nil && c > 0 {
			return c
		}
	}
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
		return c
	}
	return 0
}

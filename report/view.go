package report

import (
	"fmt"
	"io"

	"github.com/clawdoctor/clawdoctor/internal/view"
)

// ViewPageLimit caps the session pages listed in text output (JSON lists them all).
const ViewPageLimit = 20

// View renders what clawdoctor view wrote: JSON for scripts, or one line per page (entries,
// findings, size) and the page to open.
func View(w io.Writer, res *view.Result, f Format) error {
	if f != JSON {
		res = escaped(res)
	}
	if f == JSON {
		return WriteJSON(w, res)
	}
	red := ""
	if res.Redacted {
		red = " (redacted)"
	}
	for i, p := range res.Pages {
		if i == ViewPageLimit {
			fmt.Fprintf(w, "... and %d more session pages\n", len(res.Pages)-ViewPageLimit)
			break
		}
		fmt.Fprintf(w, "wrote %s%s: %d entries, %d findings, %s\n", p.Path, red, p.Entries, p.Findings, fixtureBytes(p.Bytes))
	}
	for _, f := range res.Failed {
		fmt.Fprintf(w, "no page for %s\n", f)
	}
	if res.Index != "" {
		fmt.Fprintf(w, "wrote %s%s: index of %d session pages\n", res.Index, red, len(res.Pages))
	}
	if m := res.Main(); m != "" {
		fmt.Fprintf(w, "open %s in a browser (it works offline, from file://)\n", m)
	}
	return nil
}

package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/clawdoctor/clawdoctor/fixtures"
)

// Fixtures renders what fixtures generate wrote into dir.
func Fixtures(w io.Writer, dir string, m fixtures.Manifest, f Format) error {
	if f != JSON {
		dir, m = Escape(dir), escaped(m)
	}
	if f == JSON {
		return WriteJSON(w, m)
	}
	fmt.Fprintf(w, "wrote %s: %d agents, %d transcripts, %d entries, %s of transcripts, %d files\n",
		dir, len(m.Agents), m.Transcripts, m.Entries, fixtureBytes(m.TotalBytes), m.Files)
	if m.GatewayLog != "" {
		fmt.Fprintf(w, "gateway log: %s\n", m.GatewayLog)
	}
	if len(m.Faults) == 0 {
		fmt.Fprintf(w, "no faults injected; manifest: %s/%s\n", dir, fixtures.ManifestName)
		return nil
	}
	counts := map[string]int{}
	rules := map[string]string{}
	for _, ft := range m.Faults {
		counts[ft.Kind]++
		rules[ft.Kind] = ft.Rule
	}
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	t := NewTable(w)
	t.Header("fault", "rule", "count")
	for _, k := range kinds {
		if err := t.Append(k, rules[k], counts[k]); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d faults; where each one is: %s/%s\n", len(m.Faults), dir, fixtures.ManifestName)
	return nil
}

// FixtureList renders the catalog of small fixtures.
func FixtureList(w io.Writer, list []fixtures.Fixture, f Format) error {
	if f == JSON {
		return WriteJSON(w, list)
	}
	t := NewTable(w)
	t.Header("fixture", "rules", "defect")
	for _, fx := range list {
		rules := strings.Join(fx.Rules, ",")
		if fx.Clean() {
			rules = "(clean)"
		}
		defect := fx.Defect
		if defect == "" {
			defect = fx.Repair
		}
		if err := t.Append(fx.Name, rules, defect); err != nil {
			return err
		}
	}
	return t.Render()
}

func fixtureBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// FixturesDemo tells where fixtures demo wrote the sample state dir.
func FixturesDemo(w io.Writer, dir string) error {
	_, err := fmt.Fprintf(w, "wrote the demo state dir to %s\ntry: clawdoctor --state-dir %s doctor\n", dir, dir)
	return err
}

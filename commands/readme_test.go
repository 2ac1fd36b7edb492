package commands

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/audit"
)

// TestReadmeRules keeps the README's rule table equal to audit.Rules; -update rewrites it.
func TestReadmeRules(t *testing.T) {
	var b strings.Builder
	b.WriteString("| rule | severity | what it means |\n| --- | --- | --- |\n")
	for _, r := range audit.Rules {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.ID, r.Severity, strings.ReplaceAll(r.Description, "|", `\|`))
	}
	const path = "../README.md"
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- rules:begin -->\n", "<!-- rules:end -->"
	i, j := strings.Index(string(readme), begin), strings.Index(string(readme), end)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the %q … %q markers", begin, end)
	}
	got := string(readme[i+len(begin) : j])
	if got == b.String() {
		return
	}
	if *update {
		out := string(readme[:i+len(begin)]) + b.String() + string(readme[j:])
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md rule table differs from audit.Rules; run go test ./commands -run TestReadmeRules -update")
}

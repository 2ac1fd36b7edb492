package replaycheck

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A golden file records, per input and target (or setting), what the oracle answered, so
// `go test ./...` checks the same comparisons without Node. Corpus inputs are recorded by
// digest and shape only (no text). Lines:
//
//	<input> <target> <oracle digest> <shape>                                 (replay)
//	<input> <target> <oracle digest> <shape> deliberate=<our digest>:<what>   (replay, set aside)
//	<input> <setting> <canonical JSON of the answer>                          (compaction)

// GoldenLine is one recorded comparison.
type GoldenLine struct {
	Input, Target string
	Digest, Shape string // replay
	OurDigest     string // replay, when a deliberate difference was set aside
	Deliberate    string
	JSON          string // compaction
}

func (g GoldenLine) String() string {
	if g.JSON != "" {
		return fmt.Sprintf("%s %s %s", g.Input, g.Target, g.JSON)
	}
	shape := strings.ReplaceAll(g.Shape, " ", "_")
	if shape == "" {
		shape = "-" // no message sent
	}
	s := fmt.Sprintf("%s %s %s %s", g.Input, g.Target, g.Digest, shape)
	if g.Deliberate != "" {
		s += fmt.Sprintf(" deliberate=%s:%s", g.OurDigest, strings.ReplaceAll(g.Deliberate, " ", "_"))
	}
	return s
}

// GoldenPath is testdata/<release>/<engine>.golden.
func GoldenPath(release, engine string) string {
	return filepath.Join(repoDir(), "internal", "conformance", "replaycheck", "testdata", release, engine+".golden")
}

// ReadGolden reads a golden file (nil and no error when it does not exist).
func ReadGolden(path string) ([]GoldenLine, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []GoldenLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, " ", 3)
		if len(f) < 3 {
			return nil, fmt.Errorf("%s:%d: short line", path, n)
		}
		g := GoldenLine{Input: f[0], Target: f[1]}
		if strings.HasPrefix(f[2], "{") {
			g.JSON = f[2]
		} else {
			rest := strings.Fields(f[2])
			g.Digest = rest[0]
			if len(rest) > 1 && rest[1] != "-" {
				g.Shape = strings.ReplaceAll(rest[1], "_", " ")
			}
			for _, r := range rest[min(2, len(rest)):] {
				if d, ok := strings.CutPrefix(r, "deliberate="); ok {
					ours, what, _ := strings.Cut(d, ":")
					g.OurDigest, g.Deliberate = ours, strings.ReplaceAll(what, "_", " ")
				}
			}
		}
		out = append(out, g)
	}
	return out, sc.Err()
}

// WriteGolden writes lines sorted, with a header saying how to re-record them.
func WriteGolden(path, header string, lines []GoldenLine) error {
	sort.Slice(lines, func(i, j int) bool {
		if lines[i].Input != lines[j].Input {
			return lines[i].Input < lines[j].Input
		}
		return lines[i].Target < lines[j].Target
	})
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(header), "\n") {
		b.WriteString("# " + l + "\n")
	}
	for _, g := range lines {
		b.WriteString(g.String() + "\n")
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// tally counts comparisons: equal, a listed deliberate difference (and which), different.
type tally struct {
	compared, equal, deliberate int
	byDeliberate                map[string]int
}

// add counts v and prints its line to w (nil: no line).
func (t *tally) add(w io.Writer, key, target string, v Verdict) {
	t.compared++
	switch {
	case !v.Equal:
	case len(v.Deliberate) > 0:
		t.deliberate++
		if t.byDeliberate == nil {
			t.byDeliberate = map[string]int{}
		}
		for _, d := range v.Deliberate {
			t.byDeliberate[d]++
		}
	default:
		t.equal++
	}
	if w != nil {
		fmt.Fprintf(w, "%s %s: %s\n", key, target, describe(v))
	}
}

// deliberateLines are "  deliberate, <what>: <count>", sorted.
func (t tally) deliberateLines() []string {
	var out []string
	for d, n := range t.byDeliberate {
		out = append(out, fmt.Sprintf("  deliberate, %s: %d", d, n))
	}
	sort.Strings(out)
	return out
}

func (t tally) String() string {
	return fmt.Sprintf("%d compared, %d equal, %d deliberate, %d different", t.compared, t.equal, t.deliberate,
		t.compared-t.equal-t.deliberate)
}

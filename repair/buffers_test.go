package repair

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/jsonl"
)

// chunkReader returns its data in reads of random sizes, so lines end anywhere in a read.
type chunkReader struct {
	data []byte
	rng  *rand.Rand
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(r.data), 1+r.rng.Intn(100<<10))
	copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

// TestPlanAcrossReadBuffers plans a damaged transcript whose lines cross the reader's
// buffers (which the scan workers and the planner share without a copy, readLines): a valid
// line longer than one buffer, one longer than the line cap, and the crash damage around
// them. Each line's verdict must be the one jsonl.Valid gives it alone (a change for every
// line that is not valid JSON and not blank, none for a valid one), the line over the cap
// noted at its number, and the plan the same whatever sizes the reads come in.
func TestPlanAcrossReadBuffers(t *testing.T) {
	damaged, _ := crashInput(6<<20, 7)
	cut := bytes.IndexByte(damaged[3<<20:], '\n') + 3<<20 + 1
	long := fmt.Sprintf(`{"type":"message","id":"long1","parentId":null,"message":{"role":"user","content":%q}}`,
		strings.Repeat("x", batchBytes+batchBytes/2))
	over := `{"type":"custom","data":"` + strings.Repeat("y", 3<<20) + `"}`
	var data []byte
	data = append(data, damaged[:cut]...)
	data = append(data, long+"\n"+over+"\n"...)
	data = append(data, damaged[cut:]...)
	opts := Options{MaxLine: 2 << 20}

	open := func(r func() io.Reader) func() (io.ReadCloser, error) {
		return func() (io.ReadCloser, error) { return io.NopCloser(r()), nil }
	}
	whole, err := PlanStream(context.Background(), open(func() io.Reader { return bytes.NewReader(data) }), "s1.jsonl", opts)
	if err != nil {
		t.Fatal(err)
	}
	changed := map[int64]bool{}
	for _, c := range whole.Changes {
		changed[c.Line] = true
	}
	if len(whole.Changes) >= maxDetails {
		t.Fatalf("%d changes: the details are capped, the test cannot see every line", len(whole.Changes))
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	overLine := int64(0)
	bad := 0
	for i, l := range lines {
		n := int64(i + 1)
		switch {
		case len(l) > opts.MaxLine:
			overLine = n
		case jsonl.Valid(l) || len(bytes.TrimSpace(l)) == 0:
			if changed[n] {
				t.Errorf("line %d is valid JSON but has a change", n)
			}
		default:
			bad++
			if !changed[n] {
				t.Errorf("line %d is not valid JSON but has no change: %.60q", n, l)
			}
		}
	}
	if bad == 0 || whole.Lines != int64(len(lines)) {
		t.Fatalf("%d bad lines, %d planned of %d: the input lacks its damage", bad, whole.Lines, len(lines))
	}
	noted := false
	for _, n := range whole.Notes {
		noted = noted || n.Line == overLine && strings.Contains(n.What, "longer than the line cap")
	}
	if !noted {
		t.Errorf("line %d over the cap is not noted: %+v", overLine, whole.Notes)
	}
	for seed := int64(1); seed <= 3; seed++ {
		chunked, err := PlanStream(context.Background(), open(func() io.Reader {
			return &chunkReader{data: data, rng: rand.New(rand.NewSource(seed))}
		}), "s1.jsonl", opts)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(chunked, whole) {
			t.Fatalf("reads of random sizes (seed %d) give another plan: %d edits, %d changes; %d, %d",
				seed, len(chunked.Edits), len(chunked.Changes), len(whole.Edits), len(whole.Changes))
		}
	}
}

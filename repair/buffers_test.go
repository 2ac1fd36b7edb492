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
	"unsafe"

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

// TestPlanMembersPastSlab plans a transcript whose entries have so many members that a read
// buffer's lines hold more than its share of the slab (slabMembers), and fewer than the most
// a batch keeps: the scan worker appends past its share into an array of its own, and must not
// write into the next batch's share, which another worker fills at the same time. Every
// entry's role follows its other members, so a member overwritten by the neighbour shows as a
// role-less message that the plan drops, or a dropped one that it keeps.
func TestPlanMembersPastSlab(t *testing.T) {
	var pad strings.Builder
	for i := range 30 {
		fmt.Fprintf(&pad, `"k%d":%d,`, i, i%10)
	}
	text := strings.Repeat("t", 1500)
	var data bytes.Buffer
	data.WriteString(`{"type":"session","version":3,"id":"s1","timestamp":"2026-03-02T00:00:00.000Z","cwd":"/"}` + "\n")
	want := map[int64]bool{}
	lineLen := 0
	for i := 1; data.Len() < 24<<20; i++ {
		role := `"role":"user",`
		if i%97 == 0 {
			role = ""
			want[int64(i+1)] = true
		}
		n := data.Len()
		fmt.Fprintf(&data, `{"type":"message","id":"m%d","parentId":"m%d","message":{%s%s"content":"%s"}}`+"\n", i, i-1, pad.String(), role, text)
		lineLen = data.Len() - n
	}
	// 5 members at depth 1, 32 in the message
	perBatch := batchBytes / lineLen * 37
	kept := 4 * batchBytes / int(unsafe.Sizeof(jsonl.Member{}))
	if perBatch < slabMembers*5/4 || perBatch > kept*3/4 {
		t.Fatalf("about %d members in a read buffer: want past the slab's %d and under the %d a batch keeps", perBatch, slabMembers, kept)
	}
	plan, err := PlanStream(context.Background(), func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data.Bytes())), nil
	}, "s1.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Changes) >= maxDetails {
		t.Fatalf("%d changes: the details are capped", len(plan.Changes))
	}
	got := map[int64]bool{}
	for _, c := range plan.Changes {
		if c.Action == "drop" && c.Reason == "message entry without a role" {
			got[c.Line] = true
		} else {
			t.Errorf("line %d: unexpected change %s: %s", c.Line, c.Action, c.Reason)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("dropped %d lines, want the %d role-less ones", len(got), len(want))
		n := 0
		for l := range want {
			if !got[l] && n < 5 {
				t.Errorf("line %d is role-less and kept", l)
				n++
			}
		}
		for l := range got {
			if !want[l] && n < 10 {
				t.Errorf("line %d has a role and is dropped", l)
				n++
			}
		}
	}
}

package audit

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// randomDetails makes details that exercise every packed field: lines that go back and jump,
// timestamps that go backwards, previews anywhere in the arena, small and raw keys, rare facts.
func randomDetails(rng *rand.Rand, n int) []detail {
	ds := make([]detail, n)
	line, ts := int64(1), int64(1775001604378)
	for i := range ds {
		d := &ds[i]
		switch rng.IntN(8) {
		case 0:
			line += rng.Int64N(1 << 40)
		case 1:
			line -= rng.Int64N(100)
		default:
			line++
		}
		switch rng.IntN(6) {
		case 0:
			ts = 0
		case 1:
			ts -= rng.Int64N(1 << 50)
		case 2:
			ts = math.MinInt64 + rng.Int64N(10)
		default:
			ts += rng.Int64N(5000)
		}
		d.line, d.ts = line, ts
		if rng.IntN(2) == 0 {
			d.extra = cref(rng.Uint64N(1<<(64-crefLenBits))<<crefLenBits | rng.Uint64N(1<<crefLenBits))
			if d.extra == 0 {
				d.extra = 1
			}
		}
		switch rng.IntN(4) {
		case 0:
			d.extraKey = rng.Uint64N(smallKeyMax)
		case 1:
			d.extraKey = rng.Uint64()
		case 2:
			d.extraKey = math.MaxUint64
		}
		if rng.IntN(5) == 0 {
			d.rare = rng.Int32()
		}
		if rng.IntN(3) == 0 {
			d.callN = uint16(rng.Uint32())
		}
		d.model = uint16(rng.IntN(4))
		if rng.IntN(50) == 0 {
			d.model = math.MaxUint16
		}
	}
	return ds
}

// TestDetailLogRoundTrip: what a detailLog gives back is what was added, read in order, at
// random and through a reader, with the packed blocks in memory and spilled to disk.
func TestDetailLogRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n      int
		budget int
	}{
		{"empty", 0, 1 << 20},
		{"one partial block", 5, 1 << 20},
		{"one full block", detailBlock, 1 << 20},
		{"blocks and a partial one", 10*detailBlock + 17, 1 << 20},
		{"spilled", 3000*detailBlock + 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tc.n)))
			want := randomDetails(rng, tc.n)
			l := newDetailLog(tc.budget)
			defer l.close()
			for i, d := range want {
				if got := l.add(d); got != i {
					t.Fatalf("add returned %d, want %d", got, i)
				}
			}
			if l.len() != tc.n {
				t.Fatalf("len %d, want %d", l.len(), tc.n)
			}
			if tc.budget == 1 && l.b.spills == 0 {
				t.Fatal("the log did not spill")
			}
			for _, r := range []*detailLog{l, l.reader()} {
				for i := range want {
					if got := r.at(i); got != want[i] {
						t.Fatalf("at(%d) in order = %+v, want %+v", i, got, want[i])
					}
				}
				for range min(tc.n, 2000) {
					i := rng.IntN(tc.n)
					if got := r.at(i); got != want[i] {
						t.Fatalf("at(%d) at random = %+v, want %+v", i, got, want[i])
					}
				}
			}
			if l.b.err != nil {
				t.Fatal(l.b.err)
			}
		})
	}
}

// TestDetailPacking: the details of a transcript of tiny entries pack to a few bytes each (the
// point of packing), and a block cut short is an error, not details made up.
func TestDetailPacking(t *testing.T) {
	var ds []detail
	ts := int64(1775001604378)
	for i := range detailBlock {
		ts += int64(1000 + i*37%4000)
		d := detail{line: int64(i + 2), ts: ts, model: uint16(i % 2)}
		if i%2 == 0 {
			d.extra = cref(uint64(i*8)<<crefLenBits | 8) // a user turn's 8-byte preview
		}
		ds = append(ds, d)
	}
	b := packDetails(nil, ds)
	if per := float64(len(b)) / float64(len(ds)); per > 6 {
		t.Errorf("%.1f bytes a detail packed, want at most 6 (40 plain)", per)
	}
	got, err := unpackDetails(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ds, got, cmp.AllowUnexported(detail{})); diff != "" {
		t.Fatalf("unpacked details differ:\n%s", diff)
	}
	cuts := 0
	for n := range len(b) {
		got, err := unpackDetails(nil, b[:n])
		if err == nil && len(got) == len(ds) {
			t.Fatalf("a block cut at %d of %d bytes unpacked whole", n, len(b))
		}
		if err != nil {
			cuts++
		}
		if diff := cmp.Diff(ds[:len(got)], got, cmp.AllowUnexported(detail{})); len(got) > 0 && diff != "" {
			t.Fatalf("cut at %d: the details before the cut differ:\n%s", n, diff)
		}
	}
	if cuts == 0 {
		t.Fatal("no cut block was reported")
	}
}

// FuzzUnpackDetails: any bytes unpack without a panic, and what unpacks packs back to bytes
// that unpack the same.
func FuzzUnpackDetails(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 7))
	f.Add(packDetails(nil, randomDetails(rng, 20)))
	f.Add([]byte{0xff, 0x80})
	f.Add([]byte{pkKeyRaw, 1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		ds, err := unpackDetails(nil, b)
		if err != nil {
			return
		}
		again, err := unpackDetails(nil, packDetails(nil, ds))
		if err != nil {
			t.Fatalf("repacked details do not unpack: %v", err)
		}
		if diff := cmp.Diff(ds, again, cmp.AllowUnexported(detail{})); diff != "" {
			t.Fatalf("repacked details differ:\n%s", diff)
		}
	})
}

// TestChatReadsNoDetails: the checks after the scan read no detail of a chat without tool
// calls or errors (fCalls, fError), and do read them once an error turn is followed by another
// model, which they then report.
func TestChatReadsNoDetails(t *testing.T) {
	chat := func(fallback bool) []byte {
		var b strings.Builder
		b.WriteString(`{"type":"session","version":3,"id":"5d1c0000-0000-4000-8000-00000000000a","timestamp":"2026-05-01T08:00:00.000Z","cwd":"/w"}` + "\n")
		parent := "null"
		for i := range 2000 {
			id := fmt.Sprintf("%08x", i+1)
			var msg string
			switch {
			case i%2 == 0:
				msg = `{"role":"user","content":"hi","timestamp":1}`
			case fallback && i == 1001:
				msg = `{"role":"assistant","content":[],"provider":"anthropic","model":"a","stopReason":"error","errorMessage":"overloaded","timestamp":1}`
			case fallback && i > 1001:
				msg = `{"role":"assistant","content":[{"type":"text","text":"ok"}],"provider":"openai","model":"b","stopReason":"stop","timestamp":1}`
			default:
				msg = `{"role":"assistant","content":[{"type":"text","text":"ok"}],"provider":"anthropic","model":"a","stopReason":"stop","timestamp":1}`
			}
			fmt.Fprintf(&b, `{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-05-01T08:00:01.000Z","message":%s}`+"\n", id, parent, msg)
			parent = `"` + id + `"`
		}
		return []byte(b.String())
	}
	for _, fallback := range []bool{false, true} {
		s := newScan(context.Background(), "t.jsonl", Options{})
		fs, n, err := s.run(bytes.NewReader(chat(fallback)))
		if err != nil || n != 2000 {
			t.Fatalf("fallback %v: %d entries, %v", fallback, n, err)
		}
		chains := 0
		for _, f := range fs {
			if f.Rule == "fallback.chain" {
				chains++
			}
		}
		switch {
		case !fallback && (s.details.decs != 0 || len(fs) != 0):
			t.Errorf("a plain chat: %d detail blocks decoded after the scan, findings %v; want none", s.details.decs, fs)
		case fallback && (s.details.decs == 0 || chains != 1):
			t.Errorf("a chat with a fallback: %d blocks decoded, %d fallback.chain findings; want some and 1", s.details.decs, chains)
		}
	}
}

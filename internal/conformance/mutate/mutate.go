package mutate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Base is a transcript mutations start from.
type Base struct {
	Name string
	Data []byte
}

// Mutation is one mutated transcript.
type Mutation struct {
	Name string   // "mut/<seed>/<index>"
	Base string   // the base it started from
	Ops  []string // what was done, in order, e.g. "flip@1234=0x7b", "splice@5:image-bad/non-ascii/..."
	Data []byte
}

// Matrix returns one well-formed transcript per provider × block × variant round: a plain
// turn and a tool turn of the provider, then the block added three times (each time with a
// variant picked by the seed), then a closing turn. Names are "<provider>/<block>/<round>".
func Matrix(seed uint64, rounds int) []Base {
	var out []Base
	for pi, p := range Providers {
		for bi, bl := range Blocks {
			for r := 0; r < rounds; r++ {
				rng := rand.New(rand.NewPCG(seed, uint64(pi)<<32|uint64(bi)<<16|uint64(r)))
				b := NewBuilder(rng, p)
				b.Turn()
				b.ToolTurn()
				for k := 0; k < 3; k++ {
					bl.Add(b)
				}
				b.Turn()
				out = append(out, Base{Name: fmt.Sprintf("%s/%s/%d", p.Name, bl.Name, r), Data: b.Bytes()})
			}
		}
	}
	return out
}

// One makes mutation i of the set named by seed from bases. It depends on seed, i and bases
// only, so any prefix of a set is the same whatever the set's size.
func One(seed uint64, i int, bases []Base) Mutation {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	base := bases[rng.IntN(len(bases))]
	m := Mutation{Name: fmt.Sprintf("mut/%d/%d", seed, i), Base: base.Name, Data: bytes.Clone(base.Data)}
	n := 1
	switch r := rng.IntN(10); {
	case r >= 9:
		n = 3
	case r >= 6:
		n = 2
	}
	for k := 0; k < n; k++ {
		op := pickOp(rng)
		var what string
		m.Data, what = op.apply(rng, m.Data)
		m.Ops = append(m.Ops, op.name+what)
	}
	return m
}

// Generate makes mutations 0..n-1 of the set named by seed.
func Generate(seed uint64, bases []Base, n int) []Mutation {
	out := make([]Mutation, n)
	for i := range out {
		out[i] = One(seed, i, bases)
	}
	return out
}

type op struct {
	name   string
	weight int
	apply  func(rng *rand.Rand, data []byte) ([]byte, string)
}

var ops = []op{
	{"splice", 30, splice},
	{"flip", 12, flip},
	{"truncate", 6, truncate},
	{"delete-line", 6, deleteLine},
	{"duplicate-line", 6, duplicateLine},
	{"swap-lines", 6, swapLines},
	{"reserialize", 6, reserialize},
	{"glue", 4, glue},
	{"torn", 4, torn},
	{"nul", 4, nul},
	{"invalid-utf8", 4, invalidUTF8},
	{"crlf", 3, crlf},
	{"blank-lines", 3, blankLines},
	{"lone-cr", 2, loneCR},
	{"bom", 2, bom},
	{"no-final-newline", 2, noFinalNewline},
}

func pickOp(rng *rand.Rand) op {
	total := 0
	for _, o := range ops {
		total += o.weight
	}
	r := rng.IntN(total)
	for _, o := range ops {
		if r < o.weight {
			return o
		}
		r -= o.weight
	}
	return ops[0]
}

// lines splits data after each "\n"; the last element may lack one.
func lines(data []byte) [][]byte {
	ls := bytes.SplitAfter(data, []byte("\n"))
	if len(ls) > 0 && len(ls[len(ls)-1]) == 0 {
		ls = ls[:len(ls)-1]
	}
	return ls
}

func join(ls [][]byte) []byte { return bytes.Join(ls, nil) }

func flip(rng *rand.Rand, data []byte) ([]byte, string) {
	if len(data) == 0 {
		return data, "@0(empty)"
	}
	at := rng.IntN(len(data))
	choices := []byte("{}[]\":,\\ 0123456789abcdefxyz-.\n\r\x00\xff\xc3\x80\xe2")
	c := choices[rng.IntN(len(choices))]
	if rng.IntN(4) == 0 {
		c = data[at] ^ 1<<rng.IntN(8) // a single bit
	}
	data[at] = c
	return data, fmt.Sprintf("@%d=0x%02x", at, c)
}

func truncate(rng *rand.Rand, data []byte) ([]byte, string) {
	if len(data) == 0 {
		return data, "@0"
	}
	at := rng.IntN(len(data))
	out := data[:at]
	if rng.IntN(3) == 0 {
		return append(out, '\n'), fmt.Sprintf("@%d+newline", at)
	}
	return out, fmt.Sprintf("@%d", at)
}

func deleteLine(rng *rand.Rand, data []byte) ([]byte, string) {
	ls := lines(data)
	if len(ls) == 0 {
		return data, ""
	}
	i := rng.IntN(len(ls))
	return join(append(ls[:i:i], ls[i+1:]...)), fmt.Sprintf("@%d", i+1)
}

func duplicateLine(rng *rand.Rand, data []byte) ([]byte, string) {
	ls := lines(data)
	if len(ls) == 0 {
		return data, ""
	}
	i, j := rng.IntN(len(ls)), rng.IntN(len(ls)+1)
	l := ensureNL(ls[i])
	out := append(append(append([][]byte{}, ls[:j]...), l), ls[j:]...)
	return join(out), fmt.Sprintf("@%d->%d", i+1, j+1)
}

func ensureNL(l []byte) []byte {
	if bytes.HasSuffix(l, []byte("\n")) {
		return l
	}
	return append(bytes.Clone(l), '\n')
}

func swapLines(rng *rand.Rand, data []byte) ([]byte, string) {
	ls := lines(data)
	if len(ls) < 2 {
		return data, ""
	}
	i := rng.IntN(len(ls) - 1)
	j := i + 1
	if rng.IntN(2) == 0 {
		j = rng.IntN(len(ls))
	}
	a, b := ensureNL(ls[i]), ensureNL(ls[j])
	ls[i], ls[j] = b, a
	return join(ls), fmt.Sprintf("@%d<->%d", i+1, j+1)
}

func reserialize(rng *rand.Rand, data []byte) ([]byte, string) {
	ls := lines(data)
	if len(ls) == 0 {
		return data, ""
	}
	i := rng.IntN(len(ls))
	body := bytes.TrimRight(ls[i], "\r\n")
	nb, what := raw(rng, body)
	ls[i] = append(nb, ls[i][len(body):]...)
	return join(ls), fmt.Sprintf("@%d:%s", i+1, what)
}

func glue(rng *rand.Rand, data []byte) ([]byte, string) {
	ls := lines(data)
	if len(ls) < 2 {
		return data, ""
	}
	i := rng.IntN(len(ls) - 1)
	ls[i] = bytes.TrimRight(ls[i], "\r\n")
	return join(ls), fmt.Sprintf("@%d", i+1)
}

// torn writes a prefix of an entry: as the final line without a newline (a crash mid-append)
// or glued before a complete line (a crash, then a later append).
func torn(rng *rand.Rand, data []byte) ([]byte, string) {
	ls := lines(data)
	if len(ls) == 0 {
		return data, ""
	}
	src := bytes.TrimRight(ls[rng.IntN(len(ls))], "\r\n")
	if len(src) < 2 {
		return data, ""
	}
	frag := bytes.Clone(src[:1+rng.IntN(len(src)-1)])
	if rng.IntN(2) == 0 {
		return append(ensureNLData(data), frag...), "@end"
	}
	i := rng.IntN(len(ls))
	ls[i] = append(frag, ls[i]...)
	return join(ls), fmt.Sprintf("@%d", i+1)
}

func ensureNLData(data []byte) []byte {
	if len(data) == 0 || data[len(data)-1] == '\n' {
		return data
	}
	return append(data, '\n')
}

func nul(rng *rand.Rand, data []byte) ([]byte, string) {
	ls := lines(data)
	run := bytes.Repeat([]byte{0}, 1+rng.IntN(4096))
	i := rng.IntN(len(ls) + 1)
	switch rng.IntN(3) {
	case 0: // a line of NULs
		out := append(append(append([][]byte{}, ls[:i]...), append(run, '\n')), ls[i:]...)
		return join(out), fmt.Sprintf("@%d:line", i+1)
	case 1: // NULs before a line (a pre-allocated block, then the append)
		if i < len(ls) {
			ls[i] = append(run, ls[i]...)
			return join(ls), fmt.Sprintf("@%d:prefix", i+1)
		}
	}
	// NULs at the end, no newline
	return append(ensureNLData(data), run...), "@end"
}

func invalidUTF8(rng *rand.Rand, data []byte) ([]byte, string) {
	seqs := [][]byte{[]byte("\xe9"), []byte("\xff\xfe"), []byte("\xe2\x82"), []byte("\xed\xa0\x80"), []byte("\xc0\xaf"), []byte("\xf0\x9f\x98")}
	seq := seqs[rng.IntN(len(seqs))]
	// inside a string value where possible: just after some `":"`
	var starts []int
	for k := 0; k+3 <= len(data); {
		j := bytes.Index(data[k:], []byte(`":"`))
		if j < 0 {
			break
		}
		starts = append(starts, k+j+3)
		k += j + 3
	}
	at := rng.IntN(len(data) + 1)
	if len(starts) > 0 {
		at = starts[rng.IntN(len(starts))]
	}
	out := append(append(append([]byte{}, data[:at]...), seq...), data[at:]...)
	return out, fmt.Sprintf("@%d=%x", at, seq)
}

func crlf(rng *rand.Rand, data []byte) ([]byte, string) {
	ls := lines(data)
	all := rng.IntN(2) == 0
	n := 0
	for i, l := range ls {
		if (all || rng.IntN(len(ls)) == 0) && bytes.HasSuffix(l, []byte("\n")) && !bytes.HasSuffix(l, []byte("\r\n")) {
			ls[i] = append(bytes.TrimSuffix(l, []byte("\n")), '\r', '\n')
			n++
		}
	}
	return join(ls), fmt.Sprintf(":%d-lines", n)
}

func loneCR(rng *rand.Rand, data []byte) ([]byte, string) {
	ls := lines(data)
	if len(ls) < 2 {
		return data, ""
	}
	i := rng.IntN(len(ls) - 1)
	ls[i] = append(bytes.TrimRight(ls[i], "\r\n"), '\r')
	return join(ls), fmt.Sprintf("@%d", i+1)
}

func blankLines(rng *rand.Rand, data []byte) ([]byte, string) {
	ls := lines(data)
	i := rng.IntN(len(ls) + 1)
	blank := []byte(pickStr(rng, []string{"\n", "  \n", "\t\n", "\u00a0\n", "\ufeff\n", "\r\n"}))
	out := append(append(append([][]byte{}, ls[:i]...), blank), ls[i:]...)
	return join(out), fmt.Sprintf("@%d:%q", i+1, strings.TrimSuffix(string(blank), "\n"))
}

func pickStr(rng *rand.Rand, xs []string) string { return xs[rng.IntN(len(xs))] }

func bom(_ *rand.Rand, data []byte) ([]byte, string) {
	return append([]byte("\xef\xbb\xbf"), data...), ""
}

func noFinalNewline(_ *rand.Rand, data []byte) ([]byte, string) {
	return bytes.TrimRight(data, "\r\n"), ""
}

// splice inserts the entries of a random block after a random line, chained to the entry on
// that line, written by a random provider.
func splice(rng *rand.Rand, data []byte) ([]byte, string) {
	ls := lines(data)
	i := rng.IntN(len(ls) + 1) // insert before line i
	bl := Blocks[rng.IntN(len(Blocks))]
	b := &Builder{rng: rng, Prov: Providers[rng.IntN(len(Providers))], key: rng.Uint32(),
		ms: time.Date(2026, 4, 28, 12, 0, 0, 0, time.UTC).UnixMilli()}
	for _, l := range ls[:i] {
		var e struct {
			ID   any    `json:"id"`
			Type string `json:"type"`
		}
		if json.Unmarshal(bytes.TrimRight(l, "\r\n"), &e) == nil {
			if id, ok := e.ID.(string); ok && e.Type != "session" {
				b.tip = id
				b.ids = append(b.ids, id)
			}
		}
	}
	if rng.IntN(8) == 0 {
		b.tip = "" // a second root
	}
	what := bl.Add(b)
	block := ensureNL(join(addNL(b.lines)))
	if i > 0 {
		ls[i-1] = ensureNL(ls[i-1])
	}
	out := append(append(append([][]byte{}, ls[:i]...), block), ls[i:]...)
	return join(out), fmt.Sprintf("@%d:%s/%s/%s", i+1, bl.Name, what, b.Prov.Name)
}

func addNL(ls [][]byte) [][]byte {
	out := make([][]byte, len(ls))
	for i, l := range ls {
		out[i] = append(bytes.Clone(l), '\n')
	}
	return out
}

package jsonl

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/valyala/fastjson"
	"github.com/valyala/fastjson/fastfloat"
)

// dumpDoc and dumpFast write what a reader of the value sees (types, unescaped keys in order,
// unescaped strings, number texts and their float values) so that a Doc and fastjson can be
// compared.
func dumpDoc(w *bytes.Buffer, v Value) {
	switch v.Type() {
	case TypeObject:
		w.WriteByte('{')
		for k, e := range v.Members() {
			fmt.Fprintf(w, "%q:", k)
			dumpDoc(w, e)
			w.WriteByte(',')
		}
		w.WriteByte('}')
	case TypeArray:
		fmt.Fprintf(w, "[%d:", v.Len())
		for _, e := range v.Elems() {
			dumpDoc(w, e)
			w.WriteByte(',')
		}
		w.WriteByte(']')
	case TypeString:
		fmt.Fprintf(w, "%q", v.StringBytes())
	case TypeNumber:
		fmt.Fprintf(w, "%s=%v", v.raw(&v.d.toks[v.i]), v.GetFloat64())
	default:
		w.WriteString(v.Type().String())
	}
}

func dumpFast(w *bytes.Buffer, v *fastjson.Value) {
	switch v.Type() {
	case fastjson.TypeObject:
		w.WriteByte('{')
		o, _ := v.Object()
		o.Visit(func(k []byte, e *fastjson.Value) {
			fmt.Fprintf(w, "%q:", k)
			dumpFast(w, e)
			w.WriteByte(',')
		})
		w.WriteByte('}')
	case fastjson.TypeArray:
		fmt.Fprintf(w, "[%d:", len(v.GetArray()))
		for _, e := range v.GetArray() {
			dumpFast(w, e)
			w.WriteByte(',')
		}
		w.WriteByte(']')
	case fastjson.TypeString:
		fmt.Fprintf(w, "%q", v.GetStringBytes())
	case fastjson.TypeNumber:
		fmt.Fprintf(w, "%s=%v", v.MarshalTo(nil), v.GetFloat64())
	default:
		w.WriteString(v.Type().String())
	}
}

func depthOf(v *fastjson.Value) int {
	d := 0
	switch v.Type() {
	case fastjson.TypeObject:
		o, _ := v.Object()
		o.Visit(func(_ []byte, e *fastjson.Value) { d = max(d, depthOf(e)) })
		return d + 1
	case fastjson.TypeArray:
		for _, e := range v.GetArray() {
			d = max(d, depthOf(e))
		}
		return d + 1
	}
	return 0
}

// compareDoc checks Parse against Check and fastjson on one input.
func compareDoc(t *testing.T, in []byte) {
	t.Helper()
	var d Doc
	b := bytes.Clone(in) // fastjson unescapes in place: each reader gets its own copy
	ok := d.Parse(b)
	chk := Check(in)
	var p fastjson.Parser
	fv, ferr := p.ParseBytes(bytes.Clone(in))
	if ok {
		if chk != nil || ferr != nil {
			t.Fatalf("Parse accepted %q; Check: %v, fastjson: %v", in, chk, ferr)
		}
	} else {
		if chk == nil && ferr == nil && depthOf(fv) < docMaxDepth {
			t.Fatalf("Parse refused %q, which Check and fastjson accept", in)
		}
		return
	}
	var a, w bytes.Buffer
	dumpDoc(&a, d.Root())
	dumpFast(&w, fv)
	if a.String() != w.String() {
		t.Fatalf("%q:\n doc      %s\n fastjson %s", in, a.String(), w.String())
	}
	// Get: the first key written exactly so wins, else the first equal once unescaped; array
	// indexes. Each Get on a fresh fastjson parse (its objects remember having unescaped keys).
	var keys []string
	for k := range d.Root().Members() {
		keys = append(keys, string(k))
	}
	for n := range 3 {
		keys = append(keys, fmt.Sprint(n))
	}
	keys = append(keys, `a\u0062`, "type")
	for _, k := range keys {
		fv, _ := new(fastjson.Parser).ParseBytes(bytes.Clone(in))
		var da, fa bytes.Buffer
		if g := d.Root().Get(k); g.Exists() {
			dumpDoc(&da, g)
		}
		if g := fv.Get(k); g != nil {
			dumpFast(&fa, g)
		}
		if da.String() != fa.String() {
			t.Fatalf("%q Get(%q): doc %s, fastjson %s", in, k, da.String(), fa.String())
		}
	}
	// a value fastjson read becomes the same Doc
	var c Doc
	c.FromFastjson(fv)
	var cv bytes.Buffer
	dumpDoc(&cv, c.Root())
	if cv.String() != w.String() {
		t.Fatalf("%q FromFastjson:\n doc      %s\n fastjson %s", in, cv.String(), w.String())
	}
}

var docCases = []string{
	`{}`, `[]`, ` {"a" : [1, -2.5e+3, 0, true, false, null, "x"] } `, `"s"`, `12`, `-0.0`,
	`{"type":"message","id":"a1","parentId":null,"message":{"role":"user","content":[{"type":"text","text":"hi\nthere \"q\" \u00e9 \ud83d\ude00"}]}}`,
	`{"\u0074ype":"x","type":"y"}`, `{"\u0074ype":"x"}`, `{"t":1,"t":2}`, `{"a\\b":1}`,
	`"\ud800"`, `"\ud800\u0041"`, `"\udc00\udc00"`, `"\ud800x"`, `"a\/b\b\f\r\t"`,
	`[[[[1]]]]`, `{"a":{"b":{"c":"d"}}}`, `[1,2,3]`,
	// refused: what Check refuses
	``, ` `, `{`, `{"a"}`, `{"a":1,}`, `[1,]`, `01`, `1.`, `-`, `tru`, `nul`, `"a`, "\"a\x01\"", `"\x"`, `{} {}`, `{}x`, `[1 2]`, `{"a":1 "b":2}`, `{1:2}`,
}

func TestDocMatchesFastjson(t *testing.T) {
	for _, c := range docCases {
		compareDoc(t, []byte(c))
	}
	deep := strings.Repeat("[", docMaxDepth+1) + strings.Repeat("]", docMaxDepth+1)
	if new(Doc).Parse([]byte(deep)) {
		t.Fatal("Parse read a value nested deeper than docMaxDepth")
	}
	if !new(Doc).Parse([]byte(strings.Repeat("[", docMaxDepth) + strings.Repeat("]", docMaxDepth))) {
		t.Fatal("Parse refused a value nested docMaxDepth deep")
	}
}

// FuzzDocMatchesFastjson: Parse accepts only what Check and fastjson accept, refuses only what
// one of them refuses (or nesting past docMaxDepth), and reads what fastjson reads.
func FuzzDocMatchesFastjson(f *testing.F) {
	for _, c := range docCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 4<<10 {
			return // compareDoc parses once per key: minimizing long inputs stalled the fuzzer
		}
		compareDoc(t, in)
	})
}

func TestDocMissingValues(t *testing.T) {
	var d Doc
	if !d.Parse([]byte(`{"a":[{"b":"c"}],"n":5}`)) {
		t.Fatal("refused")
	}
	r := d.Root()
	for _, tc := range []struct {
		got  string
		want string
	}{
		{string(r.GetStringBytes("a", "0", "b")), "c"},
		{string(r.GetStringBytes("a", "1", "b")), ""},
		{string(r.GetStringBytes("n")), ""},
		{fmt.Sprint(r.GetFloat64("n")), "5"},
		{fmt.Sprint(r.GetFloat64("a")), "0"},
		{r.Get("zz").Type().String(), "none"},
		{fmt.Sprint(r.Get("zz").Get("y").Exists()), "false"},
		{fmt.Sprint(r.Get("n").Len()), "0"},
		{fmt.Sprint(r.Get("a").Len()), "1"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// BenchmarkDocParse reads small entries (as the tiny-entries bench transcript holds) with one
// Doc pass, beside Check followed by a fastjson parse (what the audit did before the Doc).
func BenchmarkDocParse(b *testing.B) {
	lines := [][]byte{
		[]byte(`{"type":"message","id":"1a88a9ed","parentId":"0eca9c7c","timestamp":"2026-04-01T00:00:09.243Z","message":{"role":"user","content":"run ok t","timestamp":1775001604378}}`),
		[]byte(`{"type":"message","id":"d13543e9","parentId":"0eca9c7c","timestamp":"2026-04-01T00:00:15.613Z","message":{"role":"assistant","content":[{"type":"text","text":"file\no"}],"api":"openai-responses","provider":"openai","model":"gpt-5.4","usage":{"input":1000,"output":50},"stopReason":"stop","timestamp":1775001614045}}`),
	}
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	b.Run("doc", func(b *testing.B) {
		var d Doc
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, l := range lines {
				if !d.Parse(l) {
					b.Fatal("refused")
				}
			}
		}
	})
	b.Run("check+fastjson", func(b *testing.B) {
		var p fastjson.Parser
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, l := range lines {
				if Check(l) != nil {
					b.Fatal("refused")
				}
				if _, err := p.ParseBytes(l); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// TestDocTooBig: past DocMaxValues tokens Parse stops and says so (TooBig), apart from a
// refusal for the grammar; Check still calls the line valid.
func TestDocTooBig(t *testing.T) {
	defer func(n int) { DocMaxValues = n }(DocMaxValues)
	DocMaxValues = 100
	arr := func(n int) []byte { return []byte("[" + strings.Repeat("1,", n-1) + "1]") }
	obj := func(n int) []byte { return []byte("{" + strings.Repeat(`"k":1,`, n-1) + `"k":1}`) }
	var d Doc
	for _, tc := range []struct {
		in      []byte
		ok, big bool
	}{
		{arr(50), true, false},
		{arr(500), false, true},
		{obj(40), true, false},
		{obj(400), false, true},
		{[]byte(`[1,,1]`), false, false},
	} {
		ok := d.Parse(tc.in)
		if ok != tc.ok || d.TooBig() != tc.big {
			t.Errorf("%.30s: Parse %v TooBig %v, want %v %v", tc.in, ok, d.TooBig(), tc.ok, tc.big)
		}
		if tc.big && Check(tc.in) != nil {
			t.Errorf("%.30s: Check refuses it", tc.in)
		}
		if cap(d.toks) > DocMaxValues+2 {
			t.Errorf("%.30s: the tape grew to %d tokens, past the limit", tc.in, cap(d.toks))
		}
	}
}

// TestGetFloat64SmallInts: the integer fast path gives what fastfloat gives, sign of zero
// included, on both sides of its 15-digit limit.
func TestGetFloat64SmallInts(t *testing.T) {
	for _, n := range []string{"0", "-0", "7", "-7", "1775001614045", "-1775001614045", "999999999999999", "-999999999999999",
		"1000000000000000", "9007199254740993", "12345678901234567890", "1.5", "-0.0", "1e3", "0.1"} {
		var d Doc
		if !d.Parse([]byte(n)) {
			t.Fatalf("%s refused", n)
		}
		got, want := d.Root().GetFloat64(), fastfloat.ParseBestEffort(n)
		if got != want || math.Signbit(got) != math.Signbit(want) {
			t.Errorf("GetFloat64(%s) = %v, fastfloat %v", n, got, want)
		}
	}
}

package jsonl

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sameAsParse checks that d.Parse(line) (which may read it by shape) gives what the byte by
// byte parser gives: the verdict, TooBig and the very same tape.
func sameAsParse(t *testing.T, d *Doc, line []byte) {
	t.Helper()
	want, wok, wbig := parse(line, nil)
	ok := d.Parse(line)
	if ok != wok || d.TooBig() != wbig {
		t.Fatalf("%q: Parse %v (too big %v), parse %v (too big %v)", line, ok, d.TooBig(), wok, wbig)
	}
	if ok && !slices.Equal(d.toks, want) {
		t.Fatalf("%q: tape\n %v\nwant\n %v", line, d.toks, want)
	}
}

const (
	shapeUser      = `{"type":"message","id":"1a88a9ed","parentId":"0eca9c7c","timestamp":"2026-04-01T00:00:09.243Z","message":{"role":"user","content":"run ok t","timestamp":1775001604378}}`
	shapeAssistant = `{"type":"message","id":"d13543e9","parentId":"0eca9c7c","timestamp":"2026-04-01T00:00:15.613Z","message":{"role":"assistant","content":[{"type":"text","text":"file\no"}],"api":"openai-responses","provider":"openai","model":"gpt-5.4","usage":{"input":1000,"output":50},"stopReason":"stop","timestamp":1775001614045}}`
)

// TestShapes: after one line of a shape, lines of the same shape are read by it (and give the
// tape parse gives), and lines that differ anywhere but in a string's or number's text are
// not, or give the same tape anyway.
func TestShapes(t *testing.T) {
	for _, tc := range []struct {
		name, first, next string
		fits              bool
	}{
		{"other values", shapeUser, `{"type":"message","id":"ffffffff","parentId":"00000000","timestamp":"2026-12-31T23:59:59.999Z","message":{"role":"user","content":"a much longer text than before, with \"escapes\" \u00e9 and \\ too","timestamp":-1.5e+3}}`, true},
		{"empty strings", shapeUser, `{"type":"","id":"","parentId":"","timestamp":"","message":{"role":"","content":"","timestamp":0}}`, true},
		{"numbers", `{"a":1,"b":[2,3.5],"c":-0}`, `{"a":-12.5e-7,"b":[0,1E+9],"c":123456789012345678901234567890}`, true},
		{"assistant", shapeAssistant, strings.Replace(shapeAssistant, `"file\no"`, `"another text"`, 1), true},
		{"whitespace kept", `{ "a" : [ 1 , "x" ] }`, `{ "a" : [ 22 , "yy" ] }`, true},
		{"whitespace moved", `{ "a" : [ 1 , "x" ] }`, `{"a":[1,"x"]}`, false},
		{"escaped key", `{"\u0074ype":"x","t\"":1}`, `{"\u0074ype":"yy","t\"":22}`, true},
		{"literals", `{"a":null,"b":true,"c":false}`, `{"a":null,"b":true,"c":false}`, true},
		{"another literal", `{"a":null,"b":true}`, `{"a":"x","b":true}`, false},
		{"number for string", `{"a":"1"}`, `{"a":1}`, false},
		{"string for number", `{"a":1}`, `{"a":"1"}`, false},
		{"another key", `{"a":1}`, `{"b":1}`, false},
		{"extra member", `{"a":1}`, `{"a":1,"b":2}`, false},
		{"fewer members", `{"a":1,"b":2}`, `{"a":1}`, false},
		{"trailing bytes", `{"a":1}`, `{"a":1}x`, false},
		{"trailing space", `{"a":1}`, `{"a":1} `, false},
		{"cut short", shapeUser, shapeUser[:len(shapeUser)-1], false},
		{"cut in a value", shapeUser, shapeUser[:30], false},
		{"number then garbage", `{"a":1,"b":2}`, `{"a":1x,"b":2}`, false},
		{"bad number", `{"a":1}`, `{"a":01}`, false},
		{"bad number 2", `{"a":1}`, `{"a":-}`, false},
		{"bad escape", `{"a":"x"}`, `{"a":"\x"}`, false},
		{"control byte", `{"a":"x"}`, "{\"a\":\"\x01\"}", false},
		{"unterminated", `{"a":"x"}`, `{"a":"x}`, false},
		{"quote in value", `{"a":"x","b":"y"}`, `{"a":"x","b":"y","c":"z"}`, false},
		{"value swallows glue", `{"a":"x","b":"y"}`, `{"a":"x\",\"b\":\"y"}`, false},
		{"nested deeper", `{"a":[1]}`, `{"a":[[1]]}`, false},
		{"long glue", `{"` + strings.Repeat("k", 40) + `":1}`, `{"` + strings.Repeat("k", 40) + `":22}`, true},
		{"long glue differs", `{"` + strings.Repeat("k", 40) + `":1}`, `{"` + strings.Repeat("k", 39) + `j":1}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d Doc
			sameAsParse(t, &d, []byte(tc.first))
			if d.shapes.n != 1 {
				t.Fatalf("%d shapes learned, want 1", d.shapes.n)
			}
			next := []byte(tc.next)
			if fits := d.parseShaped(next); fits != tc.fits {
				t.Errorf("read by shape: %v, want %v", fits, tc.fits)
			}
			sameAsParse(t, &d, next)
			// and the line once more, now surely a shape if it is valid
			sameAsParse(t, &d, next)
		})
	}
}

// TestShapesShareSegments: lines of two shapes that part after a common start (a user and an
// assistant turn) are read by shape in any order, the second shape taken where the first
// stops fitting; a third shape evicts none while there is room, and past maxShapes the least
// recently used goes.
func TestShapesShareSegments(t *testing.T) {
	var d Doc
	sameAsParse(t, &d, []byte(shapeUser))
	sameAsParse(t, &d, []byte(shapeAssistant))
	if d.shapes.n != 2 {
		t.Fatalf("%d shapes, want 2", d.shapes.n)
	}
	if d.shapes.common[0][1] < 5 {
		t.Fatalf("user and assistant share %d segments, want the 5 before the role's text", d.shapes.common[0][1])
	}
	for _, l := range []string{shapeUser, shapeAssistant, shapeAssistant, shapeUser} {
		if !d.parseShaped([]byte(l)) {
			t.Fatalf("not read by shape: %s", l)
		}
		sameAsParse(t, &d, []byte(l))
	}
	for k := range maxShapes + 1 {
		sameAsParse(t, &d, fmt.Appendf(nil, `{"k%d":1}`, k))
	}
	if d.shapes.n != maxShapes {
		t.Fatalf("%d shapes, want %d", d.shapes.n, maxShapes)
	}
	if d.parseShaped([]byte(shapeUser)) {
		t.Errorf("the least recently used shapes were kept")
	}
	if !d.parseShaped([]byte(`{"k8":2}`)) {
		t.Errorf("the most recent shape was not kept")
	}
}

// TestShapesRest: a stream whose lines never repeat a shape stops trying shapes for a while;
// one that repeats them keeps trying.
func TestShapesRest(t *testing.T) {
	var d Doc
	for k := range shapeWindow {
		sameAsParse(t, &d, fmt.Appendf(nil, `{"k%d":1}`, k))
	}
	if d.shapes.rest != shapeRest {
		t.Fatalf("rest %d after %d lines of new shapes, want %d", d.shapes.rest, shapeWindow, shapeRest)
	}
	var e Doc
	for range 3 * shapeWindow {
		sameAsParse(t, &e, []byte(shapeUser))
	}
	if e.shapes.rest != 0 {
		t.Fatalf("rest %d on lines of one shape", e.shapes.rest)
	}
}

// TestShapesCorpus reads every real transcript line by line with one Doc (shapes learned and
// used as in the audit): every tape is the one parse gives.
func TestShapesCorpus(t *testing.T) {
	var files []string
	filepath.WalkDir("../../shared/corpus", func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.Contains(e.Name(), ".jsonl") && !strings.HasSuffix(e.Name(), ".gz") && !strings.HasSuffix(e.Name(), ".zst") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Skip("no corpus")
	}
	var d Doc
	lines, shaped := 0, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for l := range bytes.SplitSeq(b, []byte("\n")) {
			if d.shapes != nil && d.shapes.rest == 0 && d.parseShaped(l) {
				shaped++
				if want, _, _ := parse(l, nil); !slices.Equal(d.toks, want) {
					t.Fatalf("%s: %q read by shape: tape\n %v\nwant\n %v", f, l, d.toks, want)
				}
			}
			sameAsParse(t, &d, l)
			lines++
		}
	}
	t.Logf("%d files, %d lines, %d read by shape", len(files), lines, shaped)
	if shaped < lines/10 {
		t.Errorf("only %d of %d lines read by shape", shaped, lines)
	}
}

// FuzzShapeMatchesParse: a stream of lines (the input cut at newlines, read twice so that every
// line has a shape learned) read with one Doc gives, line by line, what parse gives.
func FuzzShapeMatchesParse(f *testing.F) {
	f.Add([]byte(shapeUser + "\n" + shapeAssistant + "\n" + shapeUser))
	f.Add([]byte(`{"a":1,"b":"x"}` + "\n" + `{"a":22,"b":"yy\"z"}` + "\n" + `{"a":2,"b":"y","c":3}`))
	f.Add([]byte(`{ "a" : [ 1 , "x" ] }` + "\n" + `{ "a" : [ 1e5 , "\u00e9" ] }`))
	f.Add([]byte(`{"a":null,"b":[true,false]}` + "\n" + `{"a":null,"b":[true,false]}x`))
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 8<<10 {
			return
		}
		var d Doc
		for range 2 {
			for l := range bytes.SplitSeq(in, []byte("\n")) {
				sameAsParse(t, &d, l)
			}
		}
	})
}

// TestDocShape: lines of one shape share a non-zero Shape, another shape gets another one, and
// a line read with no shape (too long, a converted value) has none.
func TestDocShape(t *testing.T) {
	var d Doc
	d.Parse([]byte(shapeUser))
	u := d.Shape()
	d.Parse([]byte(strings.Replace(shapeUser, "run ok t", "other text", 1)))
	if u == 0 || d.Shape() != u {
		t.Fatalf("shapes %d then %d for two user lines", u, d.Shape())
	}
	d.Parse([]byte(shapeAssistant))
	if a := d.Shape(); a == 0 || a == u {
		t.Fatalf("assistant shape %d, user %d", a, u)
	}
	long := `{"a":"` + strings.Repeat("x", maxShapeLine) + `"}`
	if d.Parse([]byte(long)); d.Shape() != 0 {
		t.Errorf("a line over maxShapeLine has shape %d", d.Shape())
	}
	d.Parse([]byte(shapeUser))
	if d.Shape() != u {
		t.Errorf("the user shape came back as %d, want %d", d.Shape(), u)
	}
	if d.Parse([]byte(`{"a":`)); d.Shape() != 0 {
		t.Errorf("a refused line has shape %d", d.Shape())
	}
}

// TestDocReset: a Doc reset for reuse lets go of the text it read, keeps its shapes (the next
// line of a known shape is read by it, with the tape parse gives) and reports what it holds.
func TestDocReset(t *testing.T) {
	var d Doc
	line := []byte(shapeUser)
	sameAsParse(t, &d, line)
	held := d.Reset()
	if d.b != nil || d.Shape() != 0 || len(d.toks) != 0 {
		t.Fatalf("after Reset: text %q, shape %d, %d tokens", d.b, d.Shape(), len(d.toks))
	}
	if held < len(line) { // at least the shape's glue and tape
		t.Fatalf("Reset reports %d bytes held", held)
	}
	next := []byte(strings.Replace(shapeUser, "run ok t", "another text", 1))
	sameAsParse(t, &d, next)
	if d.Shape() == 0 {
		t.Fatal("a line of the shape learned before Reset was not read by it")
	}
}

package mutate

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
)

// Every matrix line must be exactly what JSON.stringify writes for it, so an untouched line
// reads back byte-identical from the real OpenClaw.
func TestMatrixIsCanonical(t *testing.T) {
	m := Matrix(1, 2)
	if want := len(Providers) * len(Blocks) * 2; len(m) != want {
		t.Fatalf("%d transcripts, want %d", len(m), want)
	}
	for _, b := range m {
		for i, l := range bytes.Split(bytes.TrimSuffix(b.Data, []byte("\n")), []byte("\n")) {
			c, err := jsonobj.Canonical(l)
			if err != nil || !bytes.Equal(c, l) {
				t.Fatalf("%s line %d not canonical (%v):\n%s\n%s", b.Name, i+1, err, l, c)
			}
		}
		if !bytes.HasPrefix(b.Data, []byte(`{"type":"session","version":3,"id":"`)) {
			t.Fatalf("%s: no header", b.Name)
		}
	}
}

func TestDeterministic(t *testing.T) {
	bases := Matrix(7, 1)
	a, b := Generate(3, bases, 300), Generate(3, bases, 200)
	for i := range b {
		if !bytes.Equal(a[i].Data, b[i].Data) || a[i].Name != b[i].Name || strings.Join(a[i].Ops, ";") != strings.Join(b[i].Ops, ";") {
			t.Fatalf("mutation %d differs between runs", i)
		}
	}
	if bytes.Equal(Generate(4, bases, 1)[0].Data, a[0].Data) {
		t.Fatal("another seed gave the same mutation")
	}
}

// Every op and every block must be used by a set of the size CI runs, and most mutations must
// change their base.
func TestCoverage(t *testing.T) {
	bases := Matrix(1, 1)
	muts := Generate(1, bases, 3000)
	seenOp, seenBlock := map[string]int{}, map[string]int{}
	changed := 0
	byName := map[string][]byte{}
	for _, b := range bases {
		byName[b.Name] = b.Data
	}
	for _, m := range muts {
		for _, o := range m.Ops {
			name := o
			if i := strings.IndexAny(o, "@:"); i >= 0 {
				name = o[:i]
			}
			seenOp[name]++
			if name == "splice" {
				rest := o[strings.Index(o, ":")+1:]
				seenBlock[rest[:strings.Index(rest, "/")]]++
			}
		}
		if !bytes.Equal(m.Data, byName[m.Base]) {
			changed++
		}
	}
	for _, o := range ops {
		if seenOp[o.name] == 0 {
			t.Errorf("op %s never used", o.name)
		}
	}
	for _, bl := range Blocks {
		if seenBlock[bl.Name] == 0 {
			t.Errorf("block %s never spliced", bl.Name)
		}
	}
	if changed < len(muts)*95/100 {
		t.Errorf("only %d of %d mutations changed their base", changed, len(muts))
	}
}

// Spliced blocks chain onto the entry before them.
func TestSpliceChains(t *testing.T) {
	bases := []Base{Matrix(1, 1)[0]}
	checked := 0
	for i := 0; i < 200; i++ {
		m := One(9, i, bases)
		if len(m.Ops) != 1 || !strings.HasPrefix(m.Ops[0], "splice@") {
			continue
		}
		checked++
		ids := map[string]bool{}
		for _, l := range bytes.Split(m.Data, []byte("\n")) {
			var e struct {
				ID       string  `json:"id"`
				ParentID *string `json:"parentId"`
			}
			if json.Unmarshal(l, &e) != nil {
				continue
			}
			if e.ParentID != nil && *e.ParentID != "" && !ids[*e.ParentID] {
				t.Fatalf("%s (%s): parent %s not written before", m.Name, m.Ops[0], *e.ParentID)
			}
			ids[e.ID] = true
		}
	}
	if checked < 20 {
		t.Fatalf("only %d single splices among 200 mutations", checked)
	}
}

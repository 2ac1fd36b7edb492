package view_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/view"
)

// blockRE finds the compressed blocks of a page.
var blockRE = regexp.MustCompile(`<script type="application/octet-stream" id="([a-z0-9]+)">([A-Za-z0-9+/=]*)</script>`)

// decoded is a page taken apart: its HTML and every block, inflated.
type decoded struct {
	html   []byte
	blocks map[string][]byte
}

func decodePage(t *testing.T, html []byte) decoded {
	t.Helper()
	d := decoded{html: html, blocks: map[string][]byte{}}
	for _, m := range blockRE.FindAllSubmatch(html, -1) {
		raw, err := base64.StdEncoding.DecodeString(string(m[2]))
		if err != nil {
			t.Fatalf("block %s: %v", m[1], err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("block %s: %v", m[1], err)
		}
		b, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("block %s: %v", m[1], err)
		}
		d.blocks[string(m[1])] = b
	}
	if d.blocks["data"] == nil {
		t.Fatalf("page has no data block")
	}
	return d
}

// pageData is the part of a session page's data the tests read.
type pageData struct {
	Title   string `json:"title"`
	Entries []struct {
		ID string `json:"id"`
		P  int    `json:"p"`
		T  string `json:"t"`
		L  int64  `json:"l"`
		Fl int    `json:"fl"`
		B  []struct {
			K   string `json:"k"`
			ID  string `json:"id"`
			Res int    `json:"res"`
		} `json:"b"`
		TR *struct {
			ID   string `json:"id"`
			Call int    `json:"call"`
		} `json:"tr"`
		C *struct {
			FirstKept string  `json:"fk"`
			Kept      *[3]int `json:"keep"`
			Summed    *[3]int `json:"sum"`
		} `json:"c"`
	} `json:"entries"`
	Layout struct {
		Order []int `json:"order"`
		Depth []int `json:"depth"`
		Span  []int `json:"span"`
	} `json:"layout"`
	Findings []struct {
		Rule string `json:"rule"`
		Line int64  `json:"line"`
		E    int    `json:"e"`
		Msg  string `json:"msg"`
	} `json:"findings"`
	Replays []struct {
		Target string `json:"target"`
		Error  string `json:"error"`
		Sent   []struct {
			E int `json:"e"`
			S int `json:"s"`
		} `json:"sent"`
	} `json:"replays"`
}

func (d decoded) session(t *testing.T) pageData {
	t.Helper()
	var p pageData
	if err := json.Unmarshal(d.blocks["data"], &p); err != nil {
		t.Fatalf("data block: %v", err)
	}
	return p
}

// fixtureFile copies a small fixture into a temp dir and returns its path.
func fixtureFile(t *testing.T, name string) string {
	t.Helper()
	b, err := fixtures.FS.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeSession writes the page of path into a fresh dir and returns its path and content.
func writeSession(t *testing.T, path string, o view.Options) (string, []byte) {
	t.Helper()
	o.Out = filepath.Join(t.TempDir(), "page.html")
	if _, err := view.Write(context.Background(), path, o); err != nil {
		t.Fatalf("view %s: %v", path, err)
	}
	b, err := os.ReadFile(o.Out)
	if err != nil {
		t.Fatal(err)
	}
	return o.Out, b
}

// transcriptFixtures lists the small fixtures that are transcripts.
func transcriptFixtures() []string {
	var out []string
	for _, f := range fixtures.List {
		if ext := filepath.Ext(f.Name); ext == ".jsonl" || ext == ".gz" || ext == ".zst" {
			out = append(out, f.Name)
		}
	}
	return out
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func contains(s, sub string) bool { return bytes.Contains([]byte(s), []byte(sub)) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

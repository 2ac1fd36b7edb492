package view_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"hash/fnv"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/audit"
	"github.com/clawdoctor/clawdoctor/internal/view"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// idKeys are the members whose values are ids, names of things or enumerations: a redacted
// page may show them. This list is the test's own, written from the transcript format, not
// copied from the redactor.
var idKeys = map[string]bool{"id": true, "parentId": true, "type": true, "role": true, "timestamp": true,
	"provider": true, "model": true, "modelId": true, "modelApi": true, "api": true, "stopReason": true,
	"toolCallId": true, "toolUseId": true, "toolName": true, "customType": true, "thinkingLevel": true,
	"mimeType": true, "firstKeptEntryId": true, "fromId": true, "targetId": true, "appendMode": true,
	"tool_call_id": true, "tool_use_id": true, "call_id": true, "callId": true}

// inputTexts returns pieces of every text of a transcript: every string value not under an
// id key (and a tool call's name), cut into overlapping windows of 12 characters so a
// preview, a truncation or a fragment of a text is caught as well as the whole.
func inputTexts(t *testing.T, path string) []string {
	t.Helper()
	f, err := jsonl.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	var walk func(v any, key string, toolBlock bool)
	walk = func(v any, key string, toolBlock bool) {
		switch x := v.(type) {
		case string:
			if idKeys[key] || (key == "name" && toolBlock) {
				return
			}
			runes := []rune(x)
			if len(runes) < 12 {
				return
			}
			for i := 0; i+12 <= len(runes); i += 6 {
				// a window of only digits and time punctuation may be a time the page shows
				// as an entry's timestamp: it proves nothing either way
				if w := string(runes[i : i+12]); strings.TrimSpace(w) == w && utf8.ValidString(w) && strings.Trim(w, "0123456789-:. TZ") != "" {
					seen[w] = true
				}
			}
		case []any:
			for _, e := range x {
				walk(e, key, false)
			}
		case map[string]any:
			tb := false
			if s, ok := x["type"].(string); ok && strings.Contains(strings.ToLower(s), "call") || x["type"] == "toolUse" || x["type"] == "tool_use" {
				tb = true
			}
			for k, e := range x {
				walk(e, k, tb)
			}
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := bytes.ReplaceAll(sc.Bytes(), []byte{0}, nil)
		var v any
		if json.Unmarshal(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")), &v) == nil {
			walk(v, "", false)
		}
	}
	out := make([]string, 0, len(seen))
	for w := range seen {
		out = append(out, w)
	}
	return out
}

// pageTexts is everything a page could show: its HTML outside the blocks, every string of
// its data (JSON-decoded, so escapes do not hide a text) and its text chunks.
func pageTexts(t *testing.T, html []byte) string {
	t.Helper()
	d := decodePage(t, html)
	var b strings.Builder
	b.Write(codeRE.ReplaceAll(html, nil)) // the page's own script and style are not data
	var v any
	if err := json.Unmarshal(d.blocks["data"], &v); err != nil {
		t.Fatal(err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x)
			b.WriteByte('\n')
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	for k, blk := range d.blocks {
		if k != "data" {
			b.Write(blk)
		}
	}
	return b.String()
}

var codeRE = regexp.MustCompile(`(?s)<script[^>]*>.*?</script>|<style>.*?</style>`)

// windowSet holds a hash of every 12-character window of s, at every offset.
func windowSet(s string) map[uint64]bool {
	runes := []rune(s)
	set := make(map[uint64]bool, len(runes))
	for i := 0; i+12 <= len(runes); i++ {
		h := fnv.New64a()
		h.Write([]byte(string(runes[i : i+12])))
		set[h.Sum64()] = true
	}
	return set
}

func hashOf(w string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(w))
	return h.Sum64()
}

// productText is the text the product itself writes (the page's script, the audit rule
// descriptions): a window found there proves nothing about a leak, so it is not checked.
var productText = func() map[uint64]bool {
	var b strings.Builder
	for _, name := range []string{"common.js", "session.js", "state.js", "page.html"} {
		src, err := os.ReadFile(filepath.Join("assets", name))
		if err != nil {
			panic(err)
		}
		b.Write(src)
	}
	for _, r := range audit.Rules {
		b.WriteString(r.Description + "\n")
	}
	return windowSet(b.String())
}()

func leaked(texts []string, page string) []string {
	set := windowSet(page)
	var out []string
	for _, w := range texts {
		if h := hashOf(w); set[h] && !productText[h] {
			out = append(out, w)
		}
	}
	return out
}

// TestRedactedSessionHoldsNoText: for every transcript fixture and a generated session with
// every kind of content, the redacted page holds no piece of any input text, while the plain
// page does (so the check can fail).
func TestRedactedSessionHoldsNoText(t *testing.T) {
	dir := t.TempDir()
	m, err := fixtures.Generate(context.Background(), dir, fixtures.Options{Single: true, Entries: 300, Seed: 11,
		Faults: []string{"lost-prompt", "batched", "empty-error", "unpaired", "first-kept"}})
	if err != nil {
		t.Fatal(err)
	}
	inputs := []string{filepath.Join(dir, m.Single)}
	for _, name := range transcriptFixtures() {
		inputs = append(inputs, fixtureFile(t, name))
	}
	plainHits := 0
	for _, path := range inputs {
		t.Run(filepath.Base(path), func(t *testing.T) {
			texts := inputTexts(t, path)
			_, red := writeSession(t, path, view.Options{Redact: true})
			if l := leaked(texts, pageTexts(t, red)); len(l) > 0 {
				t.Errorf("redacted page holds %d input text piece(s), e.g. %q", len(l), l[0])
			}
			if bytes.Contains(red, []byte(path)) || bytes.Contains(red, []byte(filepath.Dir(path))) {
				t.Errorf("redacted page names the input's directory")
			}
			_, plain := writeSession(t, path, view.Options{})
			if len(texts) > 0 {
				if l := leaked(texts, pageTexts(t, plain)); len(l) > 0 {
					plainHits++
				}
			}
		})
	}
	if plainHits < len(inputs)/2 {
		t.Errorf("only %d of %d plain pages hold their input's texts: the leak check finds nothing", plainHits, len(inputs))
	}
}

// TestRedactedStateDir: the index page of the demo state dir, redacted, names no person part
// of a session key and not the state dir's path; the session pages hold no input text.
func TestRedactedStateDir(t *testing.T) {
	state := t.TempDir()
	if err := fixtures.WriteDemo(state); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res, err := view.Write(context.Background(), state, view.Options{OutDir: out, Redact: true})
	if err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(res.Index)
	if err != nil {
		t.Fatal(err)
	}
	all := pageTexts(t, index)
	if strings.Contains(all, state) {
		t.Error("redacted index names the state dir")
	}
	for _, key := range []string{"agent:main:slack:channel:c01236"} {
		if strings.Contains(all, "c01236") || strings.Contains(all, key) {
			t.Errorf("redacted index shows the key %s", key)
		}
	}
	if !strings.Contains(all, "agent:main:slack:channel:#") {
		t.Error("redacted keys must keep their structure (agent:main:slack:channel:#hash)")
	}
	if len(res.Pages) == 0 {
		t.Fatal("no session pages")
	}
	// the pages name their sources redacted: a page is matched to its input by the session
	// id in its title (a UUID: an id, which redaction keeps)
	byID := map[string]string{}
	inputs, _ := filepath.Glob(filepath.Join(state, "agents", "*", "sessions", "*.jsonl*"))
	for _, in := range inputs {
		f, err := jsonl.Open(in, nil)
		if err != nil {
			continue // a lock, a FIFO: not a page's source
		}
		var h struct{ ID string }
		json.NewDecoder(f).Decode(&h)
		f.Close()
		byID[h.ID] = in
	}
	for _, p := range res.Pages {
		html, err := os.ReadFile(p.Path)
		if err != nil {
			t.Fatal(err)
		}
		var d struct{ Title string }
		json.Unmarshal(decodePage(t, html).blocks["data"], &d)
		src, ok := byID[d.Title]
		if !ok {
			t.Errorf("%s: no input has the session id %q", p.Source, d.Title)
			continue
		}
		if l := leaked(inputTexts(t, src), pageTexts(t, html)); len(l) > 0 {
			t.Errorf("%s: redacted page holds %q", p.Source, l[0])
		}
		if strings.Contains(p.Source, state) {
			t.Errorf("%s: the page names its source's path", p.Source)
		}
	}
}

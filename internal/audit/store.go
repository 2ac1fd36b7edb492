package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/store"
)

// oversizedBlob is the size over which a skillsSnapshot or systemPromptReport is reported.
// Real stores carry a few KB to a few dozen KB; OpenClaw later moved big prompts to blobs.
const oversizedBlob = 256 << 10

// storeEntry is what the audit reads from one sessions.json row.
type storeEntry struct {
	SessionID          any                        `json:"sessionId"`
	SessionFile        any                        `json:"sessionFile"`
	CLISessionIDs      map[string]any             `json:"cliSessionIds"`
	CLISessionBindings map[string]json.RawMessage `json:"cliSessionBindings"`
	ClaudeCLISessionID any                        `json:"claudeCliSessionId"`
	SkillsSnapshot     json.RawMessage            `json:"skillsSnapshot"`
	SystemPromptReport json.RawMessage            `json:"systemPromptReport"`
}

// cliBinding is one CLI session id bound to a session key, for the cross-store check.
type cliBinding struct {
	id, provider, key, path string
	line                    int64
}

// storeResult is what a store check found besides findings.
type storeResult struct {
	referenced map[string]bool // base names of transcripts the store references
	entries    int
	ok         bool // the store parsed
}

// storeCheck is what the checks of one sessions.json share.
type storeCheck struct {
	dir      string
	data     []byte     // the store's bytes, for line numbers
	lines    *lineIndex // built on the first line number asked for
	names    []string   // every name of the dir as listed, sorted; nil: ask the file system
	skip     map[string]bool
	add      func(Finding)
	bindings *[]cliBinding
}

// line is the 1-based line of byte offset off. The index is built only when a finding needs
// a line: a clean 25 MB store has a million lines and no finding.
func (c *storeCheck) line(off int64) int64 {
	if c.lines == nil {
		li := newLineIndex(c.data)
		c.lines = &li
	}
	return c.lines.at(off)
}

// exists reports whether the transcript at path exists (an lstat that succeeds), from the
// dir's listing when path is in the dir (an lstat per row was a tenth of a state dir's store
// check).
func (c *storeCheck) exists(path string) bool {
	if c.names == nil || filepath.Dir(path) != filepath.Clean(c.dir) {
		_, err := os.Lstat(path)
		return err == nil
	}
	_, ok := slices.BinarySearch(c.names, filepath.Base(path))
	return ok
}

// checkStore audits dir/sessions.json. It returns the findings, the referenced transcript
// names and the CLI bindings for the cross-store check.
func checkStore(c *storeCheck) storeResult {
	data := c.data
	path := filepath.Join(c.dir, "sessions.json")
	res := storeResult{referenced: map[string]bool{}}
	add := c.add
	dec := json.NewDecoder(bytes.NewReader(data))
	corrupt := func(off int64, err error) storeResult {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			off = se.Offset
		case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
			off = int64(len(data)) // cut off: the error is at the end
		}
		add(newFinding("store.corrupt", path, c.line(off), "", fmt.Sprintf("sessions.json is not a valid JSON object (%v); OpenClaw silently treats it as empty, so its next write drops every session row and orphans their transcripts", err), "Do not start the gateway; run: clawdoctor repair "+path,
			map[string]any{"error": err.Error(), "offset": off}))
		return res
	}
	tok, err := dec.Token()
	if err != nil {
		if len(bytes.TrimSpace(data)) == 0 {
			err = fmt.Errorf("the file is empty")
		}
		return corrupt(dec.InputOffset(), err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return corrupt(0, fmt.Errorf("top level is %v, not an object", tok))
	}
	store.NoteParse()
	var rows []row
	for dec.More() {
		off := dec.InputOffset()
		kt, err := dec.Token()
		if err != nil {
			return corrupt(dec.InputOffset(), err)
		}
		key, _ := kt.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return corrupt(dec.InputOffset(), err)
		}
		rows = append(rows, row{key: key, off: skipSpace(data, off), raw: raw})
	}
	if _, err := dec.Token(); err != nil {
		return corrupt(dec.InputOffset(), err)
	}
	if rest := bytes.TrimSpace(data[dec.InputOffset():]); len(rest) > 0 {
		return corrupt(dec.InputOffset(), fmt.Errorf("%d bytes of garbage after the object", len(rest)))
	}
	return checkRows(c, rows)
}

// row is one member of sessions.json: its key, the offset of its key, its value.
type row struct {
	key string
	off int64
	raw json.RawMessage
}

// checkParsedStore audits a sessions.json its caller already parsed (Options.Stores), from
// the rows of that parse; a store whose rows it cannot take (a repeated key: each occurrence
// is a row here) is split again from its bytes by checkStore.
func checkParsedStore(c *storeCheck, s *store.Store) storeResult {
	c.data = s.Bytes()
	srows, ok := s.Rows()
	if !ok {
		return checkStore(c)
	}
	rows := make([]row, len(srows))
	for i, r := range srows {
		key := r.Key
		if !plainKey(r.KeyTok) {
			_ = json.Unmarshal(r.KeyTok, &key) // as encoding/json's tokenizer decodes it
		}
		rows[i] = row{key: key, off: int64(r.KeyOff), raw: r.Value}
	}
	return checkRows(c, rows)
}

// plainKey reports whether a key token is printable ASCII without escapes, which every
// decoder reads alike.
func plainKey(tok []byte) bool {
	for _, c := range tok {
		if c == '\\' || c < 0x20 || c >= 0x80 {
			return false
		}
	}
	return true
}

// checkRows checks the rows of a store that parsed.
func checkRows(c *storeCheck, rows []row) storeResult {
	dir, add := c.dir, c.add
	path := filepath.Join(dir, "sessions.json")
	res := storeResult{referenced: map[string]bool{}, ok: true, entries: len(rows)}
	resolver := store.NewResolver(dir, "", "")
	for _, r := range rows {
		var e storeEntry
		if len(r.raw) == 0 || r.raw[0] != '{' || json.Unmarshal(r.raw, &e) != nil {
			add(newFinding("store.invalid-entry", path, c.line(r.off), "", fmt.Sprintf("session row %q is not an object; a current gateway drops it on load", r.key), "", map[string]any{"key": r.key}))
			continue
		}
		id, _ := e.SessionID.(string)
		id = strings.TrimSpace(id)
		if !store.ValidSessionID(id) {
			add(newFinding("store.invalid-entry", path, c.line(r.off), "", fmt.Sprintf("session row %q has no safe sessionId (%v); a current gateway drops it on load", r.key, e.SessionID), "", map[string]any{"key": r.key, "sessionId": e.SessionID}))
			continue
		}
		sf, _ := e.SessionFile.(string)
		t := resolver.Resolve(id, sf)
		tp := t.Path
		if t.Rejected != "" || t.Outside {
			ev := map[string]any{"key": r.key, "sessionFile": sf, "resolvedVia": t.Via}
			what := "OpenClaw ignores it and uses " + filepath.Base(tp)
			if t.Rejected != "" {
				ev["rejected"] = t.Rejected
				ev["usedInstead"] = filepath.Base(tp)
			} else {
				what = "it resolves to " + tp + ", which clawdoctor will not touch"
			}
			add(newFinding("store.outside-path", path, c.line(r.off), id, fmt.Sprintf("session row %q has sessionFile %q, outside the sessions dir; %s, and a tool that follows it could touch an unrelated file",
				r.key, sf, what), "Correct or remove the row by hand: no clawdoctor command changes it", ev))
		}
		if !t.Outside {
			res.referenced[filepath.Base(tp)] = true
		}
		if !c.skip["store.missing-transcript"] && !c.exists(tp) {
			ev := map[string]any{"key": r.key, "sessionId": id, "expected": filepath.Base(tp)}
			archived := c.archivesOf(filepath.Base(tp))
			why := "nothing was archived"
			if len(archived) > 0 {
				ev["archives"] = archived
				why = fmt.Sprintf("only archives remain (%s)", strings.Join(firstN(archived, 3), ", "))
			}
			add(newFinding("store.missing-transcript", path, c.line(r.off), id, fmt.Sprintf("session row %q points at transcript %s, which does not exist (%s); the session's history is gone and OpenClaw starts it empty",
				r.key, filepath.Base(tp), why), "Run: clawdoctor cleanup --dry-run --fix-missing to see the row pruned", ev))
		}
		for _, blob := range []struct {
			name string
			raw  json.RawMessage
		}{{"skillsSnapshot", e.SkillsSnapshot}, {"systemPromptReport", e.SystemPromptReport}} {
			if len(blob.raw) > oversizedBlob {
				add(newFinding("store.oversized-entry", path, c.line(r.off), id, fmt.Sprintf("session row %q carries a %s of %.1f MB; the gateway re-reads and re-writes it on every store update, which slows every turn",
					r.key, blob.name, float64(len(blob.raw))/1e6), "Run: clawdoctor doctor --fix --yes (it strips the blob; OpenClaw regenerates it)", map[string]any{"key": r.key, "field": blob.name, "bytes": len(blob.raw)}))
			}
		}
		if !c.skip["cli.binding-mismatch"] || !c.skip["cli.shared-session-id"] {
			checkBindings(path, r.key, func() int64 { return c.line(r.off) }, id, &e, add, c.bindings)
		}
	}
	return res
}

// checkBindings compares cliSessionBindings, cliSessionIds and claudeCliSessionId of one row
// (context-and-forensics.md §5.4–5.5).
func checkBindings(path, key string, lineOf func() int64, id string, e *storeEntry, add func(Finding), bindings *[]cliBinding) {
	ids := map[string]map[string]string{} // provider → source → id
	put := func(provider, source, v string) {
		if v = strings.TrimSpace(v); v == "" {
			return
		}
		if ids[provider] == nil {
			ids[provider] = map[string]string{}
		}
		ids[provider][source] = v
	}
	for p, raw := range e.CLISessionBindings {
		var b struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(raw, &b) == nil {
			put(p, "cliSessionBindings", b.SessionID)
		}
	}
	for p, v := range e.CLISessionIDs {
		if s, ok := v.(string); ok {
			put(p, "cliSessionIds", s)
		}
	}
	if s, ok := e.ClaudeCLISessionID.(string); ok {
		put("claude-cli", "claudeCliSessionId", s)
	}
	if len(ids) == 0 {
		return
	}
	line := lineOf()
	for _, p := range slices.Sorted(maps.Keys(ids)) {
		src := ids[p]
		distinct := map[string]bool{}
		for _, v := range src {
			distinct[v] = true
		}
		if len(distinct) > 1 {
			add(newFinding("cli.binding-mismatch", path, line, id, fmt.Sprintf("session row %q binds %s to different CLI sessions (%s); OpenClaw may resume the stale one and hit \"No conversation found\" or \"Session ID … is already in use\"",
				key, p, describe(src)), "Run: clawdoctor doctor --fix (it clears the stale binding)", map[string]any{"key": key, "provider": p, "ids": src}))
		}
		bound := src["cliSessionBindings"]
		if bound == "" {
			bound = src["cliSessionIds"]
		}
		if bound == "" {
			bound = src["claudeCliSessionId"]
		}
		*bindings = append(*bindings, cliBinding{id: bound, provider: p, key: key, path: path, line: line})
	}
}

func describe(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ", ")
}

// sharedBindings reports CLI session ids bound to more than one session key.
func sharedBindings(bindings []cliBinding, add func(Finding)) {
	by := map[string][]cliBinding{}
	var order []string
	for _, b := range bindings {
		k := b.provider + "\x00" + b.id
		if by[k] == nil {
			order = append(order, k)
		}
		by[k] = append(by[k], b)
	}
	for _, k := range order {
		bs := by[k]
		if len(bs) < 2 {
			continue
		}
		var keys []string
		for _, b := range bs {
			keys = append(keys, b.key)
		}
		for _, b := range bs[1:] {
			add(newFinding("cli.shared-session-id", b.path, b.line, "", fmt.Sprintf("%s session %s is bound to %d session keys (%s); two conversations resume one CLI session and leak into each other",
				b.provider, b.id, len(bs), strings.Join(keys, ", ")), "Run: clawdoctor doctor --fix (the most recently used key keeps the binding)", map[string]any{"provider": b.provider, "cliSessionId": b.id, "keys": keys}))
		}
	}
}

// archivesOf lists the .reset./.deleted./.bak. archives of a transcript name in the dir, from
// its listing when there is one (it was a read of the whole dir per missing transcript).
func (c *storeCheck) archivesOf(base string) []string {
	names := c.names
	if names == nil {
		ents, err := os.ReadDir(c.dir)
		if err != nil {
			return nil
		}
		for _, e := range ents {
			names = append(names, e.Name())
		}
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, base+".") && archiveRE.MatchString(stripCompression(n)) {
			out = append(out, n)
		}
	}
	return out
}

// lineIndex maps byte offsets to 1-based line numbers.
type lineIndex struct{ starts []int64 }

func newLineIndex(data []byte) lineIndex {
	li := lineIndex{starts: []int64{0}}
	for i, c := range data {
		if c == '\n' {
			li.starts = append(li.starts, int64(i+1))
		}
	}
	return li
}

func (li lineIndex) at(off int64) int64 {
	return int64(sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > off }))
}

// skipSpace returns the offset of the first non-space byte at or after off, skipping a comma.
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) && (data[off] == ' ' || data[off] == '\n' || data[off] == '\r' || data[off] == '\t' || data[off] == ',') {
		off++
	}
	return off
}

package retention

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode/utf16"

	"github.com/clawdoctor/clawdoctor/jsonobj"
)

// ErrCorruptStore is returned for a sessions.json that is not a JSON object: OpenClaw would
// read it as an empty store and overwrite it, losing every row; we refuse.
var ErrCorruptStore = errors.New("sessions.json is not a valid JSON object")

// Loaded is a store read from disk: the planner input plus what Apply needs.
type Loaded struct {
	Input       Input
	SessionsDir string // absolute, as given
	RealDir     string // after symlinks
	Object      *jsonobj.Object
	Raw         []byte
	Dropped     []string // keys a current gateway drops on load (non-object, unsafe sessionId)
}

var safeIDLoose = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:@-]*$`)

func isSafeSessionID(s string) bool {
	t := strings.TrimSpace(s)
	if t == "" || len(t) > 255 || strings.ContainsAny(t, `/\`) || t == "." || t == ".." {
		return false
	}
	return safeIDLoose.MatchString(t)
}

// Gather reads the store at storePath and lists its sessions dir. It only reads.
func Gather(ctx context.Context, storePath, agentID string) (*Loaded, error) {
	abs, err := filepath.Abs(storePath)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(abs)
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("sessions dir %s: %w", dir, err)
	}
	l := &Loaded{SessionsDir: dir, RealDir: real}
	l.Input.AgentID = agentID
	l.Input.StorePath = abs
	l.Input.StoreName = filepath.Base(abs)
	raw, err := os.ReadFile(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		l.Object = &jsonobj.Object{}
	case err != nil:
		return nil, err
	default:
		l.Raw = raw
		obj, perr := jsonobj.Parse(raw)
		if perr != nil {
			return nil, fmt.Errorf("%s:%v: %w", abs, perr, ErrCorruptStore)
		}
		l.Object = obj
	}
	if err := l.listFiles(ctx); err != nil {
		return nil, err
	}
	exists := map[string]bool{}
	for _, f := range l.Input.Files {
		exists[f.Name] = true
	}
	for n, m := range l.Object.Members() {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		e, ok := l.entry(m.Key, m.Value)
		if !ok {
			l.Dropped = append(l.Dropped, m.Key)
			continue
		}
		l.Input.Entries = append(l.Input.Entries, e)
	}
	return l, nil
}

func (l *Loaded) listFiles(ctx context.Context) error {
	ents, err := os.ReadDir(l.SessionsDir)
	if err != nil {
		return err
	}
	for _, de := range ents {
		if !de.Type().IsRegular() {
			continue // symlinks, dirs, sockets: OpenClaw's dirent.isFile() is false for them
		}
		info, err := de.Info()
		if err != nil {
			continue
		}
		l.Input.Files = append(l.Input.Files, File{Name: de.Name(), Size: info.Size(), ModMs: float64(info.ModTime().UnixNano()) / 1e6})
	}
	root := filepath.Join(l.SessionsDir, "skills-prompts", "sha256")
	prefixes, _ := os.ReadDir(root)
	for _, p := range prefixes {
		if !p.IsDir() || len(p.Name()) != 2 || strings.Trim(p.Name(), "0123456789abcdef") != "" {
			continue
		}
		blobs, _ := os.ReadDir(filepath.Join(root, p.Name()))
		for _, b := range blobs {
			if !b.Type().IsRegular() || (!IsBlobName(b.Name()) && !IsBlobTemp(b.Name())) {
				continue
			}
			info, err := b.Info()
			if err != nil {
				continue
			}
			l.Input.Blobs = append(l.Input.Blobs, File{Name: "skills-prompts/sha256/" + p.Name() + "/" + b.Name(),
				Size: info.Size(), ModMs: float64(info.ModTime().UnixNano()) / 1e6})
		}
	}
	sort.Slice(l.Input.Blobs, func(a, b int) bool { return l.Input.Blobs[a].Name < l.Input.Blobs[b].Name })
	return ctx.Err()
}

func str(o *jsonobj.Object, key string) (string, bool) {
	v, ok := o.Get(key)
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// entry applies the load-time normalization of store-entry-shape.ts and the migrations, and
// computes everything the planner needs for one row.
func (l *Loaded) entry(key string, raw json.RawMessage) (Entry, bool) {
	o, err := jsonobj.Parse(raw)
	if err != nil {
		return Entry{}, false
	}
	o = o.Clone()
	e := Entry{Key: key}
	sessionFile, hasFile := str(o, "sessionFile")
	if _, present := o.Get("sessionFile"); present && !hasFile {
		o.Delete("sessionFile")
	}
	sessionFile = strings.TrimSpace(sessionFile)
	if v, present := o.Get("sessionId"); present {
		var id string
		if json.Unmarshal(v, &id) != nil || !isSafeSessionID(id) {
			return Entry{}, false
		}
		t := strings.TrimSpace(id)
		if _, ok := ValidSessionID(t); !ok && sessionFile == "" {
			o.Delete("sessionId")
		} else {
			e.SessionID = t
			if t != id {
				_ = o.SetValue("sessionId", t)
			}
		}
	}
	e.SessionFile = sessionFile
	if v, present := o.Get("updatedAt"); present {
		var f float64
		if json.Unmarshal(v, &f) == nil && !math.IsNaN(f) && f >= 0 && bytes.TrimSpace(v)[0] != '"' {
			e.UpdatedAt, e.HasUpdatedAt = f, true
		} else {
			e.UpdatedAt, e.HasUpdatedAt = 0, true
			_ = o.Set("updatedAt", json.RawMessage("0"))
		}
	}
	migrate(o)
	e.ChatType, _ = str(o, "chatType")
	if _, present := o.Get("chatType"); !present {
		if origin, ok, _ := o.GetObject("origin"); ok {
			e.ChatType, _ = str(origin, "chatType")
		}
	}
	e.Label, _ = str(o, "label")
	e.Model, _ = str(o, "model")
	if e.Model == "" {
		e.Model, _ = str(o, "modelOverride")
	}
	e.Flags = flags(o, e.SessionID)
	l.prompt(o, &e)
	l.resolve(o, &e)
	single := &jsonobj.Object{}
	_ = single.Set(key, mustCompact(o))
	if js, err := single.MarshalJS("  "); err == nil {
		e.ChunkBytes = int64(len(js)) - 4
	}
	return e, true
}

func mustCompact(o *jsonobj.Object) json.RawMessage {
	b, _ := o.MarshalJSON()
	return b
}

// migrate is applySessionStoreMigrations: provider → channel, lastProvider → lastChannel,
// room → groupChannel (a stray room is dropped).
func migrate(o *jsonobj.Object) {
	rename := func(from, to string) {
		if _, ok := str(o, to); ok {
			return
		}
		if v, ok := str(o, from); ok {
			o.Delete(from)
			_ = o.SetValue(to, v)
		}
	}
	rename("provider", "channel")
	rename("lastProvider", "lastChannel")
	if _, ok := str(o, "groupChannel"); !ok {
		if v, ok := str(o, "room"); ok {
			o.Delete("room")
			_ = o.SetValue("groupChannel", v)
			return
		}
	}
	o.Delete("room")
}

func flags(o *jsonobj.Object, id string) string {
	var out []string
	for _, f := range []struct{ key, label string }{{"thinkingLevel", "think"}, {"verboseLevel", "verbose"},
		{"reasoningLevel", "reasoning"}, {"elevatedLevel", "elev"}, {"responseUsage", "usage"}, {"groupActivation", "activation"}} {
		if v, ok := str(o, f.key); ok && v != "" {
			out = append(out, f.label+":"+v)
		}
	}
	if v, ok := o.Get("systemSent"); ok && string(v) == "true" {
		out = append(out, "system")
	}
	if v, ok := o.Get("abortedLastRun"); ok && string(v) == "true" {
		out = append(out, "aborted")
	}
	if id != "" {
		out = append(out, "id:"+id)
	}
	return strings.Join(out, " ")
}

type promptRef struct {
	Version   int    `json:"version"`
	Algorithm string `json:"algorithm"`
	Hash      string `json:"hash"`
	Bytes     int64  `json:"bytes"`
}

// prompt projects skillsSnapshot as the writer persists it: resolvedSkills stripped, a prompt
// of ≥ 512 UTF-16 units (≤ 512 KiB) moved to a sha256 blob, a promptRef whose blob is missing
// or invalid drops the whole snapshot (skill-prompt-blobs.ts).
func (l *Loaded) prompt(o *jsonobj.Object, e *Entry) {
	snap, ok, err := o.GetObject("skillsSnapshot")
	if !ok || err != nil {
		return
	}
	snap = snap.Clone()
	snap.Delete("resolvedSkills")
	prompt, isStr := str(snap, "prompt")
	if !isStr {
		var ref promptRef
		v, _ := snap.Get("promptRef")
		if json.Unmarshal(v, &ref) != nil || !l.validBlob(ref) {
			o.Delete("skillsSnapshot")
			return
		}
		snap.Delete("promptRef")
		prompt = l.readBlob(ref.Hash)
		_ = snap.SetValue("prompt", prompt)
	}
	if n := len(utf16.Encode([]rune(prompt))); n >= 512 && len(prompt) <= 512<<10 {
		sum := sha256.Sum256([]byte(prompt))
		ref := promptRef{Version: 1, Algorithm: "sha256", Hash: hex.EncodeToString(sum[:]), Bytes: int64(len(prompt))}
		snap.Delete("prompt")
		_ = snap.SetValue("promptRef", ref)
		e.PromptHash = ref.Hash
		e.PromptBytes = ref.Bytes
	}
	_ = o.Set("skillsSnapshot", mustCompact(snap))
}

func (l *Loaded) blobPath(hash string) string {
	return filepath.Join(l.SessionsDir, "skills-prompts", "sha256", hash[:2], hash+".txt")
}

func (l *Loaded) validBlob(ref promptRef) bool {
	if ref.Version != 1 || ref.Algorithm != "sha256" || len(ref.Hash) != 64 || strings.Trim(ref.Hash, "0123456789abcdef") != "" || ref.Bytes < 0 || ref.Bytes > 512<<10 {
		return false
	}
	data, err := os.ReadFile(l.blobPath(ref.Hash))
	if err != nil || int64(len(data)) != ref.Bytes {
		return false
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]) == ref.Hash
}

func (l *Loaded) readBlob(hash string) string {
	data, _ := os.ReadFile(l.blobPath(hash))
	return string(data)
}

// realpath is fs.realpathSync with a fallback to the path itself.
func realpath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// inside returns p relative to the real sessions dir when it lies inside it.
func (l *Loaded) inside(p string) (string, bool) {
	rel, err := filepath.Rel(l.RealDir, realpath(p))
	if err != nil || rel == "." || rel == "" || strings.HasPrefix(rel, "..") || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// resolve follows resolveSessionFilePath (paths.ts) for the entry and records where its
// transcript and checkpoints are.
func (l *Loaded) resolve(o *jsonobj.Object, e *Entry) {
	if cps, ok := o.Get("compactionCheckpoints"); ok {
		var list []struct {
			Pre  struct{ SessionFile string } `json:"preCompaction"`
			Post struct{ SessionFile string } `json:"postCompaction"`
		}
		if json.Unmarshal(cps, &list) == nil {
			for _, c := range list {
				for _, f := range []string{c.Pre.SessionFile, c.Post.SessionFile} {
					if f = strings.TrimSpace(f); f == "" {
						continue
					}
					abs, _ := filepath.Abs(f)
					if rel, ok := l.inside(abs); ok {
						e.Checkpoints = append(e.Checkpoints, rel)
					}
				}
			}
		}
	}
	if sf := e.SessionFile; sf != "" {
		cand := sf
		if !filepath.IsAbs(cand) {
			cand = filepath.Join(l.RealDir, cand)
		}
		if _, in := l.inside(cand); !in {
			e.Outside = realpath(filepath.Clean(cand))
		}
	}
	if e.SessionID == "" {
		return
	}
	p, ok := l.resolveFile(e.SessionFile, e.SessionID)
	if !ok {
		return
	}
	e.Resolvable = true
	st, err := os.Stat(p)
	e.TranscriptExists = err == nil
	rel, in := l.inside(p)
	if !in {
		if e.Outside == "" {
			e.Outside = p
		}
		return
	}
	e.Transcript = rel
	if err == nil && st.Mode().IsRegular() && st.Size() <= EmptyTranscriptMax {
		e.TranscriptEmpty = noMessages(filepath.Join(l.RealDir, filepath.FromSlash(rel)))
	}
}

func (l *Loaded) resolveFile(sessionFile, sessionID string) (string, bool) {
	if sessionFile != "" {
		if p, ok := l.within(sessionFile); ok {
			return p, true
		}
	}
	id, ok := ValidSessionID(sessionID)
	if !ok {
		return "", false
	}
	return l.within(id + ".jsonl")
}

// within is resolvePathWithinSessionsDir without an explicit agent id.
func (l *Loaded) within(cand string) (string, bool) {
	t := strings.TrimSpace(cand)
	if t == "" {
		return "", false
	}
	realT := t
	if filepath.IsAbs(t) {
		realT = realpath(t)
	}
	norm := realT
	if filepath.IsAbs(realT) {
		norm, _ = filepath.Rel(l.RealDir, realT)
	}
	if strings.HasPrefix(norm, "..") && filepath.IsAbs(realT) {
		if p, ok := structuralFallback(realT, l.RealDir); ok {
			return p, true
		}
	}
	if norm == "" || strings.HasPrefix(norm, "..") || filepath.IsAbs(norm) {
		return "", false
	}
	return filepath.Join(l.RealDir, norm), true
}

// structuralFallback covers the sibling-agent remap and the structural fallback of paths.ts:
// an absolute .../agents/<id>/sessions/<file> path is accepted as is (it usually points at
// another machine's or agent's dir, so it lands outside ours).
func structuralFallback(p, realDir string) (string, bool) {
	parts := strings.FieldsFunc(filepath.Clean(p), func(r rune) bool { return r == filepath.Separator })
	idx := -1
	for i := len(parts) - 1; i >= 0; i-- {
		if parts[i] == "sessions" {
			idx = i
			break
		}
	}
	if idx < 2 || parts[idx-2] != "agents" {
		return "", false
	}
	agent := parts[idx-1]
	// sibling: <root>/agents/<agent>/sessions next to ours
	if filepath.Base(realDir) == "sessions" && filepath.Base(filepath.Dir(filepath.Dir(realDir))) == "agents" {
		sib := filepath.Join(filepath.Dir(filepath.Dir(realDir)), normalizeAgent(agent), "sessions")
		if rel, err := filepath.Rel(realpath(sib), p); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			return filepath.Join(realpath(sib), rel), true
		}
	}
	if normalizeAgent(agent) != strings.ToLower(strings.TrimSpace(agent)) {
		return "", false
	}
	if len(parts)-idx-1 != 1 || parts[idx+1] == "." || parts[idx+1] == ".." {
		return "", false
	}
	return filepath.Clean(p), true
}

// noMessages is transcriptHasNoMessageRecords for a file already known to be ≤ 4096 bytes.
func noMessages(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, EmptyTranscriptMax+1))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		var rec any
		if json.Unmarshal([]byte(line), &rec) != nil {
			return false
		}
		if isMessageRecord(rec) {
			return false
		}
	}
	return true
}

func isMessageRole(v any) bool {
	switch v {
	case "user", "assistant", "tool", "toolResult", "system":
		return true
	}
	return false
}

func isMessageRecord(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	t, hasType := m["type"]
	if t == "message" {
		return true
	}
	if hasType {
		return false
	}
	if msg, ok := m["message"].(map[string]any); ok && isMessageRole(msg["role"]) {
		return true
	}
	return isMessageRole(m["role"])
}

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
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/valyala/fastjson"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/internal/safefile"
	"github.com/clawdoctor/clawdoctor/internal/store"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// ErrCorruptStore is returned for a sessions.json that is not a JSON object: OpenClaw would
// read it as an empty store and overwrite it, losing every row; we refuse.
var ErrCorruptStore = errors.New("sessions.json is not a valid JSON object")

// Loaded is a store read from disk: the planner input plus what Apply needs.
type Loaded struct {
	Input       Input
	SessionsDir string   // absolute, as given
	RealDir     string   // after symlinks
	Digest      [32]byte // sha256 of sessions.json as read (zero when missing)
	Missing     bool     // no sessions.json
	Dropped     []string // keys a current gateway drops on load (non-object, unsafe sessionId)

	opt   GatherOptions
	names map[string]int32 // top-level names → index in Input.Files, -1 when not a regular file
}

// GatherOptions say what the planner will need beyond the store and the listing.
type GatherOptions struct {
	// FixMissing reads every transcript of ≤ 4096 bytes to learn whether it has messages.
	FixMissing bool
	// Listing is the sessions dir as its caller already listed it (doctor lists it once for
	// every check); nil means the dir is listed here.
	Listing []DirEntry
}

// DirEntry is one name in a sessions dir as a caller listed it: os.ReadDir's entry, with the
// size and modification time of a regular file (from its Lstat, as DirEntry.Info gives them).
// The planner reads Size and ModTime only when Regular; ListDir also fills them, with Type,
// for the other names it could lstat (doctor reads its whole listing from one ListDir).
type DirEntry struct {
	Name    string
	Regular bool
	Size    int64
	ModTime time.Time
	Type    fs.FileMode // the lstat's type bits (fs.ModeDir, fs.ModeSymlink, ...), when Stated
	Stated  bool        // the lstat succeeded (false: the name vanished while it was listed)
}

// isSafeSessionID: the trimmed id is at most 255 bytes matching ^[A-Za-z0-9][A-Za-z0-9._:@-]*$
// (a loop, not the regexp: it ran once a row, a fifth of reading the rows of a big store).
func isSafeSessionID(s string) bool {
	t := strings.TrimSpace(s)
	if t == "" || len(t) > 255 || t == "." || t == ".." {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != ':' && c != '@' && c != '-') {
			return false
		}
	}
	return true
}

// Gather reads the store at storePath and lists its sessions dir, with everything fix-missing
// needs. It only reads.
func Gather(ctx context.Context, storePath, agentID string) (*Loaded, error) {
	return GatherWith(ctx, storePath, agentID, GatherOptions{FixMissing: true})
}

// GatherWith is Gather with options: without FixMissing no transcript is opened.
func GatherWith(ctx context.Context, storePath, agentID string, opt GatherOptions) (*Loaded, error) {
	return gather(ctx, storePath, agentID, opt, nil)
}

// GatherStore is GatherWith over a sessions.json its caller already parsed (doctor's parse of
// the file at storePath): the plan takes the store's rows instead of reading and splitting the
// file again. A store whose rows cannot be taken as they are (a repeated key) is split from
// its bytes, as GatherWith would.
func GatherStore(ctx context.Context, storePath, agentID string, s *store.Store, opt GatherOptions) (*Loaded, error) {
	return gather(ctx, storePath, agentID, opt, s)
}

func gather(ctx context.Context, storePath, agentID string, opt GatherOptions, parsed *store.Store) (*Loaded, error) {
	abs, err := filepath.Abs(storePath)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(abs)
	real, err := filepath.EvalSymlinks(dir)
	if errors.Is(err, os.ErrNotExist) {
		// No sessions dir: an empty store, as OpenClaw reads it (nothing to plan, nothing written).
		l := &Loaded{SessionsDir: dir, RealDir: dir, Missing: true, opt: opt, names: map[string]int32{}}
		l.Input = Input{AgentID: agentID, StorePath: abs, StoreName: filepath.Base(abs)}
		return l, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sessions dir %s: %w", dir, err)
	}
	l := &Loaded{SessionsDir: dir, RealDir: real, opt: opt, names: map[string]int32{}}
	l.Input.AgentID = agentID
	l.Input.StorePath = abs
	l.Input.StoreName = filepath.Base(abs)
	// The listing (one lstat per file) runs while the store is read and split.
	listed := make(chan error, 1)
	go func() { listed <- l.listFiles(ctx) }()
	var members []member
	var raw []byte
	var rowsOK bool
	switch {
	case parsed != nil && parsed.Missing:
		err = os.ErrNotExist
	case parsed != nil:
		raw = parsed.Bytes()
		members, rowsOK = storeMembers(parsed)
	default:
		raw, err = store.ReadStoreFile(ctx, abs)
	}
	switch {
	case errors.Is(err, os.ErrNotExist):
		l.Missing = true
	case err != nil:
		<-listed
		return nil, err
	case rowsOK:
		l.Digest = sha256.Sum256(raw)
	default:
		l.Digest = sha256.Sum256(raw)
		if members, err = splitObject(raw); errors.Is(err, jsonl.ErrTooDeep) {
			<-listed
			return nil, fmt.Errorf("%s: %w: not examined, nothing planned (OpenClaw reads it)", abs, err)
		} else if err != nil {
			<-listed
			if _, perr := jsonobj.Parse(raw); perr != nil {
				err = perr // it has line and column
			}
			return nil, fmt.Errorf("%s:%v: %w", abs, err, ErrCorruptStore)
		}
	}
	// The rows are read while the listing ends (its last steps are one goroutine's), and
	// only their transcripts and checkpoints are looked up in it after.
	ents, cps, status, err := l.entries(ctx, members)
	if lerr := <-listed; lerr != nil {
		return nil, lerr
	}
	if err != nil {
		return nil, err
	}
	if err := l.resolveAll(ctx, ents, cps, status); err != nil {
		return nil, err
	}
	for i, st := range status {
		switch st {
		case rowTooDeep:
			// A row we cannot read would look absent: its transcript would count as
			// unreferenced. Plan nothing rather than plan wrong.
			return nil, fmt.Errorf("%s: row %q is nested deeper than the 300 levels clawdoctor's cleanup reads (OpenClaw reads it): nothing planned: %w", abs, members[i].key, jsonl.ErrTooDeep)
		case rowDropped:
			l.Dropped = append(l.Dropped, members[i].key)
		}
	}
	l.Input.Entries = ents[:0]
	for i := range ents {
		if status[i] == rowKept {
			l.Input.Entries = append(l.Input.Entries, ents[i])
		}
	}
	return l, nil
}

// What entry made of a row.
const (
	rowKept    = iota
	rowDropped // a current gateway drops it on load
	rowTooDeep // nested deeper than fastjson reads
)

// entries reads every member into a planner entry (all but what resolve adds from the
// listing; cps are the checkpoint files each names), one worker per core over chunks of rows
// (a row only reads the store and its own files): on the 100,000-row store of issue 14 this
// was the longest serial step of the plan.
func (l *Loaded) entries(ctx context.Context, members []member) ([]Entry, [][]string, []uint8, error) {
	ents := make([]Entry, len(members))
	cps := make([][]string, len(members))
	status := make([]uint8, len(members))
	err := chunked(ctx, len(members), func() func(i int) {
		var p fastjson.Parser
		return func(i int) {
			m := members[i]
			ents[i], cps[i], status[i] = l.entry(&p, m.key, m.keyTok, m.value)
		}
	})
	return ents, cps, status, err
}

// resolveAll finds the transcript and checkpoints of each kept entry in the listing.
func (l *Loaded) resolveAll(ctx context.Context, ents []Entry, cps [][]string, status []uint8) error {
	return chunked(ctx, len(ents), func() func(i int) {
		return func(i int) {
			if status[i] == rowKept {
				l.resolve(cps[i], &ents[i])
			}
		}
	})
}

// chunked calls the function each worker's mk makes for every index below n, one worker per
// core (at most 4) over chunks of 1,024 indexes.
func chunked(ctx context.Context, n int, mk func() func(i int)) error {
	const chunk = 1024
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), 4, n/chunk+1) {
		wg.Go(func() {
			f := mk()
			for ctx.Err() == nil {
				lo := int(next.Add(chunk)) - chunk
				if lo >= n {
					return
				}
				for i := lo; i < min(lo+chunk, n); i++ {
					f(i)
				}
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

type member struct {
	key    string
	keyTok []byte
	value  json.RawMessage
}

// splitObject splits a JSON object into its members in JSON.parse order: a repeated key keeps
// its first position and takes its last value. It validates with fastjson, then finds member
// boundaries in one pass; values stay raw slices of data (no tree).
// StoreVerdict is the grammar's verdict on a sessions.json as cleanup reads it: nil, an error
// wrapping jsonl.ErrTooDeep, or another error (not JSON, not an object). The grammar test
// checks it against the project's other parsers.
func StoreVerdict(data []byte) error {
	_, err := splitObject(data)
	return err
}

func splitObject(data []byte) ([]member, error) {
	store.NoteParse()
	if err := jsonl.Check(data); err != nil { // the one grammar (fastjson.ValidateBytes has no depth limit)
		return nil, err
	}
	rows, ok := store.Members(data)
	if !ok {
		return nil, jsonobj.ErrNotObject
	}
	out := make([]member, 0, len(rows))
	seen := make(map[string]int, len(rows)) // sized: 100,000 keys grew it by rehashing
	for _, r := range rows {
		// Members decoded a key without escapes already; memberKey also decodes escapes and
		// replaces invalid UTF-8 as JSON.parse does (a second copy of every key before)
		key := r.Key
		if key == "" || !utf8.ValidString(key) {
			var err error
			if key, err = memberKey(r.KeyTok); err != nil {
				return nil, err
			}
		}
		if at, dup := seen[key]; dup {
			out[at].value = r.Value
			continue
		}
		seen[key] = len(out)
		out = append(out, member{key: key, keyTok: r.KeyTok, value: r.Value})
	}
	jsOrder(out)
	return out, nil
}

// storeMembers takes the members of an already parsed store (store.Rows) as splitObject
// would give them; ok is false when they cannot be taken as they are.
func storeMembers(s *store.Store) ([]member, bool) {
	rows, ok := s.Rows()
	if !ok {
		return nil, false
	}
	out := make([]member, len(rows))
	for i, r := range rows {
		key, err := memberKey(r.KeyTok)
		if err != nil {
			return nil, false
		}
		out[i] = member{key: key, keyTok: r.KeyTok, value: r.Value}
	}
	jsOrder(out)
	return out, true
}

// memberKey decodes a key token as JSON.parse does.
func memberKey(keyTok []byte) (string, error) {
	key := string(keyTok[1 : len(keyTok)-1])
	if bytes.IndexByte(keyTok, '\\') >= 0 || !utf8.Valid(keyTok) {
		if err := json.Unmarshal(keyTok, &key); err != nil {
			return "", err
		}
	}
	return key, nil
}

// jsOrder puts members in JS own-property order: canonical array-index keys first,
// ascending, the rest in source order.
func jsOrder(out []member) {
	sort.SliceStable(out, func(a, b int) bool {
		ia, oka := arrayIndex(out[a].key)
		ib, okb := arrayIndex(out[b].key)
		if oka && okb {
			return ia < ib
		}
		return oka && !okb
	})
}

func arrayIndex(k string) (uint64, bool) {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return 0, false
	}
	var n uint64
	for _, c := range k {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, n < 1<<32-1
}

func (l *Loaded) listFiles(ctx context.Context) error {
	ents := l.opt.Listing
	if ents == nil {
		var err error
		if ents, err = ListDir(ctx, l.SessionsDir); err != nil {
			return err
		}
	}
	if len(l.names) == 0 {
		l.names = make(map[string]int32, len(ents)) // sized: 200,000 names grew it by rehashing
	}
	l.Input.Files = slices.Grow(l.Input.Files, len(ents))
	l.Input.names = l.names // Make looks sizes up in it instead of indexing the files again
	for _, de := range ents {
		l.names[de.Name] = -1
		if !de.Regular {
			continue
		}
		l.names[de.Name] = int32(len(l.Input.Files))
		l.Input.Files = append(l.Input.Files, File{Name: de.Name, Size: de.Size, ModMs: float64(de.ModTime.UnixNano()) / 1e6,
			class: classify(de.Name, l.Input.StoreName)})
	}
	for _, f := range l.Input.Files { // one probe: is a name's other case the same file?
		if IsPrimaryTranscript(f.Name) {
			l.Input.FoldCase = store.CaseInsensitiveDir(l.SessionsDir, f.Name)
			break
		}
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
	return jsString(v)
}

// jsString decodes v when it is a JSON string.
func jsString(v json.RawMessage) (string, bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	if s, ok := store.PlainString(v); ok {
		return s, true
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// rawEntry holds the fields of an entry the planner reads (nil when absent), as fastjson
// values valid until the next parse.
type rawEntry struct {
	SessionID, SessionFile, UpdatedAt, ChatType, Origin, Label, Model, ModelOverride *fastjson.Value
	ThinkingLevel, VerboseLevel, ReasoningLevel, ElevatedLevel, ResponseUsage        *fastjson.Value
	GroupActivation, SystemSent, AbortedLastRun, SkillsSnapshot, Checkpoints         *fastjson.Value
	Provider, LastProvider, Room                                                     *fastjson.Value
}

func (r *rawEntry) set(key []byte, v *fastjson.Value) {
	switch string(key) {
	case "sessionId":
		r.SessionID = v
	case "sessionFile":
		r.SessionFile = v
	case "updatedAt":
		r.UpdatedAt = v
	case "chatType":
		r.ChatType = v
	case "origin":
		r.Origin = v
	case "label":
		r.Label = v
	case "model":
		r.Model = v
	case "modelOverride":
		r.ModelOverride = v
	case "thinkingLevel":
		r.ThinkingLevel = v
	case "verboseLevel":
		r.VerboseLevel = v
	case "reasoningLevel":
		r.ReasoningLevel = v
	case "elevatedLevel":
		r.ElevatedLevel = v
	case "responseUsage":
		r.ResponseUsage = v
	case "groupActivation":
		r.GroupActivation = v
	case "systemSent":
		r.SystemSent = v
	case "abortedLastRun":
		r.AbortedLastRun = v
	case "skillsSnapshot":
		r.SkillsSnapshot = v
	case "compactionCheckpoints":
		r.Checkpoints = v
	case "provider":
		r.Provider = v
	case "lastProvider":
		r.LastProvider = v
	case "room":
		r.Room = v
	}
}

// fstr returns v as a string when it is a JSON string.
func fstr(v *fastjson.Value) (string, bool) {
	if v == nil || v.Type() != fastjson.TypeString {
		return "", false
	}
	b, _ := v.StringBytes()
	return string(b), true
}

// entry applies the load-time normalization of store-entry-shape.ts and the migrations, and
// computes everything the planner needs for one row. Rows that normalization leaves alone
// (all rows OpenClaw itself wrote) take a fast path: their size comes from the raw bytes.
func (l *Loaded) entry(parser *fastjson.Parser, key string, keyTok []byte, raw json.RawMessage) (Entry, []string, uint8) {
	if len(raw) == 0 || raw[0] != '{' {
		return Entry{}, nil, rowDropped
	}
	v, err := parser.ParseBytes(raw)
	if err != nil {
		// raw is valid JSON (splitObject checked): fastjson only stops at 300 levels.
		return Entry{}, nil, rowTooDeep
	}
	obj, _ := v.Object()
	var r rawEntry
	obj.Visit(r.set)
	e := Entry{Key: key}
	rewrite := false
	sessionFile, hasFile := fstr(r.SessionFile)
	if r.SessionFile != nil && !hasFile {
		rewrite = true // a non-string sessionFile is dropped
	}
	sessionFile = strings.TrimSpace(sessionFile)
	rawID, _ := fstr(r.SessionID)
	if r.SessionID != nil {
		if r.SessionID.Type() != fastjson.TypeString || !isSafeSessionID(rawID) {
			return Entry{}, nil, rowDropped
		}
		t := strings.TrimSpace(rawID)
		if _, ok := ValidSessionID(t); !ok && sessionFile == "" {
			rewrite = true // sessionId dropped
		} else {
			e.SessionID = t
			rewrite = rewrite || t != rawID
		}
	}
	e.SessionFile = sessionFile
	if r.UpdatedAt != nil {
		if f, err := r.UpdatedAt.Float64(); err == nil && r.UpdatedAt.Type() == fastjson.TypeNumber && f >= 0 {
			e.UpdatedAt, e.HasUpdatedAt = f, true
		} else {
			e.UpdatedAt, e.HasUpdatedAt = 0, true
			rewrite = true
		}
	}
	if r.Provider != nil || r.LastProvider != nil || r.Room != nil {
		rewrite = true
	}
	if r.ChatType != nil {
		e.ChatType, _ = fstr(r.ChatType)
	} else if r.Origin != nil {
		e.ChatType, _ = fstr(r.Origin.Get("chatType"))
	}
	e.Label, _ = fstr(r.Label)
	e.Model, _ = fstr(r.Model)
	if e.Model == "" {
		e.Model, _ = fstr(r.ModelOverride)
	}
	e.Flags = flags(&r, e.SessionID)
	if r.SkillsSnapshot != nil && r.SkillsSnapshot.Type() == fastjson.TypeObject {
		prompt, isStr := fstr(r.SkillsSnapshot.Get("prompt"))
		if r.SkillsSnapshot.Exists("resolvedSkills") || !isStr || utf16Len(prompt) >= 512 {
			rewrite = true
		}
	}
	var checkpoints []string
	if r.Checkpoints != nil {
		items, _ := r.Checkpoints.Array()
		for _, it := range items {
			for _, side := range []string{"preCompaction", "postCompaction"} {
				if f, ok := fstr(it.Get(side, "sessionFile")); ok {
					checkpoints = append(checkpoints, f)
				}
			}
		}
	}
	// l.resolve(checkpoints, &e) is left to resolveAll, once the listing is read
	delivery, _ := deliveryDelta(obj)
	if !rewrite && canonical(raw) {
		e.ChunkBytes = int64(2+len(keyTok)+2) + int64(len(raw)) + int64(delivery)
		return e, checkpoints, rowKept
	}
	o, err := jsonobj.Parse(raw)
	if err != nil {
		return Entry{}, nil, rowDropped
	}
	if r.SessionFile != nil && !hasFile {
		o.Delete("sessionFile")
	}
	if r.SessionID != nil {
		if e.SessionID == "" {
			o.Delete("sessionId")
		} else if rawID != e.SessionID {
			_ = o.SetValue("sessionId", e.SessionID)
		}
	}
	if r.UpdatedAt != nil && e.UpdatedAt == 0 {
		_ = o.Set("updatedAt", json.RawMessage("0"))
	}
	migrate(o)
	l.prompt(o, &e)
	single := &jsonobj.Object{}
	_ = single.Set(key, mustCompact(o))
	if js, err := single.MarshalJS("  "); err == nil {
		e.ChunkBytes = int64(len(js)) - 4 + int64(delivery)
	}
	return e, checkpoints, rowKept
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// canonical reports whether raw is laid out as JSON.stringify(v, null, 2) writes a
// top-level member's value: "{}" or "{\n    ...\n  }" without escapes JS would not write.
// OpenClaw-written stores always are; for others the exact re-serialization is computed.
func canonical(raw []byte) bool {
	if string(raw) == "{}" {
		return true
	}
	if !bytes.HasPrefix(raw, []byte("{\n    \"")) || !bytes.HasSuffix(raw, []byte("\n  }")) {
		return false
	}
	return !bytes.Contains(raw, []byte(`\u`)) && !bytes.Contains(raw, []byte(`\/`)) && !bytes.Contains(raw, []byte("\t")) &&
		!bytes.Contains(raw, []byte("\r"))
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

func flags(r *rawEntry, id string) string {
	var out []string
	for _, f := range []struct {
		v     *fastjson.Value
		label string
	}{{r.ThinkingLevel, "think"}, {r.VerboseLevel, "verbose"}, {r.ReasoningLevel, "reasoning"},
		{r.ElevatedLevel, "elev"}, {r.ResponseUsage, "usage"}, {r.GroupActivation, "activation"}} {
		if v, ok := fstr(f.v); ok && v != "" {
			out = append(out, f.label+":"+v)
		}
	}
	if r.SystemSent != nil && r.SystemSent.Type() == fastjson.TypeTrue {
		out = append(out, "system")
	}
	if r.AbortedLastRun != nil && r.AbortedLastRun.Type() == fastjson.TypeTrue {
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
	if utf16Len(prompt) >= 512 && len(prompt) <= 512<<10 {
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
	data, err := safefile.ReadFile(context.Background(), l.blobPath(ref.Hash), 512<<10, "")
	if err != nil || int64(len(data)) != ref.Bytes {
		return false
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]) == ref.Hash
}

func (l *Loaded) readBlob(hash string) string {
	data, _ := safefile.ReadFile(context.Background(), l.blobPath(hash), 512<<10, "")
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
	if dir, name := filepath.Split(p); filepath.Clean(dir) == l.RealDir && name != "" && name != "." && name != ".." {
		if i, listed := l.names[name]; !listed || i >= 0 {
			return name, true // a regular file or nothing: no symlink to follow
		}
	}
	rel, err := filepath.Rel(l.RealDir, realpath(p))
	if err != nil || rel == "." || rel == "" || strings.HasPrefix(rel, "..") || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// resolve follows resolveSessionFilePath (paths.ts) for the entry and records where its
// transcript and checkpoints are.
func (l *Loaded) resolve(checkpoints []string, e *Entry) {
	for _, f := range checkpoints {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		abs, _ := filepath.Abs(f)
		if rel, ok := l.inside(abs); ok {
			e.Checkpoints = append(e.Checkpoints, rel)
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
	rel, in := l.inside(p)
	if !in {
		if e.Outside == "" {
			e.Outside = p
		}
		_, err := os.Stat(p)
		e.TranscriptExists = err == nil
		return
	}
	e.Transcript = rel
	var size int64 = -1
	if i, listed := l.names[rel]; listed && i >= 0 {
		e.TranscriptExists = true
		size = l.Input.Files[i].Size
	} else if listed || strings.Contains(rel, "/") {
		if st, err := os.Stat(p); err == nil {
			e.TranscriptExists = true
			if st.Mode().IsRegular() {
				size = st.Size()
			}
		}
	}
	if l.opt.FixMissing && size >= 0 && size <= EmptyTranscriptMax {
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
	f, err := safefile.Open(path)
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

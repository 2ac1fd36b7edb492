package session

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
)

// CurrentVersion is the session format version pi writes (CURRENT_SESSION_VERSION).
const CurrentVersion = 3

// MigrateOptions tune Migrate.
type MigrateOptions struct {
	// NewID returns a fresh entry id for the v1→v2 step; taken reports ids already used in the
	// result. nil means 8 random lowercase hex digits, retried on collision (pi's generateId).
	NewID func(taken func(string) bool) string
	// Stringify re-serializes every line as pi's rewrite does (JSON.stringify of the parsed
	// line: compact, JS escaping, integer-like keys first). Without it only the touched values
	// change and every other byte of every line is kept.
	Stringify bool
}

// MigrateResult is the outcome of Migrate.
type MigrateResult struct {
	Lines       [][]byte // the lines after migration, one per input line
	From        int      // the version found (1 when the header has none, 0 when it is not a number)
	Changed     bool     // a migration ran
	RenamedRole int      // hookMessage roles renamed to custom (v2→v3)
	NewIDs      int      // ids assigned (v1→v2)
	// Skipped lists the 0-based input lines that are not JSON objects. They are passed through
	// unchanged; pi would have dropped unparseable ones and thrown on non-objects.
	Skipped []int
}

// Migrate brings a transcript to version 3 as pi's migrateToCurrentVersion does on load
// (spec §2.10). lines are the transcript's lines in file order, header included (pi works on
// the lines that parse; blank and malformed lines are passed through and listed in Skipped).
// It is a pure function: nothing is read or written.
//
//   - v1→v2: every "session" line gets version 2; every other entry, in file order, gets a
//     fresh id and parentId = the previous entry's id (null for the first), making a linear
//     chain; a compaction's numeric firstKeptEntryIndex (an index into all lines, header
//     included) becomes firstKeptEntryId = the id that line has at that moment, unless it is a
//     header or missing, and the index field is deleted.
//   - v2→v3: every "session" line gets version 3; a message whose role is "hookMessage" gets
//     role "custom".
//
// New keys go at the end of their object, as a JavaScript assignment puts them.
func Migrate(lines [][]byte, opts MigrateOptions) (MigrateResult, error) {
	res := MigrateResult{Lines: make([][]byte, len(lines)), From: 1}
	objs := make([]bool, len(lines))
	for i, l := range lines {
		res.Lines[i] = l
		t := trimWS(l)
		objs[i] = len(t) > 0 && t[0] == '{' && json.Valid(t)
		if !objs[i] {
			res.Skipped = append(res.Skipped, i)
		}
	}
	// The version comes from the first "session" line, compared as JavaScript would.
	version := 1.0
	for i, l := range lines {
		if objs[i] && typeOf(l) == TypeSession {
			if v, ok, _ := GetField(l, "version"); ok && string(v) != "null" {
				version = jsToNumber(v)
			}
			break
		}
	}
	if version >= CurrentVersion {
		res.From = int(math.Min(version, 1<<30))
		return res, nil
	}
	if !math.IsNaN(version) {
		res.From = int(math.Max(version, -1))
	} else {
		res.From = 0 // NaN: pi rewrites the file but no step applies
	}
	res.Changed = true
	newID := opts.NewID
	if newID == nil {
		newID = randomID
	}
	set := func(i int, path string, v []byte) error {
		out, err := SetField(res.Lines[i], path, v)
		if err != nil {
			return fmt.Errorf("line %d: %w", i+1, err)
		}
		res.Lines[i] = out
		return nil
	}
	if version < 2 {
		taken := map[string]bool{}
		isTaken := func(id string) bool { return taken[id] }
		prev := []byte("null")
		for i := range res.Lines {
			if !objs[i] {
				continue
			}
			if typeOf(res.Lines[i]) == TypeSession {
				if err := set(i, "version", []byte("2")); err != nil {
					return res, err
				}
				continue
			}
			id := newID(isTaken)
			taken[id] = true
			res.NewIDs++
			idJSON := jsonobj.Quote(id)
			if err := set(i, "id", idJSON); err != nil {
				return res, err
			}
			if err := set(i, "parentId", prev); err != nil {
				return res, err
			}
			prev = idJSON
			if typeOf(res.Lines[i]) != TypeCompaction {
				continue
			}
			raw, ok, _ := GetField(res.Lines[i], "firstKeptEntryIndex")
			var idx float64
			if !ok || len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) || json.Unmarshal(raw, &idx) != nil {
				continue
			}
			if idx == math.Trunc(idx) && idx >= 0 && idx < float64(len(res.Lines)) {
				t := int(idx)
				if objs[t] && typeOf(res.Lines[t]) != TypeSession {
					if v, ok, _ := GetField(res.Lines[t], "id"); ok {
						if err := set(i, "firstKeptEntryId", v); err != nil {
							return res, err
						}
					} else if _, had, _ := GetField(res.Lines[i], "firstKeptEntryId"); had {
						// Assigning undefined: JSON.stringify then leaves the key out.
						res.Lines[i], _, _ = DeleteField(res.Lines[i], "firstKeptEntryId")
					}
				}
			}
			res.Lines[i], _, _ = DeleteField(res.Lines[i], "firstKeptEntryIndex")
		}
	}
	for i := range res.Lines {
		if !objs[i] || !(version < 3) {
			continue
		}
		switch typeOf(res.Lines[i]) {
		case TypeSession:
			if err := set(i, "version", []byte("3")); err != nil {
				return res, err
			}
		case TypeMessage:
			if role, ok, _ := GetField(res.Lines[i], "message.role"); ok && string(role) == `"hookMessage"` {
				if err := set(i, "message.role", []byte(`"custom"`)); err != nil {
					return res, err
				}
				res.RenamedRole++
			}
		}
	}
	if opts.Stringify {
		for i := range res.Lines {
			if !objs[i] {
				continue
			}
			out, err := jsonobj.Stringify(res.Lines[i], "")
			if err != nil {
				return res, fmt.Errorf("line %d: %w", i+1, err)
			}
			res.Lines[i] = out
		}
	}
	return res, nil
}

// typeOf returns the top-level "type" string of a line ("" if none).
func typeOf(line []byte) string {
	v, ok, _ := GetField(line, "type")
	if !ok {
		return ""
	}
	s, ok := jsonobj.Unquote(v)
	if !ok {
		return ""
	}
	return string(s)
}

// randomID is pi's generateId: the first 8 hex digits of a random UUID, retried up to 100
// times on collision, then a full random id.
func randomID(taken func(string) bool) string {
	var b [16]byte
	for range 100 {
		_, _ = rand.Read(b[:4])
		if id := hex.EncodeToString(b[:4]); !taken(id) {
			return id
		}
	}
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// jsToNumber converts a raw JSON value as JavaScript's Number() would (NaN for objects, arrays
// and non-numeric strings).
func jsToNumber(v []byte) float64 {
	switch {
	case len(v) == 0:
		return math.NaN()
	case string(v) == "true":
		return 1
	case string(v) == "false", string(v) == "null":
		return 0
	case v[0] == '"':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return math.NaN()
		}
		s = JSTrim(s)
		if s == "" {
			return 0
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return math.NaN()
		}
		return f
	case v[0] == '{' || v[0] == '[':
		return math.NaN()
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

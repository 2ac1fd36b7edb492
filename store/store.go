// Package store reads and writes the OpenClaw state dir (store.md §1–2, §6–7): its agents,
// sessions.json with a byte-exact, order-preserving round trip, the kind of every file in a
// sessions dir judged from its name, transcript path resolution as OpenClaw does it, write-lock
// inspection, detection of the SQLite era (where JSONL must not be written) and of a running
// gateway, and the inventory behind `clawdoctor stats`.
package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/clawdoctor/clawdoctor/jsonobj"
	"github.com/clawdoctor/clawdoctor/safefile"
)

// StoreFile is the name of the session store in a sessions dir.
const StoreFile = "sessions.json"

var (
	// ErrCorrupt marks a sessions.json that is not valid JSON or not a JSON object. OpenClaw
	// reads such a file as an empty store and overwrites it on its next write; clawdoctor
	// reports it and never writes over it.
	ErrCorrupt = errors.New("sessions.json is not a valid JSON object")
	// ErrChanged is returned by WriteFile when the file changed on disk since it was loaded.
	ErrChanged = errors.New("sessions.json changed on disk since it was read")
)

// Store is a parsed sessions.json: session key → entry, in file order, with every unknown
// field and the original bytes kept. Marshal of an unchanged Store returns the file's bytes.
type Store struct {
	obj       *jsonobj.Object
	orig      []byte
	changed   bool
	canonical int8 // 0 unknown, 1 yes, -1 no (of orig)

	// Missing is set when Load found no file (an empty store, as OpenClaw reads it).
	Missing bool
	// Size and ModTime describe the file as loaded, for the optimistic concurrency check.
	Size    int64
	ModTime time.Time
}

// New returns an empty store.
func New() *Store {
	return &Store{obj: &jsonobj.Object{}, orig: []byte("{}"), Missing: true, canonical: 1}
}

// Parse parses the bytes of a sessions.json. name is used only in messages. A text that is
// not a JSON object gives an error wrapping ErrCorrupt that says where, e.g.
// "sessions.json:3:1: unexpected character '}' ...".
func Parse(data []byte, name string) (*Store, error) {
	obj, err := jsonobj.Parse(data)
	if err != nil {
		var se *jsonobj.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s:%d:%d: %w: %s", name, se.Line, se.Col, ErrCorrupt, se.Msg)
		}
		return nil, fmt.Errorf("%s: %w: %v", name, ErrCorrupt, err)
	}
	return &Store{obj: obj, orig: data}, nil
}

// Read parses a sessions.json from r.
func Read(r io.Reader, name string) (*Store, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return Parse(data, name)
}

// Load reads the sessions.json at path. A missing file is an empty store with Missing set.
func Load(path string) (*Store, error) {
	// Stat first: opening a FIFO planted under the store's name would block.
	if st, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return New(), nil
	} else if err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	// Read into a buffer of the file's size (+1 to see EOF) instead of ReadAll's doublings.
	buf := bytes.NewBuffer(make([]byte, 0, st.Size()+1))
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	s, err := Parse(buf.Bytes(), path)
	if err != nil {
		return nil, err
	}
	s.Size, s.ModTime = st.Size(), st.ModTime()
	return s, nil
}

// Len returns the number of entries.
func (s *Store) Len() int { return s.obj.Len() }

// Keys returns the session keys in file order.
func (s *Store) Keys() []string { return s.obj.Keys() }

// Entries returns every entry in file order.
func (s *Store) Entries() []Entry {
	ms := s.obj.Members()
	out := make([]Entry, len(ms))
	for i, m := range ms {
		out[i] = newEntry(m.Key, m.Value)
	}
	return out
}

// Get returns the entry of key.
func (s *Store) Get(key string) (Entry, bool) {
	v, ok := s.obj.Get(key)
	if !ok {
		return Entry{}, false
	}
	return newEntry(key, v), true
}

// Set stores e under key: an existing key keeps its position, a new one is appended, as the
// gateway's writer does. e.Obj is written when set, else e.Raw.
func (s *Store) Set(key string, e Entry) error {
	raw := e.Raw
	if e.Obj != nil {
		b, err := e.Obj.MarshalJSON()
		if err != nil {
			return err
		}
		raw = b
	}
	if err := s.obj.Set(key, raw); err != nil {
		return err
	}
	s.changed = true
	return nil
}

// Delete removes key and reports whether it was there.
func (s *Store) Delete(key string) bool {
	if s.obj.Delete(key) {
		s.changed = true
		return true
	}
	return false
}

// Duplicates lists keys that appear more than once in the file (the last value wins).
func (s *Store) Duplicates() []string { return s.obj.Duplicates() }

// Changed reports whether Set or Delete changed the store since it was read or written.
func (s *Store) Changed() bool { return s.changed }

// Clone returns an independent copy (for planning on a preview).
func (s *Store) Clone() *Store {
	c := *s
	c.obj = s.obj.Clone()
	return &c
}

// Canonical reports whether the bytes as read are exactly what OpenClaw's writer
// (JSON.stringify(store, null, 2)) would produce for them. A false value means a person or
// another tool wrote the file; the next changed write will reformat it.
func (s *Store) Canonical() bool {
	if s.canonical == 0 {
		s.canonical = -1
		o := s.obj
		if s.changed {
			o, _ = jsonobj.Parse(s.orig)
		}
		if o != nil {
			if js, err := o.MarshalJS("  "); err == nil && bytes.Equal(js, s.orig) && len(o.Duplicates()) == 0 {
				s.canonical = 1
			}
		}
	}
	return s.canonical == 1
}

// Marshal returns the bytes to write: the original bytes when nothing changed, else the store
// as OpenClaw writes it (2-space JSON.stringify, JS key order and escaping, no final newline).
func (s *Store) Marshal() ([]byte, error) {
	if !s.changed {
		return s.orig, nil
	}
	return s.obj.MarshalJS("  ")
}

// WriteFile writes the store to path, refusing when the agent is in the SQLite era
// (ErrSQLiteEra), when a live sessions.json.lock is present, or when the file changed on
// disk since it was loaded (ErrChanged). The current file is first kept as
// "sessions.json.bak-<pid>-<ms>" (safefile.Backup); the write is atomic (safefile). The
// backup path is returned ("" when there was no file).
func (s *Store) WriteFile(path string, now time.Time) (backup string, err error) {
	dir := filepath.Dir(path)
	if err := CheckJSONEra(dir); err != nil {
		return "", err
	}
	lock := filepath.Join(dir, "sessions.json.lock")
	if st, err := InspectLockFile(lock, LockOptions{Now: now, Store: true}); err == nil && !st.Stale {
		return "", fmt.Errorf("%s: %w (pid %d)", lock, ErrLocked, st.PID)
	}
	data, err := s.Marshal()
	if err != nil {
		return "", err
	}
	st, statErr := os.Lstat(path)
	switch {
	case statErr == nil:
		if !s.Missing && (st.Size() != s.Size || !st.ModTime().Equal(s.ModTime)) {
			return "", fmt.Errorf("%s: %w", path, ErrChanged)
		}
		if s.Missing {
			return "", fmt.Errorf("%s: %w (it did not exist when read)", path, ErrChanged)
		}
		if !st.Mode().IsRegular() {
			return "", fmt.Errorf("%s: not a regular file, refusing to replace it", path)
		}
		backup = safefile.BackupName(path, os.Getpid(), now)
		if err := safefile.Backup(path, backup); err != nil {
			return "", err
		}
	case !errors.Is(statErr, os.ErrNotExist):
		return "", statErr
	case !s.Missing:
		return "", fmt.Errorf("%s: %w (it was removed)", path, ErrChanged)
	}
	if err := safefile.WriteFile(path, data); err != nil {
		return backup, err
	}
	if st, err := os.Stat(path); err == nil {
		s.Size, s.ModTime = st.Size(), st.ModTime()
	}
	s.orig, s.changed, s.Missing, s.canonical = data, false, false, 1
	return backup, nil
}

// newEntry wraps one member of the store.
func newEntry(key string, raw json.RawMessage) Entry {
	e := Entry{Key: key, Raw: raw}
	if obj, err := jsonobj.Parse(raw); err == nil {
		e.Obj = obj
	}
	return e
}

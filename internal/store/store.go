// Package store reads and writes the OpenClaw state dir (store.md §1–2, §6–7): its agents,
// sessions.json with a byte-exact, order-preserving round trip, the kind of every file in a
// sessions dir judged from its name, transcript path resolution as OpenClaw does it, write-lock
// inspection, detection of the SQLite era (where JSONL must not be written) and of a running
// gateway, and the inventory behind `clawdoctor stats`.
package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/internal/safefile"
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
	NoteParse()
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

// Read parses a sessions.json from r, reading at most MaxStoreBytes.
func Read(r io.Reader, name string) (*Store, error) {
	data, err := safefile.ReadAll(context.Background(), r, name, MaxStoreBytes, MaxStoreFlag, 0)
	if err != nil {
		return nil, err
	}
	return Parse(data, name)
}

// Load reads the sessions.json at path (within MaxStoreBytes; see ReadStoreFile). A missing
// file is an empty store with Missing set.
func Load(path string) (*Store, error) {
	f, err := safefile.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return New(), nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > MaxStoreBytes {
		return nil, &safefile.SizeError{Path: path, Size: st.Size(), Limit: MaxStoreBytes, Flag: MaxStoreFlag}
	}
	// bytes.MinRead more than the size: the buffer then needs no doubling to see EOF, so the
	// text held for the whole run is not twice its size
	data, err := safefile.ReadAll(context.Background(), f, path, MaxStoreBytes, MaxStoreFlag, st.Size()+bytes.MinRead)
	if err != nil {
		return nil, err
	}
	s, err := Parse(data, path)
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

// RawEntries returns every entry in file order with Key and Raw only (Obj nil, nothing parsed
// per entry), for readers that take the few fields they need themselves.
func (s *Store) RawEntries() []Entry {
	ms := s.obj.Members()
	out := make([]Entry, len(ms))
	for i, m := range ms {
		out[i] = Entry{Key: m.Key, Raw: m.Value}
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

// WriteFile writes the store to path, refusing what CheckWrite refuses (the SQLite era, a
// sessions dir reached through a symlink out of the state dir, a live lock, a running
// gateway) and a file that changed on disk since it was loaded (ErrChanged). The current file
// is first kept as "sessions.json.bak-<pid>-<ms>" (safefile.Backup); the write is atomic
// (safefile). A symlinked sessions.json stays a symlink: its target is backed up and replaced.
// The backup path is returned ("" when there was no file).
func (s *Store) WriteFile(path string, now time.Time) (backup string, err error) {
	if err := CheckWrite(WriteScope{SessionsDir: filepath.Dir(path), Now: now}); err != nil {
		return "", err
	}
	data, err := s.Marshal()
	if err != nil {
		return "", err
	}
	target, err := safefile.WriteTarget(path)
	if err != nil {
		return "", err
	}
	st, statErr := os.Stat(target)
	switch {
	case statErr == nil:
		if s.Missing {
			return "", fmt.Errorf("%s: %w (it did not exist when read)", path, ErrChanged)
		}
		if st.Size() != s.Size || !st.ModTime().Equal(s.ModTime) {
			return "", fmt.Errorf("%s: %w", path, ErrChanged)
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

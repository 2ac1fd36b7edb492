// Package jsonobj holds an order-preserving JSON object: members keep their source order and
// their raw value bytes, so a document nobody changed is written back byte for byte, and a
// JavaScript JSON.stringify(v, null, 2) marshaller reproduces the files OpenClaw writes
// (sessions.json, store.md §7.1). It depends only on the standard library.
package jsonobj

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrNotObject is returned by Parse for a JSON text that is valid but not an object.
var ErrNotObject = errors.New("not a JSON object")

// Member is one key/value pair of an Object.
type Member struct {
	Key   string          // the decoded key (lone surrogates read as U+FFFD)
	Value json.RawMessage // the value's bytes as in the source, or as given to Set
	raw   []byte          // the key token as in the source
}

// Object is a JSON object whose members keep their order and their raw bytes. The zero value
// is an empty object. Values are never modified in place: Set replaces the slice, so Values
// may alias the parsed input.
type Object struct {
	members []Member
	index   map[string]int // decoded key → first position; nil for small objects (scanned)
	dups    []string
}

// Parse parses data, one JSON object, keeping member order and raw values. A repeated key
// keeps its first position and its last value, as JSON.parse does; Duplicates lists them.
// Errors are *SyntaxError (with line and column) or wrap ErrNotObject.
func Parse(data []byte) (*Object, error) {
	n, err := parseDocument(data, treeTop)
	if err != nil {
		return nil, err
	}
	if n.kind != '{' {
		return nil, fmt.Errorf("%w (found %s)", ErrNotObject, kindName(n.kind))
	}
	var scratch []uint16
	ms := orderMembersSource(n.keys, &scratch)
	o := &Object{members: make([]Member, 0, len(ms))}
	for _, m := range ms {
		if m.dup {
			o.dups = append(o.dups, m.key)
		}
		o.members = append(o.members, Member{Key: m.key, Value: n.kids[m.value].raw, raw: n.keys[m.first]})
	}
	o.reindex()
	return o, nil
}

type sourceMember struct {
	key          string
	first, value int
	dup          bool
}

// orderMembersSource de-duplicates keys by JS identity but keeps source order (Object keeps
// source order; the JS marshaller reorders integer-like keys when writing).
func orderMembersSource(keys [][]byte, scratch *[]uint16) []sourceMember {
	out := make([]sourceMember, 0, len(keys))
	var seen map[string]int
	if len(keys) > 16 {
		seen = make(map[string]int, len(keys))
	}
	ids := make([]string, 0, len(keys))
	for i, k := range keys {
		// The identity of a key is its JS-quoted form; a token without escapes and with valid
		// UTF-8 already is that form.
		var key, id string
		if plainToken(k) {
			id = string(k)
			key = id[1 : len(id)-1]
		} else {
			*scratch = decodeUnits(k, (*scratch)[:0])
			key = unitsString(*scratch)
			id = string(appendJSQuoted(nil, *scratch))
		}
		p := -1
		if seen != nil {
			if j, ok := seen[id]; ok {
				p = j
			}
		} else {
			for j, x := range ids {
				if x == id {
					p = j
					break
				}
			}
		}
		if p >= 0 {
			out[p].value = i
			out[p].dup = true
			continue
		}
		if seen != nil {
			seen[id] = len(out)
		}
		ids = append(ids, id)
		out = append(out, sourceMember{key: key, first: i, value: i})
	}
	return out
}

// plainToken reports whether a string token has no escapes and is valid UTF-8.
func plainToken(tok []byte) bool {
	return bytes.IndexByte(tok, '\\') < 0 && utf8.Valid(tok)
}

func kindName(k byte) string {
	switch k {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "an object"
}

// smallObject is the member count up to which lookups scan instead of using a map.
const smallObject = 16

func (o *Object) reindex() {
	o.index = nil
	if len(o.members) <= smallObject {
		return
	}
	o.index = make(map[string]int, len(o.members))
	for i, m := range o.members {
		if _, ok := o.index[m.Key]; !ok {
			o.index[m.Key] = i
		}
	}
}

// Len returns the number of members.
func (o *Object) Len() int { return len(o.members) }

// Keys returns the keys in order.
func (o *Object) Keys() []string {
	keys := make([]string, len(o.members))
	for i, m := range o.members {
		keys[i] = m.Key
	}
	return keys
}

// Members returns the members in order. The slice is a copy; the values alias the object.
func (o *Object) Members() []Member {
	return append([]Member(nil), o.members...)
}

// Duplicates returns the keys that appeared more than once in the parsed text.
func (o *Object) Duplicates() []string { return o.dups }

func (o *Object) find(key string) int {
	if o.index == nil {
		for i := range o.members {
			if o.members[i].Key == key {
				return i
			}
		}
		return -1
	}
	if i, ok := o.index[key]; ok {
		return i
	}
	return -1
}

// Has reports whether key is present.
func (o *Object) Has(key string) bool { return o.find(key) >= 0 }

// Get returns the raw value of key.
func (o *Object) Get(key string) (json.RawMessage, bool) {
	if i := o.find(key); i >= 0 {
		return o.members[i].Value, true
	}
	return nil, false
}

// GetObject returns the value of key parsed as an Object; ok is false when key is absent.
// A present value that is not an object is an error wrapping ErrNotObject.
func (o *Object) GetObject(key string) (obj *Object, ok bool, err error) {
	v, ok := o.Get(key)
	if !ok {
		return nil, false, nil
	}
	obj, err = Parse(v)
	if err != nil {
		return nil, true, fmt.Errorf("%q: %w", key, err)
	}
	return obj, true, nil
}

// Set gives key the raw JSON value v (surrounding whitespace is trimmed). An existing key keeps
// its position; a new key is appended at the end, as a JS assignment does.
func (o *Object) Set(key string, v json.RawMessage) error {
	v = bytes.TrimFunc(v, func(r rune) bool { return r < 0x80 && isSpace(byte(r)) })
	if !Valid(v) {
		return fmt.Errorf("set %q: value is not valid JSON", key)
	}
	v = append(json.RawMessage(nil), v...)
	if i := o.find(key); i >= 0 {
		o.members[i].Value = v
		return nil
	}
	o.members = append(o.members, Member{Key: key, Value: v, raw: Quote(key)})
	if o.index != nil {
		o.index[key] = len(o.members) - 1
	} else if len(o.members) > smallObject {
		o.reindex()
	}
	return nil
}

// SetValue encodes v with encoding/json (HTML escaping off) and calls Set.
func (o *Object) SetValue(key string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("set %q: %w", key, err)
	}
	return o.Set(key, buf.Bytes())
}

// Delete removes key and reports whether it was present. The other members keep their order.
func (o *Object) Delete(key string) bool {
	i := o.find(key)
	if i < 0 {
		return false
	}
	o.members = append(o.members[:i], o.members[i+1:]...)
	o.reindex()
	return true
}

// Clone returns a copy whose member list can be changed without affecting o.
func (o *Object) Clone() *Object {
	c := &Object{members: append([]Member(nil), o.members...), dups: o.dups}
	c.reindex()
	return c
}

// MarshalJSON writes the object compactly in member order, each key token and value token
// byte for byte as parsed (only whitespace between tokens is dropped), so a compact input
// round-trips exactly.
func (o *Object) MarshalJSON() ([]byte, error) {
	out := []byte{'{'}
	for i, m := range o.members {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, m.raw...)
		out = append(out, ':')
		out = Compact(out, m.Value)
	}
	return append(out, '}'), nil
}

// UnmarshalJSON replaces o with the parsed object data.
func (o *Object) UnmarshalJSON(data []byte) error {
	p, err := Parse(data)
	if err != nil {
		return err
	}
	*o = *p
	return nil
}

// MarshalJS writes the object as JSON.stringify(obj, null, indent) would (see Stringify):
// integer-like keys first, then the others in member order, JS escaping, number tokens kept.
// With indent "  " an untouched sessions.json written by OpenClaw comes back byte for byte.
func (o *Object) MarshalJS(indent string) ([]byte, error) {
	keys := make([][]byte, len(o.members))
	size := 2
	for i, m := range o.members {
		keys[i] = m.raw
		size += len(m.raw) + len(m.Value) + 8
	}
	w := &stringifier{indent: indent, out: make([]byte, 0, size+size/4)}
	members := orderMembers(keys, &w.scratch)
	if len(members) == 0 {
		return append(w.out, '{', '}'), nil
	}
	w.out = append(w.out, '{')
	for i, m := range members {
		if i > 0 {
			w.out = append(w.out, ',')
		}
		w.newline(1)
		w.out = append(w.out, m.quoted...)
		w.out = append(w.out, ':')
		if indent != "" {
			w.out = append(w.out, ' ')
		}
		// One member's tree at a time keeps memory near the size of the output.
		kid, err := parseDocument(o.members[m.value].Value, treeFull)
		if err != nil {
			return nil, fmt.Errorf("value of %q: %w", o.members[m.value].Key, err)
		}
		w.node(&kid, 1)
	}
	w.newline(0)
	return append(w.out, '}'), nil
}

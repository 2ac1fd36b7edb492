package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// ErrNotObject is returned for a line that is valid JSON but not an object.
var ErrNotObject = errors.New("not a JSON object")

// DecodeHeader decodes a header line. ok is false when the line is not a session header
// (type "session"). A field of an unexpected type (say "cwd": 5) is left at its zero value
// instead of failing: the header is still a header, and Raw keeps every byte.
func DecodeHeader(orig []byte) (h Header, ok bool, err error) {
	raw := append([]byte(nil), orig...)
	line := trimWS(raw)
	if len(line) == 0 || line[0] != '{' {
		if !json.Valid(line) {
			return Header{}, false, syntaxError(line)
		}
		return Header{}, false, ErrNotObject
	}
	if !jsonl.Valid(line) {
		return Header{}, false, syntaxError(line)
	}
	if err := decodeLenient(line, &h); err != nil {
		return Header{}, false, err
	}
	h.Raw = raw
	return h, h.Type == TypeSession, nil
}

// VersionNumber returns the header's "version" when it is a JSON number. ok is false when the
// field is missing or null (pi reads that as version 1) or not a number.
func (h *Header) VersionNumber() (v float64, ok bool) {
	raw, found, _ := GetField(h.Raw, "version")
	if !found {
		if h.Version != nil {
			return float64(*h.Version), true
		}
		return 0, false
	}
	if json.Unmarshal(raw, &v) != nil {
		return 0, false
	}
	return v, true
}

// DecodeEntry decodes one entry line tolerantly: unknown types and fields are kept in Raw, a
// known field of an unexpected type (a numeric parentId, a string usage) is left at its zero
// value, and a message whose content has an unexpected shape still decodes (Content.Raw).
// The only errors are for a line that is not JSON (a *json.SyntaxError) or not an object
// (ErrNotObject). Raw is an exact copy of the line; the raw fields of the decoded values
// (Content.Raw, Block.Raw, Data, Arguments, ...) share its memory, so treat them as read-only.
func DecodeEntry(orig []byte) (*Entry, error) {
	raw := append([]byte(nil), orig...)
	line := trimWS(raw)
	if len(line) == 0 || line[0] != '{' {
		if !json.Valid(line) {
			return nil, syntaxError(line)
		}
		return nil, ErrNotObject
	}
	if !jsonl.Valid(line) {
		return nil, syntaxError(line)
	}
	var e Entry
	if err := decodeLenient(line, &e); err != nil {
		return nil, err
	}
	e.Raw = raw
	return &e, nil
}

// syntaxError returns the *json.SyntaxError encoding/json gives for b.
func syntaxError(b []byte) error {
	var v any
	err := json.Unmarshal(b, &v)
	if err == nil {
		return ErrNotObject
	}
	return err
}

func trimWS(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isWS(b[i]) {
		i++
	}
	for j > i && isWS(b[j-1]) {
		j--
	}
	return b[i:j]
}

// lenientFields maps a struct type to its JSON field names and field indexes.
var lenientFields sync.Map // reflect.Type -> map[string][]int

func fieldsOf(t reflect.Type) map[string][]int {
	if m, ok := lenientFields.Load(t); ok {
		return m.(map[string][]int)
	}
	m := map[string][]int{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		m[name] = f.Index
	}
	lenientFields.Store(t, m)
	return m
}

// decodeLenient decodes the JSON object obj into the struct dst points to, one member at a
// time: a member whose value does not fit its field leaves the field at its zero value. A
// *Message field is decoded leniently too. As in JavaScript (and unlike encoding/json), keys
// match exactly: {"type":"message","Type":"x"} is a message. The last duplicate key wins.
// obj must already be known to be valid JSON, and must not change afterwards: raw fields
// (json.RawMessage, Content.Raw, Block.Raw) alias it.
func decodeLenient(obj []byte, dst any) error {
	v := reflect.ValueOf(dst).Elem()
	fields := fieldsOf(v.Type())
	_, err := eachMember(obj, 0, func(m member) bool {
		inner := obj[m.key.start+1 : m.key.end-1]
		var idx []int
		var ok bool
		if bytes.IndexByte(inner, '\\') < 0 {
			idx, ok = fields[string(inner)]
		} else {
			var key string
			if json.Unmarshal(obj[m.key.start:m.key.end], &key) == nil {
				idx, ok = fields[key]
			}
		}
		if ok {
			setField(v.FieldByIndex(idx), obj[m.val.start:m.val.end])
		}
		return true
	})
	if err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	return nil
}

var (
	typeRawMessage = reflect.TypeOf(json.RawMessage(nil))
	typeMessagePtr = reflect.TypeOf((*Message)(nil))
	typeStringPtr  = reflect.TypeOf((*string)(nil))
	typeContent    = reflect.TypeOf(Content{})
)

// setField stores the JSON value val in f, or f's zero value when val does not fit. The common
// shapes (strings without escapes, booleans, numbers, raw messages) avoid encoding/json.
func setField(f reflect.Value, val []byte) {
	t := f.Type()
	switch {
	case t == typeRawMessage:
		f.SetBytes(val)
		return
	case t == typeContent:
		c := f.Addr().Interface().(*Content)
		if c.decode(val) != nil {
			*c = Content{Raw: val}
		}
		return
	case t == typeMessagePtr:
		if val[0] == '{' {
			msg := &Message{}
			_ = decodeLenient(val, msg)
			f.Set(reflect.ValueOf(msg))
		} else {
			f.Set(reflect.Zero(t))
		}
		return
	case t.Kind() == reflect.String || t == typeStringPtr:
		if val[0] != '"' {
			f.Set(reflect.Zero(t))
			return
		}
		s, ok := jsonobj.UnquoteJS(val)
		if !ok {
			f.Set(reflect.Zero(t))
			return
		}
		if t.Kind() == reflect.String {
			f.SetString(string(s))
		} else {
			p := string(s)
			f.Set(reflect.ValueOf(&p))
		}
		return
	case t.Kind() == reflect.Bool:
		f.SetBool(string(val) == "true") // anything else does not fit: false
		return
	}
	if string(val) == "null" && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice) {
		f.Set(reflect.Zero(t))
		return
	}
	p := reflect.New(t)
	if json.Unmarshal(val, p.Interface()) == nil {
		f.Set(p.Elem())
	} else {
		f.Set(reflect.Zero(t))
	}
}

// LineError reports a problem with one line of a transcript.
type LineError struct {
	Path string
	Line int64
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

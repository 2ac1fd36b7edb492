package store

import (
	"bytes"
	"encoding/json"
	"sync/atomic"
)

// Row is one member of sessions.json as it stands in the file: its key token, where that
// token starts, and the value's bytes. Rows alias the store's bytes.
type Row struct {
	Key    string          // the decoded key
	KeyTok []byte          // the key token as in the file, quotes included
	KeyOff int             // byte offset of KeyTok in Bytes()
	Value  json.RawMessage // the value as in the file
}

// Rows returns the members of the store as parsed, in file order, for readers that want to
// share this parse instead of reading and parsing sessions.json again (doctor hands it to
// audit's store check and to the cleanup plan). ok is false when the store was changed since
// it was read, or when a key repeats (JSON.parse keeps the first position and the last value,
// and a reader that reports every occurrence must split the text itself).
func (s *Store) Rows() (rows []Row, ok bool) {
	if s.changed || len(s.obj.Duplicates()) > 0 {
		return nil, false
	}
	data := s.orig
	ms := s.obj.Members()
	rows = make([]Row, 0, len(ms))
	pos := skipWS(data, 0)
	if pos >= len(data) || data[pos] != '{' {
		return nil, s.Missing && len(ms) == 0
	}
	pos++
	for i, m := range ms {
		// Values alias data (jsonobj keeps source slices), so the value's offset is the
		// difference of capacities; the key token is what lies between the previous value
		// (or the opening brace) and the colon. Anything unexpected: let the caller split.
		voff := cap(data) - cap(m.Value)
		if voff < pos || voff >= len(data) || len(m.Value) == 0 || &data[voff] != &m.Value[0] {
			return nil, false
		}
		pos = skipWS(data, pos)
		if i > 0 {
			if pos >= len(data) || data[pos] != ',' {
				return nil, false
			}
			pos = skipWS(data, pos+1)
		}
		if pos >= len(data) || data[pos] != '"' {
			return nil, false
		}
		kend := skipString(data, pos)
		colon := skipWS(data, kend)
		if colon >= len(data) || data[colon] != ':' || skipWS(data, colon+1) != voff {
			return nil, false
		}
		rows = append(rows, Row{Key: m.Key, KeyTok: data[pos:kend:kend], KeyOff: pos, Value: m.Value})
		pos = voff + len(m.Value)
	}
	return rows, true
}

// Bytes returns the text of sessions.json as read (or as last written by WriteFile). The
// caller must not modify it.
func (s *Store) Bytes() []byte { return s.orig }

func skipWS(d []byte, i int) int {
	for i < len(d) && (d[i] == ' ' || d[i] == '\n' || d[i] == '\t' || d[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string token starting at d[i] (valid JSON).
func skipString(d []byte, i int) int {
	for i++; i < len(d); i++ {
		switch d[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

var parses atomic.Int64

// NoteParse counts one full parse of a sessions.json text. Parse calls it; so do the readers
// that split a store's text themselves (audit's row decoder, cleanup's splitter), so a test
// can check that a run parses each store once (Parses).
func NoteParse() { parses.Add(1) }

// Parses returns how many sessions.json texts this process has parsed (see NoteParse).
func Parses() int64 { return parses.Load() }

// Members splits the text of one JSON object that is already known to be valid (a value of a
// store that parsed) into its members in source order, a repeated key once per occurrence,
// without building a tree: the cheap way to read a few fields of every entry. Key is the
// key token's text without quotes when it holds no escape (else ""; decode KeyTok). ok is
// false when the text is not an object.
func Members(valid []byte) (rows []Row, ok bool) {
	i := skipWS(valid, 0)
	if i >= len(valid) || valid[i] != '{' {
		return nil, false
	}
	i++
	for {
		i = skipWS(valid, i)
		if i >= len(valid) || valid[i] == '}' {
			return rows, true
		}
		if valid[i] == ',' {
			i = skipWS(valid, i+1)
		}
		ks := i
		i = skipString(valid, i)
		tok := valid[ks:i:i]
		key := ""
		if bytes.IndexByte(tok, '\\') < 0 {
			key = string(tok[1 : len(tok)-1])
		}
		i = skipWS(valid, skipWS(valid, i)+1) // the colon
		vs := i
		i = skipValue(valid, i)
		rows = append(rows, Row{Key: key, KeyTok: tok, KeyOff: ks, Value: valid[vs:i:i]})
	}
}

// skipValue returns the index after the value starting at d[i] (valid JSON).
func skipValue(d []byte, i int) int {
	switch d[i] {
	case '"':
		return skipString(d, i)
	case '{', '[':
		depth := 0
		for ; i < len(d); i++ {
			switch d[i] {
			case '"':
				i = skipString(d, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(d) && d[i] != ',' && d[i] != '}' && d[i] != ']' && d[i] != ' ' && d[i] != '\n' && d[i] != '\t' && d[i] != '\r' {
		i++
	}
	return i
}

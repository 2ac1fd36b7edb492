package session

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ErrNotObject is returned for a line that is valid JSON but not an object.
var ErrNotObject = errors.New("not a JSON object")

// DecodeHeader decodes a header line. ok is false when the line is not a session header.
func DecodeHeader(line []byte) (h Header, ok bool, err error) {
	if err := json.Unmarshal(line, &h); err != nil {
		return Header{}, false, err
	}
	h.Raw = append([]byte(nil), line...)
	return h, h.Type == TypeSession, nil
}

// DecodeEntry decodes one entry line tolerantly: unknown types and fields are kept in Raw,
// and a message whose content has an unexpected shape still decodes (Message.Content.Null).
func DecodeEntry(line []byte) (*Entry, error) {
	if len(line) == 0 || line[0] != '{' {
		var v any
		if err := json.Unmarshal(line, &v); err != nil {
			return nil, err
		}
		return nil, ErrNotObject
	}
	var e Entry
	if err := json.Unmarshal(line, &e); err != nil {
		// Retry without the message: a malformed message shape must not hide the entry.
		var base struct {
			Type      string  `json:"type"`
			ID        string  `json:"id"`
			ParentID  *string `json:"parentId"`
			Timestamp string  `json:"timestamp"`
		}
		if err2 := json.Unmarshal(line, &base); err2 != nil {
			return nil, err
		}
		e = Entry{Type: base.Type, ID: base.ID, ParentID: base.ParentID, Timestamp: base.Timestamp}
		if e.Type == TypeMessage {
			e.Message = &Message{Content: Content{Null: true}}
			var raw struct {
				Message struct {
					Role string `json:"role"`
				} `json:"message"`
			}
			if json.Unmarshal(line, &raw) == nil {
				e.Message.Role = raw.Message.Role
			}
		}
	}
	e.Raw = append([]byte(nil), line...)
	return &e, nil
}

// LineError reports a problem with one line of a transcript.
type LineError struct {
	Path string
	Line int64
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

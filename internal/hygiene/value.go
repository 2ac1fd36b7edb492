package hygiene

import (
	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
)

// ValueKey holds, alone in its Message, a message that is not an object: a message entry whose
// "message" is a string, number, boolean or array. pi's context holds such a value as it is and
// OpenClaw sends it on (every sanitizer reads its role as undefined and passes it by), so
// replay must too. Role is "" for it; Plain and Messages' JSON give the value back.
const ValueKey = "\x00value"

// DecodeValue decodes a message that is not an object into a value Message.
func DecodeValue(b []byte) (Message, error) {
	v, err := jsonobj.DecodeJS(b)
	if err != nil {
		return nil, err
	}
	return Message{ValueKey: v}, nil
}

// IsValue reports whether m stands for a message that is not an object.
func IsValue(m Message) bool {
	_, ok := m[ValueKey]
	return ok
}

// Plain is m as it is sent: the value a value Message stands for, else m without its private
// keys; numbers JSON.parse reads as ±Infinity are null (asSent).
func Plain(m Message) any {
	if v, ok := m[ValueKey]; ok {
		return asSent(v)
	}
	if _, ok := m[RefKey]; !ok {
		return asSent(m)
	}
	c := clone(m)
	delete(c, RefKey)
	return asSent(c)
}

// Messages are messages as sent: their JSON is Plain's of each.
type Messages []Message

// MarshalJSON writes each message as Plain gives it.
func (ms Messages) MarshalJSON() ([]byte, error) {
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = Plain(m)
	}
	return jsonobj.MarshalJS(out, true)
}

package report

import (
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
)

// Escape makes data safe to print on a terminal and keeps it on one line: C0 controls (tab,
// newline and carriage return included), DEL, C1 controls, invalid UTF-8, the Unicode line
// and paragraph separators and the bidirectional overrides are written visibly, as \x1b,
// \u009b or \xff (a lone surrogate of a decoded JSON string, jsonobj.DecodeJS, as \ud800). A transcript's text, an id, a model name, a session key or a file name can
// otherwise write the user's clipboard (OSC 52), clear the screen, plant a hyperlink, or,
// with a newline, forge a finding line (issue 31). Text without such characters is returned
// as is.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if u, lone := jsonobj.LoneAt(s, i); lone { // a lone surrogate, as JSON writes it
			fmt.Fprintf(&b, `\u%04x`, u)
			i += 3
			continue
		}
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// unsafeRune reports the characters above ASCII that Escape writes visibly: C1 controls (a
// terminal takes U+009B for ESC [), the line and paragraph separators, and the
// bidirectional embeddings, overrides and isolates (they reorder what the terminal shows).
func unsafeRune(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029 || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			return true
		}
		if c >= 0x80 {
			r, n := utf8.DecodeRuneInString(s[i:])
			if (r == utf8.RuneError && n <= 1) || unsafeRune(r) {
				return true
			}
			i += n - 1
		}
	}
	return false
}

// escaped returns a copy of v in which every string (fields, elements, map keys and values,
// interface values) is Escaped, for the human formats: every field a report prints is then
// safe, whoever wrote the renderer. v itself is not changed. Unexported fields are copied as
// they are (renderers print exported ones).
func escaped[T any](v T) T {
	rv := reflect.ValueOf(&v).Elem()
	out := reflect.New(rv.Type()).Elem()
	escapeInto(out, rv, map[uintptr]reflect.Value{})
	return out.Interface().(T)
}

func escapeInto(dst, src reflect.Value, seen map[uintptr]reflect.Value) {
	switch src.Kind() {
	case reflect.String:
		dst.SetString(Escape(src.String()))
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		if p, ok := seen[src.Pointer()]; ok && p.Type() == src.Type() {
			dst.Set(p)
			return
		}
		p := reflect.New(src.Type().Elem())
		seen[src.Pointer()] = p
		escapeInto(p.Elem(), src.Elem(), seen)
		dst.Set(p)
	case reflect.Struct:
		dst.Set(src) // unexported fields as they are
		for i := range src.NumField() {
			if dst.Field(i).CanSet() {
				escapeInto(dst.Field(i), src.Field(i), seen)
			}
		}
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := range src.Len() {
			escapeInto(s.Index(i), src.Index(i), seen)
		}
		dst.Set(s)
	case reflect.Array:
		for i := range src.Len() {
			escapeInto(dst.Index(i), src.Index(i), seen)
		}
	case reflect.Map:
		if src.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		it := src.MapRange()
		for it.Next() {
			k := reflect.New(src.Type().Key()).Elem()
			escapeInto(k, it.Key(), seen)
			e := reflect.New(src.Type().Elem()).Elem()
			escapeInto(e, it.Value(), seen)
			m.SetMapIndex(k, e)
		}
		dst.Set(m)
	case reflect.Interface:
		if src.IsNil() {
			return
		}
		e := reflect.New(src.Elem().Type()).Elem()
		escapeInto(e, src.Elem(), seen)
		dst.Set(e)
	default:
		dst.Set(src)
	}
}

package jsonobj

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// decodeStd is what hygiene decoded with before DecodeJS: encoding/json with UseNumber over
// the bytes as Node reads them.
func decodeStd(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(DecodeUTF8(data)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, &SyntaxError{Msg: "more"}
	}
	return v, nil
}

// checkDecodeJS holds DecodeJS to encoding/json on text without lone surrogates, to the UTF-16
// model on every string (UTF16Len, ToUTF8 against Unquote), and MarshalJS to a round trip.
func checkDecodeJS(t *testing.T, data []byte) {
	v, err := DecodeJS(data)
	if err != nil {
		return
	}
	if !anyLone(v) {
		if std, err := decodeStd(data); err == nil && !reflect.DeepEqual(v, std) {
			t.Fatalf("%q: DecodeJS %#v, encoding/json %#v", data, v, std)
		}
	}
	out, err := MarshalJS(v, true)
	if err != nil {
		t.Fatalf("%q: MarshalJS: %v", data, err)
	}
	back, err := DecodeJS(out)
	if err != nil || !reflect.DeepEqual(back, v) {
		t.Fatalf("%q: MarshalJS wrote %q, which decodes to %#v (%v)", data, out, back, err)
	}
	if !anyLone(v) {
		if std, _ := json.Marshal(v); !bytes.Equal(std, out) {
			t.Fatalf("%q: MarshalJS %q, json.Marshal %q", data, out, std)
		}
	}
	plain, err := MarshalJS(v, false)
	if back, err2 := DecodeJS(plain); err != nil || err2 != nil || !reflect.DeepEqual(back, v) {
		t.Fatalf("%q: MarshalJS without HTML escaping wrote %q (%v, %v)", data, plain, err, err2)
	}
	if s, ok := v.(string); ok {
		tok := DecodeUTF8(bytes.Trim(data, " \t\r\n"))
		units := decodeUnits(tok, nil)
		if UTF16Len(s) != len(units) {
			t.Fatalf("%q: UTF16Len %d, code units %d", data, UTF16Len(s), len(units))
		}
		if u, _ := Unquote(tok); ToUTF8(s) != string(u) {
			t.Fatalf("%q: ToUTF8 %q, Unquote %q", data, ToUTF8(s), u)
		}
		for n := 0; n <= len(units)+1; n++ {
			want := unitsWTF8(units[:min(n, len(units))])
			if got := SliceUTF16(s, n); got != want {
				t.Fatalf("%q: SliceUTF16(%d) = %q, want %q", data, n, got, want)
			}
		}
	}
}

func TestDecodeJS(t *testing.T) {
	for _, in := range []string{
		`{"a":"\ud800","b":["\udc00x","\ud83d\ude00",1.50,-0,1e400],"\ud801":null,"c":{"d":true,"e":false}}`,
		`"\ud800\ud800\udc00"`, "\"a\xed\xa0\x80b\"", `{"a":1,"a":2}`, `"<&>\u2028"`, `[]`, `{}`,
		"\"\xff\xfe\"", `"\udbff\udfff\udfff"`, `12345678901234567890`,
	} {
		checkDecodeJS(t, []byte(in))
	}
	v, _ := DecodeJS([]byte(`{"id":"\ud800","t":"\ud83d\ude00"}`))
	out, _ := MarshalJS(v, true)
	if want := `{"id":"\ud800","t":"` + "\U0001F600" + `"}`; string(out) != want {
		t.Fatalf("MarshalJS = %s, want %s (as JSON.stringify writes it)", out, want)
	}
	v, _ = DecodeJS([]byte(`["<\ud800&",">"]`))
	if out, _ := MarshalJS(v, false); string(out) != `["<\ud800&",">"]` {
		t.Fatalf("MarshalJS without HTML escaping = %s", out)
	}
	if out, _ := MarshalJS(v, true); string(out) != `["\u003c\ud800\u0026","\u003e"]` {
		t.Fatalf("MarshalJS with HTML escaping = %s", out)
	}
	a, _ := DecodeJS([]byte(`"\ud800"`))
	b, _ := DecodeJS([]byte(`"\ud801"`))
	c, _ := DecodeJS([]byte(`"\ufffd"`))
	if a == b || a == c || ToUTF8(a.(string)) != "\ufffd" || UTF16Len(a.(string)) != 1 {
		t.Fatalf("lone surrogates: %q %q %q", a, b, c)
	}
}

func FuzzDecodeJS(f *testing.F) {
	f.Add([]byte(`{"a":"\ud800","b":["\udc00x",1.5]}`))
	f.Add([]byte("\"a\xed\xa0\x80\\ud800b\""))
	f.Add([]byte(`"\ud83d\ude00\ud83d"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecodeJS(t, data)
	})
}

// unitsWTF8 is the string DecodeJS makes of code units: pairs as UTF-8, lone surrogates in
// their three-byte form.
func unitsWTF8(units []uint16) string {
	var b []byte
	for i := 0; i < len(units); i++ {
		u := rune(units[i])
		if u >= 0xd800 && u < 0xdc00 && i+1 < len(units) && units[i+1] >= 0xdc00 && units[i+1] < 0xe000 {
			b = utf8.AppendRune(b, 0x10000+(u-0xd800)<<10+rune(units[i+1])-0xdc00)
			i++
			continue
		}
		if u >= 0xd800 && u < 0xe000 {
			b = append(b, 0xe0|byte(u>>12), 0x80|byte(u>>6)&0x3f, 0x80|byte(u)&0x3f)
			continue
		}
		b = utf8.AppendRune(b, u)
	}
	return string(b)
}

func TestSliceUTF16(t *testing.T) {
	s := "a\U0001F600b"
	for n, want := range []string{"", "a", "a\xed\xa0\xbd", "a\U0001F600", s, s} {
		if got := SliceUTF16(s, n); got != want {
			t.Errorf("SliceUTF16(%q, %d) = %q, want %q", s, n, got, want)
		}
	}
	if u, ok := LoneAt(SliceUTF16(s, 2), 1); !ok || u != 0xd83d {
		t.Errorf("LoneAt = %x %v, want d83d", u, ok)
	}
}

// TestDecodeJSString: JSON.parse of a string that holds a lone surrogate (as a tool call's
// partialJson does when the file wrote it as an escape) keeps it inside a string literal.
func TestDecodeJSString(t *testing.T) {
	outer, err := DecodeJS([]byte(`"{\"id\":\"a\ud800b\"}"`))
	if err != nil {
		t.Fatal(err)
	}
	v, err := DecodeJSString(outer.(string))
	if err != nil {
		t.Fatal(err)
	}
	if id := v.(map[string]any)["id"].(string); id != "a\xed\xa0\x80b" {
		t.Errorf("id = %q, want the lone surrogate kept", id)
	}
	// the same bytes read from a file are three U+FFFD, as Node decodes them
	w, _ := DecodeJS([]byte("{\"id\":\"a\xed\xa0\x80b\"}"))
	if id := w.(map[string]any)["id"].(string); id != "a\ufffd\ufffd\ufffdb" {
		t.Errorf("from a file: id = %q", id)
	}
	if _, err := DecodeJSString("\xed\xa0\x80"); err == nil {
		t.Error("a lone surrogate outside a string literal parsed")
	}
}

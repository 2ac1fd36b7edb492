package session

import (
	"encoding/base64"
	"math/rand"
	"strings"
	"testing"
)

// corruptImageRef is OpenClaw's rule step by step, as it was first written here (a copy of the
// canonical text, then a decode of its head): the one-pass corruptImage must agree with it.
// unpadded follows 2026.7.35's canonicalizeBase64 line by line (media-core base64.ts).
func corruptImageRef(data string, unpadded bool) bool {
	if unpadded {
		return corruptImageRef735(data)
	}
	for i := 0; i < len(data); i++ {
		if data[i] >= 0x80 {
			return true
		}
	}
	out := make([]byte, 0, len(data))
	padding := 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c <= 32:
			continue
		case c == '=':
			padding++
			if padding > 2 {
				return true
			}
		case padding > 0:
			return true
		case !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/'):
			return true
		}
		out = append(out, c)
	}
	if len(out) == 0 || len(out)%4 != 0 {
		return true
	}
	canon := string(out)
	head, err := base64.StdEncoding.DecodeString(canon[:min(len(canon), 128)])
	return err != nil || !sniffImage(head)
}

func corruptImageRef735(data string) bool {
	for i := 0; i < len(data); i++ {
		if data[i] >= 0x80 {
			return true
		}
	}
	var cleaned []byte
	padding, sawPadding := 0, false
	var lastData byte
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c <= 32 {
			continue
		}
		if c == '=' {
			padding++
			if padding > 2 {
				return true
			}
			sawPadding = true
			cleaned = append(cleaned, '=')
			continue
		}
		if sawPadding || !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/') {
			return true
		}
		lastData = c
		cleaned = append(cleaned, c)
	}
	if len(cleaned) == 0 {
		return true
	}
	rem := len(cleaned) % 4
	if rem != 0 {
		if sawPadding || rem == 1 {
			return true
		}
		cleaned = append(cleaned, strings.Repeat("=", 4-rem)...)
	}
	eff := padding
	if rem != 0 {
		eff = 4 - rem
	}
	mask := map[int]int{2: 15, 1: 3}[eff]
	if mask != 0 && strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", lastData)&mask != 0 {
		return true
	}
	canon := string(cleaned)
	head, err := base64.StdEncoding.DecodeString(canon[:min(len(canon), 128)])
	return err != nil || !sniffImage(head)
}

func imageSeeds() []string {
	png := base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 200)...))
	jpg := base64.StdEncoding.EncodeToString([]byte{0xff, 0xd8, 0xff, 0xe0, 1})
	heic := base64.StdEncoding.EncodeToString([]byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"))
	return []string{
		"", "=", "====", "AAAA", png, jpg, heic, png + "=", png[:len(png)-1], " " + png + "\n",
		strings.TrimRight(png, "="), strings.TrimRight(jpg, "="), strings.TrimRight(jpg, "=")[:len(strings.TrimRight(jpg, "="))-1] + "B",
		png[:40] + "\n" + png[40:], png[:10] + "=" + png[10:], png[:10] + "é" + png[10:],
		png[:10] + "-" + png[10:], png + "\x00", strings.Repeat("\t", 7) + jpg, jpg[:len(jpg)-2] + "==",
		jpg[:len(jpg)-2] + "= =", "R0lGODlh", "Qk0=", "UklGRgAAAABXRUJQ",
	}
}

func TestCorruptImageMatchesTheStepwiseRule(t *testing.T) {
	check := func(s string) {
		t.Helper()
		for _, unpadded := range []bool{false, true} {
			want := corruptImageRef(s, unpadded)
			if got := CorruptImageData(s, unpadded); got != want {
				t.Fatalf("CorruptImageData(%q, unpadded %v) = %v, the stepwise rule says %v", s, got, unpadded, want)
			}
			if got := CorruptImageBytes([]byte(s), unpadded); got != want {
				t.Fatalf("CorruptImageBytes(%q, unpadded %v) = %v, the stepwise rule says %v", s, unpadded, got, want)
			}
		}
	}
	seeds := imageSeeds()
	corrupt, clean, differ := 0, 0, 0
	for _, s := range seeds {
		check(s)
		if corruptImageRef(s, false) {
			corrupt++
		} else {
			clean++
		}
		if corruptImageRef(s, false) != corruptImageRef(s, true) {
			differ++
		}
	}
	if corrupt == 0 || clean == 0 || differ < 2 {
		t.Fatalf("the seeds must hold both verdicts and differ between the rules: %d corrupt, %d clean, %d differ", corrupt, clean, differ)
	}
	// Single-byte edits of the seeds at every position class.
	rng := rand.New(rand.NewSource(1))
	alphabet := "AZaz09+/= \t\n\x00-_.é\xff"
	for range 20000 {
		s := []byte(seeds[rng.Intn(len(seeds))])
		if len(s) == 0 {
			continue
		}
		i := rng.Intn(len(s))
		switch rng.Intn(3) {
		case 0:
			s[i] = alphabet[rng.Intn(len(alphabet))]
		case 1:
			s = append(s[:i], s[i+1:]...)
		case 2:
			s = append(s[:i], append([]byte{alphabet[rng.Intn(len(alphabet))]}, s[i:]...)...)
		}
		check(string(s))
	}
}

func FuzzCorruptImage(f *testing.F) {
	for _, s := range imageSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, unpadded := range []bool{false, true} {
			if got, want := CorruptImageData(s, unpadded), corruptImageRef(s, unpadded); got != want {
				t.Fatalf("CorruptImageData(%q, %v) = %v, the stepwise rule says %v", s, unpadded, got, want)
			}
		}
	})
}

// BenchmarkCorruptImage: a 2 MB payload, the rule's cost per byte.
func BenchmarkCorruptImage(b *testing.B) {
	data := base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 1<<21)...))
	b.Run("one-pass", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			CorruptImageData(data, false)
		}
	})
	b.Run("stepwise", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			corruptImageRef(data, false)
		}
	})
}

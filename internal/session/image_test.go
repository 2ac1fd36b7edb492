package session

import (
	"encoding/base64"
	"math/rand"
	"strings"
	"testing"
)

// corruptImageRef is OpenClaw's rule step by step, as it was first written here (a copy of the
// canonical text, then a decode of its head): the one-pass corruptImage must agree with it.
func corruptImageRef(data string) bool {
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

func imageSeeds() []string {
	png := base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 200)...))
	jpg := base64.StdEncoding.EncodeToString([]byte{0xff, 0xd8, 0xff, 0xe0, 1})
	heic := base64.StdEncoding.EncodeToString([]byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"))
	return []string{
		"", "=", "====", "AAAA", png, jpg, heic, png + "=", png[:len(png)-1], " " + png + "\n",
		png[:40] + "\n" + png[40:], png[:10] + "=" + png[10:], png[:10] + "é" + png[10:],
		png[:10] + "-" + png[10:], png + "\x00", strings.Repeat("\t", 7) + jpg, jpg[:len(jpg)-2] + "==",
		jpg[:len(jpg)-2] + "= =", "R0lGODlh", "Qk0=", "UklGRgAAAABXRUJQ",
	}
}

func TestCorruptImageMatchesTheStepwiseRule(t *testing.T) {
	check := func(s string) {
		t.Helper()
		want := corruptImageRef(s)
		if got := CorruptImageData(s); got != want {
			t.Fatalf("CorruptImageData(%q) = %v, the stepwise rule says %v", s, got, want)
		}
		if got := CorruptImageBytes([]byte(s)); got != want {
			t.Fatalf("CorruptImageBytes(%q) = %v, the stepwise rule says %v", s, got, want)
		}
	}
	seeds := imageSeeds()
	corrupt, clean := 0, 0
	for _, s := range seeds {
		check(s)
		if corruptImageRef(s) {
			corrupt++
		} else {
			clean++
		}
	}
	if corrupt == 0 || clean == 0 {
		t.Fatalf("the seeds must hold both verdicts: %d corrupt, %d clean", corrupt, clean)
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
		if got, want := CorruptImageData(s), corruptImageRef(s); got != want {
			t.Fatalf("CorruptImageData(%q) = %v, the stepwise rule says %v", s, got, want)
		}
	})
}

// BenchmarkCorruptImage: a 2 MB payload, the rule's cost per byte.
func BenchmarkCorruptImage(b *testing.B) {
	data := base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 1<<21)...))
	b.Run("one-pass", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			CorruptImageData(data)
		}
	})
	b.Run("stepwise", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			corruptImageRef(data)
		}
	})
}

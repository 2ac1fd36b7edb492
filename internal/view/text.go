package view

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/klauspost/compress/gzip"
)

// Defaults of the page size bounds (Options.MaxText, Options.TextBudget, Options.Preview).
const (
	DefaultPreview    = 80       // characters of a text in the page data itself (the list shows about that much)
	DefaultMaxText    = 64 << 10 // bytes of one text kept in full in the compressed block
	DefaultTextBudget = 24 << 20 // bytes of full texts per page, before compression
	chunkBytes        = 1 << 20  // uncompressed bytes per compressed text chunk
)

// textRef locates a full text in the compressed text chunks: chunk number, byte range, and
// the size of the original text when it was cut at MaxText.
type textRef [4]int64

// texts collects the full texts of a page into chunks of about chunkBytes, so the page
// inflates only the chunk a text is in, when the reader asks for it.
type texts struct {
	chunks  [][]byte
	cur     bytes.Buffer
	used    int64
	budget  int64
	maxText int
	omitted int // texts not kept because the budget was spent
}

func newTexts(maxText int, budget int64) *texts {
	return &texts{maxText: maxText, budget: budget}
}

// add keeps s (cut at maxText bytes, on a rune boundary) and returns where it is, or nil when
// the page's text budget is spent.
func (t *texts) add(s string) *textRef {
	full := int64(len(s))
	if len(s) > t.maxText {
		s = cutBytes(s, t.maxText)
	}
	if t.used+int64(len(s)) > t.budget {
		t.omitted++
		return nil
	}
	if t.cur.Len() > 0 && t.cur.Len()+len(s) > chunkBytes {
		t.flush()
	}
	start := int64(t.cur.Len())
	t.cur.WriteString(s)
	t.used += int64(len(s))
	return &textRef{int64(len(t.chunks)), start, int64(t.cur.Len()), full}
}

func (t *texts) flush() {
	if t.cur.Len() == 0 {
		return
	}
	t.chunks = append(t.chunks, bytes.Clone(t.cur.Bytes()))
	t.cur.Reset()
}

// blocks returns every chunk gzip-compressed and base64-encoded, as the page embeds them.
func (t *texts) blocks() ([]string, error) {
	t.flush()
	out := make([]string, len(t.chunks))
	errs := make(chan error, len(t.chunks))
	sem := make(chan struct{}, 2) // the chunks are independent: compress two at a time
	for i, c := range t.chunks {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			s, err := pack(c)
			out[i] = s
			errs <- err
		}()
	}
	for range t.chunks {
		if err := <-errs; err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pack gzips b and encodes it as base64: the page decodes it with atob and
// DecompressionStream("gzip"), which every current browser has.
func pack(b []byte) (string, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	if err != nil {
		return "", err
	}
	if _, err := zw.Write(b); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// cutBytes returns s cut to at most n bytes without splitting a UTF-8 sequence.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// preview returns the first n characters of s with runs of white space folded, and whether
// it left anything out.
func preview(s string, n int) (string, bool) {
	var b strings.Builder
	count, space, cut := 0, false, false
	for i, r := range s {
		if count >= n {
			cut = strings.TrimSpace(s[i:]) != ""
			break
		}
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
			count++
		}
		space = false
		b.WriteRune(r)
		count++
	}
	return b.String(), cut
}

// redactor replaces texts by their length and a keyed hash. The key is random per run, so
// equal texts show equal hashes within one page set but a short text cannot be recovered by
// hashing guesses.
type redactor struct {
	key []byte
}

func newRedactor() *redactor {
	k := make([]byte, 32)
	_, _ = rand.Read(k) // crypto/rand never fails on supported platforms
	return &redactor{key: k}
}

// hash is the first 12 hex digits of HMAC-SHA256(key, s).
func (r *redactor) hash(s string) string {
	m := hmac.New(sha256.New, r.key)
	m.Write([]byte(s))
	return hex.EncodeToString(m.Sum(nil))[:12]
}

// text is what a redacted page shows instead of s.
func (r *redactor) text(s string) string {
	if s == "" {
		return ""
	}
	return "‹" + itoa(utf8.RuneCountInString(s)) + " chars #" + r.hash(s) + "›"
}

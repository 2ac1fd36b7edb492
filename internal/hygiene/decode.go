package hygiene

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/bmp"
	"golang.org/x/image/webp"
)

// ImageDecodeError decodes the image an image block holds in full and returns why it does not
// decode; nil when it does, or when its format is not one Go reads (HEIC, an unknown one), so
// nothing can be said. OpenClaw 2026.3.13 reads every image with libvips (sharp) and replaces
// one libvips cannot read by a text naming libvips' error; a full decode is what comes
// nearest to libvips' verdict (a valid signature over a corrupt body fails both).
func ImageDecodeError(block map[string]any) error {
	data, _ := block["data"].(string)
	canon := canonicalBase64(jsTrim(data))
	if canon == "" {
		canon = canonicalBase64Padded(jsTrim(data))
	}
	if canon == "" {
		return nil
	}
	raw, err := base64.StdEncoding.DecodeString(canon)
	if err != nil {
		return nil
	}
	var decode func(*bytes.Reader) (image.Image, error)
	switch {
	case bytes.HasPrefix(raw, []byte("\x89PNG\r\n\x1a\n")):
		decode = func(r *bytes.Reader) (image.Image, error) { return png.Decode(r) }
	case bytes.HasPrefix(raw, []byte("\xff\xd8\xff")):
		decode = func(r *bytes.Reader) (image.Image, error) { return jpeg.Decode(r) }
	case bytes.HasPrefix(raw, []byte("GIF87a")), bytes.HasPrefix(raw, []byte("GIF89a")):
		decode = func(r *bytes.Reader) (image.Image, error) { return gif.Decode(r) }
	case len(raw) >= 12 && string(raw[:4]) == "RIFF" && string(raw[8:12]) == "WEBP":
		decode = func(r *bytes.Reader) (image.Image, error) { return webp.Decode(r) }
	case bytes.HasPrefix(raw, []byte("BM")):
		decode = func(r *bytes.Reader) (image.Image, error) { return bmp.Decode(r) }
	default:
		return nil
	}
	_, err = decode(bytes.NewReader(raw))
	return err
}

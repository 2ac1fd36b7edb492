package view

import (
	"bytes"
	"encoding/base64"
	"image"
	_ "image/gif" // decoders for the thumbnails
	"image/jpeg"
	_ "image/png"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp"
)

// Thumbnail bounds: a page embeds at most maxThumbs thumbnails of at most thumbSide pixels,
// made from images of at most maxThumbSource decoded bytes; other images are listed with their
// type and size only, so a session full of screenshots still gives a small page.
const (
	maxThumbs      = 300
	thumbSide      = 160
	maxThumbSource = 8 << 20
	maxThumbPixels = 40 << 20 // decoded pixels: refuses decompression bombs before Decode
)

// thumbnail decodes a base64 image and returns a small JPEG of it as a data: URL, or "" when
// the data is not an image Go can decode.
func thumbnail(b64 string) string {
	if base64.StdEncoding.DecodedLen(len(b64)) > maxThumbSource {
		return ""
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return ""
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > maxThumbPixels {
		return ""
	}
	src, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		return ""
	}
	w, h := cfg.Width, cfg.Height
	if w > thumbSide || h > thumbSide {
		if w >= h {
			w, h = thumbSide, max(1, h*thumbSide/cfg.Width)
		} else {
			w, h = max(1, w*thumbSide/cfg.Height), thumbSide
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(dst, dst.Bounds(), image.White, image.Point{}, draw.Src) // transparent → white
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Over, nil)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 75}); err != nil {
		return ""
	}
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}

package jsonl

import (
	"context"
	"io"
)

// ContextReader returns r whose Read fails with ctx's error once ctx is done. A Reader fills
// its buffer a read at a time, so a stream wrapped this way sees an interrupt at the next
// buffer even inside a line with no newline, or on an endless stdin.
func ContextReader(ctx context.Context, r io.Reader) io.Reader {
	if ctx == nil || ctx.Done() == nil {
		return r
	}
	return ctxReader{ctx, r}
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
